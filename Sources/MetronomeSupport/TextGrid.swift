import Glibc

/// A rectangle of characters (Unicode scalars, one a cell), drawn into by the
/// picture and written to the terminal.
///
/// A grid made a copy of another (`copy(from:)`: a frame over the picture's
/// still body) keeps that grid's cells as its backdrop, shared, and the columns
/// of each row drawn since. Made a copy of it again, it puts back only those;
/// two copies of one grid are compared only where either drew.
package struct TextGrid: Equatable, Sendable {
    package let width: Int
    package let height: Int
    /// Each cell's Unicode scalar value.
    package private(set) var cells: [UInt32]
    /// The cells of the grid last copied from, shared with it; empty for none (a grid that was
    /// cleared or never a copy may differ from any other anywhere).
    private var backdrop: [UInt32] = []
    /// Each row's columns drawn since the copy: elsewhere in the row the cells are the backdrop's.
    private var drawn: [Columns]
    /// Whether any cell may be in reverse video (`invert` since the last copy or clear): a grid
    /// without (every frame but `--flash`'s) is written without looking at each cell's bit.
    package private(set) var mayBeInverted = false

    /// Columns `start..<end` of a row, none while `start >= end`: a union is a `min` and a `max`.
    struct Columns: Sendable {
        var start = Int.max, end = Int.min

        static let none = Columns()

        mutating func add(_ first: Int, _ end: Int) {
            start = min(start, first)
            self.end = max(self.end, end)
        }
    }

    static let blank = UInt32(UInt8(ascii: " "))
    /// Braille patterns: U+2800 plus one bit for each of the 2x4 dots.
    static let braille: ClosedRange<UInt32> = 0x2800...0x28FF
    /// The bit of the dot in column `x` (0, 1) and row `y` (0...3) of a braille
    /// cell: dots 1-2-3 down the left, 4-5-6 down the right, 7 and 8 below.
    @inlinable package static func brailleBit(x: Int, y: Int) -> UInt32 {
        y == 3 ? (x == 0 ? 0x40 : 0x80) : 1 << UInt32(y + 3 * x)
    }

    package init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = [UInt32](repeating: Self.blank, count: self.width * self.height)
        drawn = [Columns](repeating: .none, count: self.height)
    }

    /// Becomes a copy of `other`, a grid of the same size, in place: no allocation. A grid that is
    /// already a copy of `other`, unchanged since, puts back only the cells drawn over it; `other`
    /// is kept as the backdrop, so copy from a grid that stays as it is (the body drawn once a size).
    package mutating func copy(from other: TextGrid) {
        precondition(width == other.width && height == other.height, "grids of different sizes")
        let width = self.width
        // Inverted rows were drawn whole, so the copy puts every one of their cells back.
        mayBeInverted = other.mayBeInverted
        if Self.share(backdrop, other.cells) {
            cells.withUnsafeMutableBufferPointer { target in
                other.cells.withUnsafeBufferPointer { source in
                    drawn.withUnsafeMutableBufferPointer { drawn in
                        for row in drawn.indices where drawn[row].start < drawn[row].end {
                            let start = row * width + drawn[row].start
                            (target.baseAddress! + start).update(from: source.baseAddress! + start,
                                                                  count: drawn[row].end - drawn[row].start)
                            drawn[row] = .none
                        }
                    }
                }
            }
            return
        }
        cells.withUnsafeMutableBufferPointer { target in
            other.cells.withUnsafeBufferPointer { source in _ = target.update(fromContentsOf: source) }
        }
        backdrop = other.cells
        drawn.withUnsafeMutableBufferPointer { $0.update(repeating: .none) }
    }

    /// Whether `a` and `b` hold one array's storage. Two arrays alive at one address share one
    /// buffer, which neither can change without copying it first: the same cells.
    static func share(_ a: [UInt32], _ b: [UInt32]) -> Bool {
        guard !a.isEmpty, a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// Whether this grid and `other` are copies of one grid (`copy(from:)`), each drawn over since:
    /// they can differ only in the columns either drew (`columns(thatMayDifferFrom:row:)`).
    func isCopy(ofTheSameGridAs other: TextGrid) -> Bool {
        width == other.width && height == other.height && Self.share(backdrop, other.backdrop)
    }

    /// The columns of row `y` in which this grid and `other`, copies of one grid
    /// (`isCopy(ofTheSameGridAs:)`), may differ: those either drew since. Empty where neither did.
    func columns(thatMayDifferFrom other: TextGrid, row y: Int) -> Range<Int> {
        let start = min(drawn[y].start, other.drawn[y].start), end = max(drawn[y].end, other.drawn[y].end)
        return start < end ? start..<end : 0..<0
    }

    /// Same size and the same cells, compared as memory: copies of one grid only where either drew.
    package static func == (left: TextGrid, right: TextGrid) -> Bool {
        guard left.width == right.width, left.height == right.height else { return false }
        return left.cells.withUnsafeBufferPointer { a in
            right.cells.withUnsafeBufferPointer { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return true }  // no cells
                guard left.isCopy(ofTheSameGridAs: right) else { return memcmp(first, second, a.count * 4) == 0 }
                for row in 0..<left.height {
                    let columns = left.columns(thatMayDifferFrom: right, row: row)
                    let start = row * left.width + columns.lowerBound
                    if !columns.isEmpty, memcmp(first + start, second + start, columns.count * 4) != 0 { return false }
                }
                return true
            }
        }
    }

    /// The cells from the first that differs to the last that does, nil when
    /// none does: eight at a time from each end, one vector compare each.
    package static func changedSpan(_ now: UnsafePointer<UInt32>, _ before: UnsafePointer<UInt32>, count: Int) -> Range<Int>? {
        let lanes = SIMD8<UInt32>.scalarCount
        var first = 0
        while first + lanes <= count,
              all(UnsafeRawPointer(now + first).loadUnaligned(as: SIMD8<UInt32>.self)
                .== UnsafeRawPointer(before + first).loadUnaligned(as: SIMD8<UInt32>.self)) {
            first += lanes
        }
        while first < count, now[first] == before[first] { first += 1 }
        guard first < count else { return nil }
        var end = count
        while end - lanes > first,
              all(UnsafeRawPointer(now + end - lanes).loadUnaligned(as: SIMD8<UInt32>.self)
                .== UnsafeRawPointer(before + end - lanes).loadUnaligned(as: SIMD8<UInt32>.self)) {
            end -= lanes
        }
        while now[end - 1] == before[end - 1] { end -= 1 }
        return first..<end
    }

    /// Becomes `other`, a grid of the same size, cell by cell where they differ, and calls `changed`
    /// with each row that did and its columns from the first changed cell to the last: as a terminal
    /// that shows this grid is brought to show `other`. Copies of one grid compare only where either
    /// drew, and this grid then compares as `other` does.
    package mutating func take(_ other: TextGrid, changed: (_ row: Int, _ columns: Range<Int>) -> Void) {
        precondition(width == other.width && height == other.height, "grids of different sizes")
        let width = self.width, overOneGrid = isCopy(ofTheSameGridAs: other)
        if !cells.isEmpty {
            cells.withUnsafeMutableBufferPointer { before in
                other.cells.withUnsafeBufferPointer { now in
                    drawn.withUnsafeMutableBufferPointer { drawn in
                        other.drawn.withUnsafeBufferPointer { drawnNow in
                            for row in drawn.indices {
                                var start = 0, end = width
                                if overOneGrid {
                                    start = min(drawn[row].start, drawnNow[row].start)
                                    end = max(drawn[row].end, drawnNow[row].end)
                                }
                                drawn[row] = drawnNow[row]
                                guard start < end else { continue }
                                let first = row * width + start
                                guard let span = Self.changedSpan(now.baseAddress! + first, before.baseAddress! + first,
                                                                  count: end - start) else { continue }
                                (before.baseAddress! + first + span.lowerBound).update(from: now.baseAddress! + first + span.lowerBound,
                                                                                       count: span.count)
                                changed(row, (start + span.lowerBound)..<(start + span.upperBound))
                            }
                        }
                    }
                }
            }
        }
        backdrop = other.backdrop
    }

    /// Blanks every cell.
    package mutating func clear() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: Self.blank) }
        backdrop = []
        mayBeInverted = false
    }

    /// Puts `character` at column `x`, row `y`; outside the grid it is dropped.
    package mutating func put(_ character: Unicode.Scalar, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        cells[y * width + x] = character.value
        drawn[y].add(x, x + 1)
    }

    /// Puts `character` in columns `x` of row `y`, clipped to the grid.
    package mutating func fill(_ character: Unicode.Scalar, x: ClosedRange<Int>, y: Int) {
        let first = max(x.lowerBound, 0), end = min(x.upperBound + 1, width)
        guard y >= 0, y < height, first < end else { return }
        let row = y * width
        cells.withUnsafeMutableBufferPointer { $0[(row + first)..<(row + end)].update(repeating: character.value) }
        drawn[y].add(first, end)
    }

    /// Writes `text` from column `x` of row `y`, a scalar a cell, clipped to the grid.
    package mutating func write(_ text: String, x: Int, y: Int) {
        guard y >= 0, y < height else { return }
        let width = self.width, row = y * width
        var end = x
        cells.withUnsafeMutableBufferPointer { cells in
            // ASCII up to the edge (the status line, every word): a byte a cell, no scalar decoded.
            let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
                let last = max(0, min(bytes.count, width - x))  // the bytes up to the right edge
                var any: UInt8 = 0
                for index in 0..<last { any |= bytes[index] }
                guard any < 0x80 else { return false }
                for index in min(max(0, -x), last)..<last { cells[row + x + index] = UInt32(bytes[index]) }
                end = x + last
                return true
            }
            guard ascii != true else { return }
            for scalar in text.unicodeScalars {
                if end >= width { break }
                if end >= 0 { cells[row + end] = scalar.value }
                end += 1
            }
        }
        if max(x, 0) < min(end, width) { drawn[y].add(max(x, 0), min(end, width)) }
    }

    /// Sets one braille dot: dot column `x` (two a cell), dot row `y` (four a
    /// cell). A cell holding anything but braille becomes a braille cell: what
    /// is drawn in dots is in front of what was drawn before.
    package mutating func dot(x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width * 2, y < height * 4 else { return }
        dots(Self.brailleBit(x: x % 2, y: y % 4), x: x / 2, y: y / 4)
    }

    /// Sets the braille dots `bits` (`brailleBit`s) of the cell at column `x`, row `y`, as `dot`
    /// does one at a time: a line of dots is set a cell at a time. No bits, no change.
    package mutating func dots(_ bits: UInt32, x: Int, y: Int) {
        guard bits != 0, x >= 0, y >= 0, x < width, y < height else { return }
        let index = y * width + x
        cells.withUnsafeMutableBufferPointer { cells in
            cells[index] = Self.braille.contains(cells[index]) ? cells[index] | bits : Self.braille.lowerBound | bits
        }
        drawn[y].add(x, x + 1)
    }

    /// A cell's bit for reverse video (`ESC[7m`, `--flash`): above every Unicode scalar value.
    package static let inverse: UInt32 = 1 << 31

    /// Shows `rows` in reverse video, every cell of them, drawn or blank.
    package mutating func invert(rows: Range<Int>) {
        let rows = rows.clamped(to: 0..<height)
        guard !rows.isEmpty else { return }
        let width = self.width
        cells.withUnsafeMutableBufferPointer { cells in
            for index in (rows.lowerBound * width)..<(rows.upperBound * width) { cells[index] |= Self.inverse }
        }
        for row in rows { drawn[row].add(0, width) }
        mayBeInverted = true
    }

    /// Whether the cell at column `x`, row `y` is shown in reverse video.
    package func isInverted(x: Int, y: Int) -> Bool { cells[y * width + x] & Self.inverse != 0 }

    package func character(x: Int, y: Int) -> Unicode.Scalar { Unicode.Scalar(cells[y * width + x] & ~Self.inverse) ?? " " }

    /// Row `y` as text.
    package func line(_ y: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for value in cells[(y * width)..<((y + 1) * width)] { scalars.append(Unicode.Scalar(value & ~Self.inverse) ?? " ") }
        return String(scalars)
    }

    /// Every row, each without trailing spaces, joined by newlines.
    package var text: String {
        (0..<height).map { String(line($0).reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
