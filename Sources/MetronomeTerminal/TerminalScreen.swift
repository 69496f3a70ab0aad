import Glibc
import MetronomeSupport

/// The terminal as a full-screen picture: alternate screen, hidden cursor,
/// raw input; restored exactly on `leave()` (and in `deinit`).
///
/// Each frame is written with one `write(2)` holding only the rows that
/// changed since the last frame, so nothing flickers.
public final class TerminalScreen {
    private let keys: KeyInput
    /// What the terminal shows now (empty: nothing known), kept in place frame to frame.
    private var shown = TextGrid(width: 0, height: 0)
    private var active = true
    /// Given back for a stop (Ctrl-Z) and not taken again: nothing is drawn, and `leave` has nothing to restore.
    private var suspended = false
    private var buffer: [UInt8] = []
    /// The terminal opened again for the frames, non-blocking (an open file description of
    /// our own, so the shell's stays as it was): a frame is one `write`, with no `poll` for
    /// room before it. -1 where it cannot be opened: frames go to stdout, polled first.
    private let frames: Int32

    /// nil unless both stdin and stdout are terminals that understand escape codes.
    public init?() {
        guard isatty(STDOUT_FILENO) == 1, Self.understandsEscapes(term: getenv("TERM").map { String(cString: $0) }),
              let keys = KeyInput() else { return nil }
        self.keys = keys
        frames = open("/proc/self/fd/\(STDOUT_FILENO)", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        enterScreen()
    }

    /// False for no `TERM`, an empty one or `dumb`: such a terminal gets plain lines.
    public static func understandsEscapes(term: String?) -> Bool {
        guard let term, !term.isEmpty else { return false }
        return term != "dumb"
    }

    private func enterScreen() {
        TerminalRescue.enteredScreen()
        Self.emit("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Gives the terminal back for a stop (Ctrl-Z): cursor, normal screen, the saved mode.
    public func suspend() {
        guard active, !suspended else { return }
        suspended = true
        Self.emit(bytes: TerminalRescue.leaveScreen)
        TerminalRescue.leftScreen()
        keys.restore()
    }

    /// Takes the terminal again after `fg` (SIGCONT): raw mode, alternate screen, and the next frame drawn whole.
    public func resume() {
        guard active, suspended else { return }
        suspended = false
        keys.enter()
        enterScreen()
        shown = TextGrid(width: 0, height: 0)
    }

    deinit {
        leave()
        if frames >= 0 { close(frames) }
    }

    public var keyInput: KeyInput { keys }

    /// Columns and rows of the terminal (`TIOCGWINSZ`), 80x24 if it will not say.
    public static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Forgets what is on screen, so the next frame is drawn whole (after a resize).
    public func invalidate() {
        shown = TextGrid(width: 0, height: 0)
        Self.emit("\u{1B}[2J")
    }

    /// Writes the rows of `grid` that differ from the last frame.
    public func draw(_ grid: TextGrid) {
        guard !suspended else { return }
        var buffer = self.buffer
        var shown = self.shown
        self.buffer = []
        self.shown = TextGrid(width: 0, height: 0)
        defer {
            self.buffer = buffer
            self.shown = shown
        }
        buffer.removeAll(keepingCapacity: true)
        Self.frame(grid, over: &shown, into: &buffer)
        guard !buffer.isEmpty else { return }
        // A terminal that stopped reading loses the frame (the next is drawn whole) rather than the loop.
        let written = frames >= 0 ? BoundedWrite.writeAtOnce(frames, buffer, waitingAtMost: Self.frameWait)
                                  : BoundedWrite.write(STDOUT_FILENO, buffer, waitingAtMost: Self.frameWait)
        if !written { shown = TextGrid(width: 0, height: 0) }
    }

    /// The bytes that turn what the terminal shows (`shown`, empty: nothing known) into `grid`,
    /// appended to `buffer`; `shown` becomes `grid`. Only the changed span of each row is written,
    /// and where both are copies of one grid (frames over one still body), only the columns either
    /// drew are compared.
    static func frame(_ grid: TextGrid, over shown: inout TextGrid, into buffer: inout [UInt8]) {
        if shown.width != grid.width || shown.height != grid.height {
            shown = grid
            for row in 0..<grid.height { appendRow(row, columns: 0..<grid.width, of: grid, into: &buffer) }
        } else {
            shown.take(grid) { row, columns in appendRow(row, columns: columns, of: grid, into: &buffer) }
        }
    }

    /// A move to `columns` of `row` and the cells there.
    static func appendRow(_ row: Int, columns: Range<Int>, of grid: TextGrid, into buffer: inout [UInt8]) {
        appendCursorMove(toRow: row + 1, column: columns.lowerBound + 1, into: &buffer)
        grid.cells.withUnsafeBufferPointer { cells in
            for index in (row * grid.width + columns.lowerBound)..<(row * grid.width + columns.upperBound) {
                appendUTF8(cells[index], into: &buffer)
            }
        }
    }

    /// `ESC [ row ; column H` without building a String.
    static func appendCursorMove(toRow row: Int, column: Int, into buffer: inout [UInt8]) {
        buffer.append(0x1B)
        buffer.append(UInt8(ascii: "["))
        appendDecimal(row, into: &buffer)
        buffer.append(UInt8(ascii: ";"))
        appendDecimal(column, into: &buffer)
        buffer.append(UInt8(ascii: "H"))
    }

    /// A Unicode scalar value in UTF-8.
    static func appendUTF8(_ value: UInt32, into buffer: inout [UInt8]) {
        switch value {
        case ..<0x80:
            buffer.append(UInt8(value))
        case ..<0x800:
            buffer.append(0xC0 | UInt8(value >> 6))
            buffer.append(0x80 | UInt8(value & 0x3F))
        case ..<0x10000:
            buffer.append(0xE0 | UInt8(value >> 12))
            buffer.append(0x80 | UInt8(value >> 6 & 0x3F))
            buffer.append(0x80 | UInt8(value & 0x3F))
        default:
            buffer.append(0xF0 | UInt8(value >> 18))
            buffer.append(0x80 | UInt8(value >> 12 & 0x3F))
            buffer.append(0x80 | UInt8(value >> 6 & 0x3F))
            buffer.append(0x80 | UInt8(value & 0x3F))
        }
    }

    static func appendDecimal(_ value: Int, into buffer: inout [UInt8]) {
        // Rows and columns: one to four digits, most often two.
        let zero = UInt8(ascii: "0")
        var power = 1
        while power <= value / 10 { power *= 10 }
        var rest = value
        while power > 0 {
            buffer.append(zero + UInt8(rest / power))
            rest %= power
            power /= 10
        }
    }

    /// Shows the cursor, leaves the alternate screen and restores the terminal mode.
    public func leave() {
        guard active else { return }
        active = false
        guard !suspended else { return }
        Self.emit(bytes: TerminalRescue.leaveScreen)
        TerminalRescue.leftScreen()
        keys.restore()
    }

    /// How long a frame or a line may wait for room on stdout, in milliseconds.
    static let frameWait: Int32 = 100

    package static func emit(_ text: String) { emit(bytes: Array(text.utf8)) }

    package static func emit(bytes: [UInt8]) { BoundedWrite.write(STDOUT_FILENO, bytes, waitingAtMost: frameWait) }
}
