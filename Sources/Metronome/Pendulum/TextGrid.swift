/// A rectangle of ASCII characters, drawn into by the picture and written to the terminal.
public struct TextGrid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [UInt8]

    public init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = [UInt8](repeating: UInt8(ascii: " "), count: self.width * self.height)
    }

    /// Blanks every cell.
    public mutating func clear() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: UInt8(ascii: " ")) }
    }

    /// Puts `character` at column `x`, row `y`; outside the grid it is dropped.
    public mutating func put(_ character: UInt8, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        cells[y * width + x] = character
    }

    /// Writes `text` from column `x` of row `y`, clipped to the grid.
    public mutating func write(_ text: String, x: Int, y: Int) {
        for (offset, byte) in text.utf8.enumerated() { put(byte, x: x + offset, y: y) }
    }

    public func character(x: Int, y: Int) -> UInt8 { cells[y * width + x] }

    /// Row `y` as text.
    public func line(_ y: Int) -> String {
        String(decoding: cells[(y * width)..<((y + 1) * width)], as: UTF8.self)
    }

    /// Every row, each without trailing spaces, joined by newlines.
    public var text: String {
        (0..<height).map { String(line($0).reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
