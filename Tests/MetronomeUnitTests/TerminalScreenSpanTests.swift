import CAllocationCounter
import Glibc
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomePendulum
@testable import MetronomeTerminal
import Testing
import MetronomeTestSupport

@Suite struct TerminalScreenSpanTests {
    /// The changed span of a row, cell by cell: the reference the vector compare must match.
    static func reference(_ now: [UInt32], _ before: [UInt32]) -> Range<Int>? {
        guard let first = now.indices.first(where: { now[$0] != before[$0] }),
              let last = now.indices.last(where: { now[$0] != before[$0] }) else { return nil }
        return first..<(last + 1)
    }

    @Test func theChangedSpanIsTheCellByCellOneForEveryWidthAndPlace() {
        var seed: UInt64 = 5
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % bound
        }
        // Widths around the eight-cell blocks, and rows with none, one, two or many cells changed anywhere.
        for width in [0, 1, 7, 8, 9, 15, 16, 17, 31, 100, 203] {
            for _ in 0..<300 {
                let before = (0..<width).map { _ in UInt32(next(3) + 0x20) }
                var now = before
                for _ in 0..<(width == 0 ? 0 : next(4)) {
                    let cell = next(width)
                    now[cell] = now[cell] == 0x2588 ? 0x41 : 0x2588
                }
                let span = now.withUnsafeBufferPointer { a in
                    before.withUnsafeBufferPointer { b in
                        TextGrid.changedSpan(a.baseAddress ?? UnsafePointer(bitPattern: 8)!, b.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: width)
                    }
                }
                #expect(span == Self.reference(now, before), "width \(width): \(now) against \(before)")
            }
        }
    }

    /// `--flash`'s reverse video: on before the first inverted cell of a span, off where it stops
    /// and at the span's end, so nothing after the frame is written inverted.
    @Test func invertedCellsAreWrittenInReverseVideoAndLeaveItOff() {
        var grid = TextGrid(width: 6, height: 3)
        grid.write("abcdef", x: 0, y: 0)
        grid.write("ghijkl", x: 0, y: 1)
        grid.invert(rows: 1..<2)
        #expect(grid.line(1) == "ghijkl" && grid.character(x: 2, y: 1) == "i" && grid.isInverted(x: 2, y: 1) && !grid.isInverted(x: 2, y: 0))
        var shown = TextGrid(width: 0, height: 0)
        let whole = String(decoding: Self.frameBytes(grid, over: &shown), as: UTF8.self)
        #expect(whole == "\u{1B}[1;1Habcdef\u{1B}[2;1H\u{1B}[7mghijkl\u{1B}[27m\u{1B}[3;1H      ")
        // The same cells not inverted are a change: the row is written again, plainly.
        var plain = TextGrid(width: 6, height: 3)
        plain.write("abcdef", x: 0, y: 0)
        plain.write("ghijkl", x: 0, y: 1)
        #expect(plain != grid)
        #expect(String(decoding: Self.frameBytes(plain, over: &shown), as: UTF8.self) == "\u{1B}[2;1Hghijkl")
        // Within a row, reverse video goes on and off with the cells.
        var mixed = plain
        mixed.invert(rows: 0..<1)
        mixed.write("xy", x: 2, y: 0)
        #expect(String(decoding: Self.frameBytes(mixed, over: &shown), as: UTF8.self) == "\u{1B}[1;1H\u{1B}[7mab\u{1B}[27mxy\u{1B}[7mef\u{1B}[27m")
        // A frame cut short in reverse video (a crash, SIGQUIT) leaves none behind: leaving the screen turns it off first.
        #expect(String(decoding: TerminalRescue.leaveScreen, as: UTF8.self).hasPrefix("\u{1B}[27m"))
    }

    @Test func rowsAndColumnsAreWrittenInDecimal() {
        for value in [0, 1, 9, 10, 35, 99, 100, 101, 999, 1_000, 4_096, 65_535] {
            var bytes = [UInt8](repeating: 0, count: 20)
            let count = bytes.withUnsafeMutableBufferPointer { bytes in
                var cursor = bytes.baseAddress!
                TerminalScreen.putDecimal(value, at: &cursor)
                return cursor - bytes.baseAddress!
            }
            #expect(Array(bytes[..<count]) == Array(String(value).utf8))
        }
    }

    @Test func textWrittenIntoTheGridIsClippedToIt() {
        var grid = TextGrid(width: 5, height: 2)
        grid.write("abcdefg", x: -2, y: 0)
        grid.write("é★", x: 3, y: 1)
        grid.write("lost", x: 0, y: 2)
        grid.write("lost", x: 0, y: -1)
        #expect(grid.line(0) == "cdefg")
        #expect(grid.line(1) == "   é★")
        grid.write("xyz", x: 4, y: 1)
        #expect(grid.line(1) == "   éx")
    }

    /// The bytes that turn `before` (nil: nothing known) into `grid`, cell by cell: each row whole
    /// after nothing or a resize, else from its first changed cell to its last.
    static func referenceFrame(_ grid: TextGrid, over before: TextGrid?) -> [UInt8] {
        var text = ""
        for y in 0..<grid.height {
            let row = (0..<grid.width).map { grid.character(x: $0, y: y) }
            var first = 0, last = grid.width - 1
            if let before, before.width == grid.width, before.height == grid.height {
                let changed = (0..<grid.width).filter { row[$0] != before.character(x: $0, y: y) }
                guard let start = changed.first, let end = changed.last else { continue }
                (first, last) = (start, end)
            }
            text += "\u{1B}[\(y + 1);\(first + 1)H" + String(String.UnicodeScalarView(row[first...last]))
        }
        return Array(text.utf8)
    }

    static func frameBytes(_ grid: TextGrid, over shown: inout TextGrid) -> [UInt8] {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalScreen.room(for: grid))
        defer { bytes.deallocate() }
        let count = TerminalScreen.frame(grid, over: &shown, into: bytes)
        return Array(bytes[..<count])
    }

    /// A run's frames as the live view makes them: the body drawn once a size, each frame over a
    /// copy of it in one of two grids in turn, the help box some of the time, frames left undrawn
    /// where nothing changed and now and then at random, resizes that forget what is shown. Each
    /// grid is the picture drawn whole, and the screen writes the bytes the whole grids ask for.
    @Test(arguments: PictureStyle.allCases)
    func framesOverTheBodyWriteWhatTheWholePicturesDo(style: PictureStyle) {
        var status = PendulumStatus(tempo: Tempo(bpm: 137)!, meter: .common, bar: 1, beatInBar: 1, elapsedSeconds: 0, underruns: 0)
        let sizes = [(100, 35), (60, 22), (100, 35), (30, 6), (24, 12), (100, 35)]
        var shown = TextGrid(width: 0, height: 0), lastWhole: TextGrid?
        var frame = 0
        for (width, height) in sizes {
            var body = TextGrid(width: width, height: height)
            PendulumPicture.drawBody(into: &body, style: style)
            var grids = (TextGrid(width: width, height: height), TextGrid(width: width, height: height))
            // A resize: the screen forgets what it shows, the next frame is drawn whole.
            shown = TextGrid(width: 0, height: 0)
            lastWhole = nil
            for _ in 0..<150 {
                frame += 1
                // 137 bpm at 60 frames/s: a swing of 26.3 frames, eased, resting at each end.
                let phase = Double(frame).truncatingRemainder(dividingBy: 52.6) / 52.6
                let angle = max(-30, min(30, 33 * cos(2 * Double.pi * phase)))
                status.beatInBar = 1 + (frame / 26) % 4
                status.bar = Int64(1 + frame / 105)
                status.elapsedSeconds = Int64(frame / 60)
                let help = (frame / 40) % 3 == 1
                let line = status.text(width: width)
                grids.0.copy(from: body)
                PendulumPicture.drawFront(into: &grids.0, angle: angle, status: status, statusLine: line, style: style)
                if help { PendulumPicture.drawHelp(into: &grids.0, style: style) }
                var whole = PendulumPicture.draw(width: width, height: height, angle: angle, status: status, style: style)
                if help { PendulumPicture.drawHelp(into: &whole, style: style) }
                #expect(grids.0.cells == whole.cells, "\(style) \(width)x\(height) frame \(frame)")
                let changed = grids.0 != grids.1
                #expect(changed == (grids.0.cells != grids.1.cells))
                if changed || lastWhole == nil, frame % 7 != 0 {
                    let bytes = Self.frameBytes(grids.0, over: &shown)
                    #expect(bytes == Self.referenceFrame(whole, over: lastWhole), "\(style) \(width)x\(height) frame \(frame)")
                    #expect(shown.cells == whole.cells)
                    lastWhole = whole
                }
                swap(&grids.0, &grids.1)
            }
        }
    }

    /// Once the grids and the room for the bytes are made, a frame (the copy of the body, the
    /// front, the comparison with the last, the bytes) allocates nothing.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"), arguments: PictureStyle.allCases)
    func aFrameAllocatesNothing(style: PictureStyle) {
        let status = PendulumStatus(tempo: Tempo(bpm: 137)!, meter: .common, bar: 3, beatInBar: 2, elapsedSeconds: 5, underruns: 0)
        let line = status.text(width: 100)
        var body = TextGrid(width: 100, height: 35)
        PendulumPicture.drawBody(into: &body, style: style)
        var grids = (TextGrid(width: 100, height: 35), TextGrid(width: 100, height: 35))
        var shown = TextGrid(width: 0, height: 0)
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalScreen.room(for: body))
        defer { bytes.deallocate() }
        var written = 0
        for frame in 0..<200 {
            // The first frames share what the screen took whole until each grid has its own cells.
            if frame == 4 { metronome_counting_begin() }
            grids.0.copy(from: body)
            PendulumPicture.drawFront(into: &grids.0, angle: Double(frame % 60) - 30, status: status, statusLine: line, style: style)
            if grids.0 != grids.1 { written += TerminalScreen.frame(grids.0, over: &shown, into: bytes) }
            swap(&grids.0, &grids.1)
        }
        let allocations = metronome_counting_end()
        #expect(written > 0)
        #expect(allocations == 0)
    }
}

