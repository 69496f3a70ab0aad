import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomePendulum
import MetronomeTestSupport

/// The picture as text snapshots in `Snapshots/`. Run with RECORD_SNAPSHOTS=1
/// to write them anew after a deliberate change, then read the diff.
@Suite struct PendulumPictureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    let status = PendulumStatus(tempo: Tempo(bpm: 137)!, meter: .common, bar: 12, beatInBar: 3, elapsedSeconds: 83, underruns: 0)

    func check(_ name: String, _ grid: TextGrid) throws {
        let file = Self.folder.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try (grid.text + "\n").write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(grid.text + "\n" == expected, "snapshot \(name)")
    }

    @Test(arguments: [(30.0, "right"), (0.0, "upright"), (-30.0, "left"), (-12.5, "leaning-left")])
    func aMidSizeTerminal(angle: Double, name: String) throws {
        try check("60x22-\(name)", PendulumPicture.draw(width: 60, height: 22, angle: angle, status: status))
    }

    /// The live loop draws the body once a size and each frame over a copy of it: every angle, in
    /// every style and size, gives the picture drawn whole; and the grids compare cell by cell.
    @Test func aFrameOverTheBodyDrawnOnceIsThePictureDrawnWhole() {
        for style in PictureStyle.allCases {
            for (width, height) in [(100, 35), (60, 22), (24, 12), (30, 6)] {
                var body = TextGrid(width: width, height: height)
                PendulumPicture.drawBody(into: &body, style: style)
                var frame = TextGrid(width: width, height: height)
                for tenth in stride(from: -300, through: 300, by: 7) {
                    let angle = Double(tenth) / 10
                    frame.copy(from: body)
                    PendulumPicture.drawFront(into: &frame, angle: angle, status: status, statusLine: status.text(width: width), style: style)
                    let whole = PendulumPicture.draw(width: width, height: height, angle: angle, status: status, style: style)
                    #expect(frame == whole, "\(style) \(width)x\(height) at \(angle)")
                    #expect(frame.text == whole.text)
                }
            }
        }
        var one = TextGrid(width: 5, height: 2), other = one
        #expect(one == other)
        other.put("x", x: 4, y: 1)
        #expect(one != other)
        one.copy(from: other)
        #expect(one == other && one.character(x: 4, y: 1) == "x")
        #expect(TextGrid(width: 5, height: 2) != TextGrid(width: 2, height: 5))
        #expect(TextGrid(width: 0, height: 3) == TextGrid(width: 0, height: 3))
    }

    @Test func theBellBeatMarksTheWeight() throws {
        var one = status
        one.beatInBar = 1
        try check("60x22-bell", PendulumPicture.draw(width: 60, height: 22, angle: 30, status: one))
    }

    @Test func largeAndSmallTerminalsScaleThePicture() throws {
        try check("120x40-right", PendulumPicture.draw(width: 120, height: 40, angle: 30, status: status))
        try check("30x14-left", PendulumPicture.draw(width: 30, height: 14, angle: -30, status: status))
        let small = PendulumPicture.draw(width: 30, height: 14, angle: -30, status: status)
        #expect(small.text.split(separator: "\n").allSatisfy { $0.utf8.count <= 30 })
    }

    @Test func belowTheMinimumSizeItIsOneLine() throws {
        let grid = PendulumPicture.draw(width: 50, height: 6, angle: 10, status: status)
        try check("50x6-indicator", grid)
        #expect(grid.text.split(separator: "\n").count == 1)
    }

    @Test func theStatusLineSaysWhereWeAre() {
        var withUnderruns = status
        withUnderruns.underruns = 2
        let line = withUnderruns.text(width: 200)
        #expect(line == "137 bpm  4/4  12:3   1  2 [3] 4   01:23  underruns 2  ? keys  q quit")
        #expect(status.text(width: 10).utf8.count == 10)
    }

    @Test func theStatusLineShowsPracticeStateAndKeepsTheQuitKeyWhenNarrow() {
        var practising = status
        practising.bell = false
        practising.paused = true
        practising.muted = true
        #expect(practising.text(width: 200) == "137 bpm  4/4 no bell  12:3   1  2 [3] 4   01:23  PAUSED  muted  ? keys  q quit")
        // Narrower: the beat boxes go, then the help key; the quit key stays while it fits.
        #expect(status.text(width: 50) == "137 bpm  4/4  12:3  01:23  ? keys  q quit")
        #expect(status.text(width: 34) == "137 bpm  4/4  12:3  01:23  q quit")
    }

    @Test func theStatusLineShowsTheGrantedLatencyWhereItFits() {
        var playing = status
        playing.latencyTenths = 853
        #expect(playing.text(width: 200) == "137 bpm  4/4  12:3   1  2 [3] 4   01:23  latency 85.3 ms  ? keys  q quit")
        // The latency is the first to go when the line is short.
        #expect(playing.text(width: 66) == status.text(width: 66))
    }

    @Test func theStatusLineShowsTheLastNotesAndTheirMeanAndSpreadWhereTheyFit() {
        var inspecting = status
        inspecting.latencyTenths = 853
        inspecting.practice = PracticeReadout()
        #expect(inspecting.text(width: 200) == "137 bpm  4/4  12:3   1  2 [3] 4   01:23  listening  latency 85.3 ms  ? keys  q quit")
        for offset in [12.25, -4.1, 0.8, -20.04] { inspecting.practice?.add(offsetMilliseconds: offset) }
        #expect(inspecting.text(width: 200) == "137 bpm  4/4  12:3   1  2 [3] 4   01:23  notes -4.1 +0.8 -20.0  mean -2.8 sd 13.4 ms  latency 85.3 ms  ? keys  q quit")
        // Narrower: the latency goes, then the last notes (the mean and spread stay), then the beat boxes, then the help key.
        #expect(inspecting.text(width: 100) == "137 bpm  4/4  12:3   1  2 [3] 4   01:23  notes -4.1 +0.8 -20.0  mean -2.8 sd 13.4 ms  ? keys  q quit")
        #expect(inspecting.text(width: 80) == "137 bpm  4/4  12:3   1  2 [3] 4   01:23  mean -2.8 sd 13.4 ms  ? keys  q quit")
        #expect(inspecting.text(width: 63) == "137 bpm  4/4  12:3  01:23  mean -2.8 sd 13.4 ms  ? keys  q quit")
        #expect(inspecting.text(width: 55) == "137 bpm  4/4  12:3  01:23  mean -2.8 sd 13.4 ms  q quit")
        #expect(inspecting.text(width: 40) == "137 bpm  4/4  12:3  01:23  q quit")
    }

    @Test func theReadoutKeepsARunningMeanAndSpread() {
        var readout = PracticeReadout()
        #expect(readout.mark == nil && readout.spread == 0)
        let offsets = [12.25, -4.1, 0.8, -20.04, 3.3, 0.04]
        for offset in offsets { readout.add(offsetMilliseconds: offset) }
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        let variance = offsets.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(offsets.count - 1)
        #expect(readout.notes == 6 && readout.last == [-20.04, 3.3, 0.04])
        #expect(abs(readout.mean - mean) < 1e-12 && abs(readout.spread - variance.squareRoot()) < 1e-12)
        #expect(readout.mark == "on the click")
        readout.add(offsetMilliseconds: -0.05)
        #expect(readout.mark == "early 0.1 ms")
        readout.add(offsetMilliseconds: 7.44)
        #expect(readout.mark == "late 7.4 ms")
    }

    @Test func thePictureMarksTheLastNoteEarlyOnTheLeftAndLateOnTheRight() {
        var inspecting = status
        inspecting.practice = PracticeReadout()
        // Listening, before the first note: no mark.
        let listening = PendulumPicture.draw(width: 80, height: 24, angle: 0, status: inspecting).line(0)
        #expect(!listening.contains("early") && !listening.contains("late") && !listening.contains("click"))
        inspecting.practice?.add(offsetMilliseconds: -12.3)
        let early = PendulumPicture.draw(width: 80, height: 24, angle: 0, status: inspecting)
        #expect(early.line(0).hasPrefix(" early 12.3 ms "))
        inspecting.practice?.add(offsetMilliseconds: 4.06)
        let late = PendulumPicture.draw(width: 80, height: 24, angle: 0, status: inspecting)
        #expect(late.line(0).hasSuffix(" late 4.1 ms "), "\(late.line(0))")
        #expect(!late.line(0).contains("early"))
    }

    @Test func theStatusLineNamesTheCountIn() {
        var countingIn = status
        countingIn.countIn = true
        #expect(countingIn.text(width: 200).hasPrefix("137 bpm  4/4  count-in 12:3 "))
    }

    @Test func thePendulumSwingsThroughMutedBarsAndAcrossAPlannedMap() throws {
        // A gap trainer mutes bar 2 of every 2: the rod still reaches each extreme on the beat.
        var rhythm = Rhythm()
        rhythm.muting = try BeatMuting(gap: "1:1", randomMute: nil, seed: nil)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 120)!, rate: .standard)
        let muted = PendulumMotion(history: PassageHistory(Passage(schedule: schedule, rhythm: rhythm)))
        for click in Int64(4)..<8 {
            let angle = muted.angle(atFrame: Double(schedule.frame(ofClick: click)))
            #expect(abs(abs(angle) - 30) < 1e-9)
        }
        // Across the passages of a tempo map (a per-beat list, then a ramp): an extreme at every beat.
        let map = try TempoMap(parsing: Array("1 3/4 100,150,200\n1 3/4 200-100".utf8), name: "map")
        var plan = TempoPlan(.map(map, first: 0, loops: false), rate: .standard, rhythm: .plain)
        var history = PassageHistory(Passage(schedule: plan.firstSchedule))
        var passages: [Passage] = []
        while let passage = plan.next() {
            history.append(passage)
            passages.append(passage)
        }
        let motion = PendulumMotion(history: history)
        for (click, passage) in passages.enumerated() {
            let frame = passage.frame(ofClick: Int64(click))
            let angle = motion.angle(atFrame: Double(frame))
            #expect(abs(angle - (click % 2 == 0 ? 30 : -30)) < 1e-9, "click \(click) at \(frame): \(angle)")
        }
    }

    @Test func theHelpOverlayListsTheKeysInABox() {
        var grid = PendulumPicture.draw(width: 80, height: 24, angle: 0, status: status)
        PendulumPicture.drawHelp(into: &grid)
        let text = grid.text
        for key in ["Space", "tap tempo", "beats per bar", "mute", "volume", "quit"] { #expect(text.contains(key)) }
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
        let top = rows.firstIndex { $0.contains("+---") }
        #expect(top.map { rows[$0 + 1].contains("| Space") } == true)
    }

    @Test(arguments: [(30.0, "right"), (0.0, "upright"), (-12.5, "leaning-left")])
    func theUnicodeStyle(angle: Double, name: String) throws {
        try check("60x22-unicode-\(name)", PendulumPicture.draw(width: 60, height: 22, angle: angle, status: status, style: .unicode))
    }

    @Test func theUnicodeStyleMarksTheBellAndKeepsTheIndicatorAndHelpBox() throws {
        var one = status
        one.beatInBar = 1
        try check("60x22-unicode-bell", PendulumPicture.draw(width: 60, height: 22, angle: -30, status: one, style: .unicode))
        try check("50x6-unicode-indicator", PendulumPicture.draw(width: 50, height: 6, angle: 10, status: one, style: .unicode))
        var grid = PendulumPicture.draw(width: 60, height: 22, angle: 5, status: status, style: .unicode)
        PendulumPicture.drawHelp(into: &grid, style: .unicode)
        try check("60x22-unicode-help", grid)
    }

    /// Braille dots split a cell 2x4: the rod moves for a change of angle too
    /// small to move a single ASCII character, and never jumps by more than a dot a row.
    @Test func theUnicodeRodMovesByLessThanACell() {
        let braille: ClosedRange<UInt32> = 0x2800...0x28FF
        var moves = 0
        for tenth in 0..<300 {
            let angle = Double(tenth) / 10
            let ascii = (PendulumPicture.draw(width: 60, height: 22, angle: angle, status: status),
                         PendulumPicture.draw(width: 60, height: 22, angle: angle + 0.1, status: status))
            let unicode = (PendulumPicture.draw(width: 60, height: 22, angle: angle, status: status, style: .unicode),
                           PendulumPicture.draw(width: 60, height: 22, angle: angle + 0.1, status: status, style: .unicode))
            if ascii.0 == ascii.1 && unicode.0 != unicode.1 { moves += 1 }
            // The rod is one unbroken line in front of the case: every row from the
            // cover up to its tip holds dots, but the weight's, which is in front of the rod.
            let rows = (0..<22).filter { y in unicode.0.cells[(y * 60)..<((y + 1) * 60)].contains { braille.contains($0) } }
            let weight = (0..<22).filter { unicode.0.line($0).contains("\u{2590}\u{2588}\u{258C}") }
            #expect(rows.count >= 10 && weight.count == 1 && Set(rows + weight) == Set(rows.first!...rows.last!), "angle \(angle)")
        }
        #expect(moves >= 100)
    }

    /// The braille rod, its dots gathered a cell at a time, is the rod set a dot at a time, over a
    /// blank grid and over the body, at every angle, in sizes where it stays inside and where it leaves the grid.
    @Test func theBrailleRodIsItsDotsSetOneAtATime() {
        for (width, height) in [(100, 35), (60, 22), (24, 12), (7, 5)] {
            var body = TextGrid(width: width, height: height)
            PendulumPicture.drawBody(into: &body, style: .unicode)
            for background in [TextGrid(width: width, height: height), body] {
                for tenth in stride(from: -900, through: 900, by: 3) {
                    let radians = Double(tenth) / 10 * Double.pi / 180
                    let direction = (dx: sin(radians) * 2, dy: -cos(radians))
                    let start = (x: Double(width / 2) + 0.5, y: Double(height) - 2.5), length = Double(height) * 0.9
                    var gathered = background, single = background
                    PendulumPicture.drawBrailleRod(into: &gathered, from: start, direction: direction, length: length)
                    for step in 0...Int(length * 8) {
                        let along = Double(step) / 8
                        let x = (start.x + direction.dx * along) * 2, y = (start.y + direction.dy * along) * 4
                        single.dot(x: Int(x.rounded(.down)), y: Int(y.rounded(.down)))
                    }
                    #expect(gathered.cells == single.cells, "\(width)x\(height) at \(Double(tenth) / 10)")
                }
            }
        }
    }

    @Test func thePictureIsCentred() {
        let grid = PendulumPicture.draw(width: 61, height: 22, angle: 0, status: status)
        let rod = (0..<grid.height).compactMap { y in (0..<grid.width).first { grid.character(x: $0, y: y) == "|" } }
        #expect(!rod.isEmpty && rod.allSatisfy { $0 == 30 })
    }
}
