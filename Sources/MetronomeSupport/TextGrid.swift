import Glibc

/// A rectangle of characters (Unicode scalars, one a cell), drawn into by the
/// picture and written to the terminal.
package struct TextGrid: Equatable, Sendable {
    package let width: Int
    package let height: Int
    /// Each cell's Unicode scalar value.
    package private(set) var cells: [UInt32]

    static let blank = UInt32(UInt8(ascii: " "))
    /// Braille patterns: U+2800 plus one bit for each of the 2x4 dots.
    static let braille: ClosedRange<UInt32> = 0x2800...0x28FF
    /// The bit of the dot in column `x` (0, 1) and row `y` (0...3) of a braille
    /// cell: dots 1-2-3 down the left, 4-5-6 down the right, 7 and 8 below.
    static func brailleBit(x: Int, y: Int) -> UInt32 {
        y == 3 ? (x == 0 ? 0x40 : 0x80) : 1 << UInt32(y + 3 * x)
    }

    package init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = [UInt32](repeating: Self.blank, count: self.width * self.height)
    }

    /// Becomes a copy of `other`, a grid of the same size, in place: no allocation.
    package mutating func copy(from other: TextGrid) {
        precondition(width == other.width && height == other.height, "grids of different sizes")
        cells.withUnsafeMutableBufferPointer { target in
            other.cells.withUnsafeBufferPointer { source in _ = target.update(fromContentsOf: source) }
        }
    }

    /// Same size and the same cells, compared as memory.
    package static func == (left: TextGrid, right: TextGrid) -> Bool {
        guard left.width == right.width, left.height == right.height else { return false }
        return left.cells.withUnsafeBytes { a in
            right.cells.withUnsafeBytes { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return true }  // no cells
                return memcmp(first, second, a.count) == 0
            }
        }
    }

    /// Blanks every cell.
    package mutating func clear() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: Self.blank) }
    }

    /// Puts `character` at column `x`, row `y`; outside the grid it is dropped.
    package mutating func put(_ character: Unicode.Scalar, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        cells[y * width + x] = character.value
    }

    /// Writes `text` from column `x` of row `y`, a scalar a cell, clipped to the grid.
    package mutating func write(_ text: String, x: Int, y: Int) {
        guard y >= 0, y < height else { return }
        var column = x
        for scalar in text.unicodeScalars {
            if column >= width { return }
            if column >= 0 { cells[y * width + column] = scalar.value }
            column += 1
        }
    }

    /// Sets one braille dot: dot column `x` (two a cell), dot row `y` (four a
    /// cell). A cell holding anything but braille becomes a braille cell: what
    /// is drawn in dots is in front of what was drawn before.
    package mutating func dot(x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width * 2, y < height * 4 else { return }
        let index = (y / 4) * width + x / 2
        let bit = Self.brailleBit(x: x % 2, y: y % 4)
        cells[index] = Self.braille.contains(cells[index]) ? cells[index] | bit : Self.braille.lowerBound | bit
    }

    package func character(x: Int, y: Int) -> Unicode.Scalar { Unicode.Scalar(cells[y * width + x]) ?? " " }

    /// Row `y` as text.
    package func line(_ y: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for value in cells[(y * width)..<((y + 1) * width)] { scalars.append(Unicode.Scalar(value) ?? " ") }
        return String(scalars)
    }

    /// Every row, each without trailing spaces, joined by newlines.
    package var text: String {
        (0..<height).map { String(line($0).reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
