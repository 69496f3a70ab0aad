@testable import MetronomeSupport
import Testing
import MetronomeTestSupport

/// A copy of a grid keeps it as its backdrop and the columns drawn over it: copied again it puts
/// back only those, and two copies of one grid compare only there. Checked against the cells.
@Suite struct TextGridTests {
    /// A pseudo-random sequence, the same every run.
    struct Dice {
        var seed: UInt64
        mutating func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % bound
        }
    }

    /// Draws a few things anywhere, partly off the grid, in each of the ways a grid is drawn in.
    static func scribble(_ grid: inout TextGrid, _ dice: inout Dice) {
        for _ in 0..<(1 + dice.next(6)) {
            let x = dice.next(grid.width + 8) - 4, y = dice.next(grid.height + 2) - 1
            switch dice.next(4) {
            case 0: grid.put(Unicode.Scalar(UInt8(65 + dice.next(26))), x: x, y: y)
            case 1: grid.write(["ab", "é★x", "a longer line of text"][dice.next(3)], x: x, y: y)
            case 2: grid.fill("#", x: x...(x + dice.next(12)), y: y)
            default: grid.dot(x: dice.next(grid.width * 2 + 4) - 2, y: dice.next(grid.height * 4 + 4) - 2)
            }
        }
    }

    static func backdrop(width: Int, height: Int) -> TextGrid {
        var grid = TextGrid(width: width, height: height)
        for y in 0..<height { grid.write(String(repeating: "=/\\_", count: width / 4 + 1), x: y % 3, y: y) }
        return grid
    }

    @Test func aCopyDrawnOverIsTheBackdropAgainOnceCopiedAgain() {
        var dice = Dice(seed: 11)
        for (width, height) in [(100, 35), (9, 3), (1, 1), (17, 12)] {
            let body = Self.backdrop(width: width, height: height)
            var frame = TextGrid(width: width, height: height)
            for _ in 0..<400 {
                frame.copy(from: body)
                #expect(frame.cells == body.cells)
                Self.scribble(&frame, &dice)
            }
        }
    }

    @Test func copiesOfOneGridCompareAsTheirCellsDo() {
        var dice = Dice(seed: 29)
        for (width, height) in [(100, 35), (9, 3), (17, 12)] {
            let body = Self.backdrop(width: width, height: height)
            var one = TextGrid(width: width, height: height), other = one
            for round in 0..<600 {
                one.copy(from: body)
                other.copy(from: body)
                // Often the same drawing, sometimes one more mark: equal or not by a cell.
                var same = dice
                Self.scribble(&one, &dice)
                Self.scribble(&other, &same)
                if round % 3 == 0 { Self.scribble(&other, &dice) }
                #expect(one.isCopy(ofTheSameGridAs: other))
                #expect((one == other) == (one.cells == other.cells))
                for y in 0..<height {
                    let columns = one.columns(thatMayDifferFrom: other, row: y)
                    for x in 0..<width where one.cells[y * width + x] != other.cells[y * width + x] {
                        #expect(columns.contains(x), "row \(y) column \(x) differs outside \(columns)")
                    }
                }
            }
        }
        // Not copies of one grid: compared whole.
        var one = Self.backdrop(width: 5, height: 2), other = TextGrid(width: 5, height: 2)
        #expect(!one.isCopy(ofTheSameGridAs: other) && one != other)
        other.copy(from: one)
        #expect(one == other && !one.isCopy(ofTheSameGridAs: other))
        one.put("x", x: 0, y: 0)
        #expect(one != other)
    }

    /// Text written is its scalars put a cell each, clipped to the grid, ASCII or not, wherever it starts.
    @Test func textWrittenIsItsScalarsPutOneACell() {
        for text in ["137 bpm  4/4  12:3   1  2 [3] 4   01:23  ? keys  q quit", "[#]", "\u{2590}\u{2588}\u{258C}", "ab é★ cd", ""] {
            for x in -60...24 {
                var written = TextGrid(width: 20, height: 3), put = written
                written.write(text, x: x, y: 1)
                for (offset, scalar) in text.unicodeScalars.enumerated() { put.put(scalar, x: x + offset, y: 1) }
                #expect(written.cells == put.cells, "\(text) at \(x)")
            }
        }
    }

    /// A grid that takes another's cells reports each row's changed span as found cell by cell,
    /// becomes it, and then compares with the next copy of the same grid as the other would: as the
    /// screen keeps what the terminal shows.
    @Test func aGridThatTakesAnothersCellsReportsTheChangedSpansAndBecomesIt() {
        var dice = Dice(seed: 41)
        let body = Self.backdrop(width: 30, height: 8)
        var shown = Self.backdrop(width: 30, height: 8), frame = TextGrid(width: 30, height: 8)
        for round in 0..<300 {
            frame.copy(from: body)
            Self.scribble(&frame, &dice)
            // Now and then a frame the screen is not given.
            if round % 5 == 4 { continue }
            let before = shown.cells
            var spans: [Int: Range<Int>] = [:]
            shown.take(frame) { row, columns in spans[row] = columns }
            for y in 0..<8 {
                let changed = (0..<30).filter { before[y * 30 + $0] != frame.cells[y * 30 + $0] }
                #expect(spans[y] == changed.first.map { $0..<(changed.last! + 1) }, "round \(round) row \(y)")
            }
            #expect(shown.cells == frame.cells)
            #expect(shown.isCopy(ofTheSameGridAs: frame))
        }
    }
}
