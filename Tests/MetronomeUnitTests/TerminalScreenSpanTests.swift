@testable import MetronomeSupport
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
                        TerminalScreen.changedSpan(a.baseAddress ?? UnsafePointer(bitPattern: 8)!, b.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: width)
                    }
                }
                #expect(span == Self.reference(now, before), "width \(width): \(now) against \(before)")
            }
        }
    }

    @Test func rowsAndColumnsAreWrittenInDecimal() {
        for value in [0, 1, 9, 10, 35, 99, 100, 101, 999, 1_000, 4_096, 65_535] {
            var buffer: [UInt8] = []
            TerminalScreen.appendDecimal(value, into: &buffer)
            #expect(buffer == Array(String(value).utf8))
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
}
