import Glibc
import MetronomeSupport

/// The terminal as a full-screen picture: alternate screen, hidden cursor,
/// raw input; restored exactly on `leave()` (and in `deinit`).
///
/// Each frame is one `write(2)` holding only the changed span of each row, so
/// nothing flickers.
package final class TerminalScreen {
    private let keys: KeyInput
    /// What the terminal shows now (empty: nothing known), kept in place frame to frame.
    private var shown = TextGrid(width: 0, height: 0)
    private var active = true
    /// Given back for a stop (Ctrl-Z) and not taken again: nothing is drawn, and `leave` has nothing to restore.
    private var suspended = false
    private var buffer: [UInt8] = []
    /// Where a frame's bytes are made before they go into `buffer`, room for the largest
    /// frame of the size: a byte is a store, with no check of room or of uniqueness.
    private var scratch = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// The terminal opened again for the frames, non-blocking (an open file description of
    /// our own, so the shell's stays as it was): a frame is one `write`, with no `poll` for
    /// room before it. -1 where it cannot be opened: frames go to stdout, polled first.
    private let frames: Int32

    /// nil unless both stdin and stdout are terminals that understand escape codes.
    package init?() {
        guard isatty(STDOUT_FILENO) == 1, Self.understandsEscapes(term: getenv("TERM").map { String(cString: $0) }),
              let keys = KeyInput() else { return nil }
        self.keys = keys
        frames = open("/proc/self/fd/\(STDOUT_FILENO)", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        enterScreen()
    }

    /// False for no `TERM`, an empty one or `dumb`: such a terminal gets plain lines.
    package static func understandsEscapes(term: String?) -> Bool {
        guard let term, !term.isEmpty else { return false }
        return term != "dumb"
    }

    private func enterScreen() {
        TerminalRescue.enteredScreen()
        Self.emit("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Gives the terminal back for a stop (Ctrl-Z): cursor, normal screen, the saved mode.
    package func suspend() {
        guard active, !suspended else { return }
        suspended = true
        Self.emit(bytes: TerminalRescue.leaveScreen)
        TerminalRescue.leftScreen()
        keys.restore()
    }

    /// Takes the terminal again after `fg` (SIGCONT): raw mode, alternate screen, and the next frame drawn whole.
    package func resume() {
        guard active, suspended else { return }
        suspended = false
        keys.enter()
        enterScreen()
        shown = TextGrid(width: 0, height: 0)
    }

    deinit {
        leave()
        if frames >= 0 { close(frames) }
        scratch.deallocate()
    }

    package var keyInput: KeyInput { keys }

    /// Columns and rows of the terminal (`TIOCGWINSZ`), 80x24 if it will not say.
    package static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Columns of the terminal on stdout (`TIOCGWINSZ`), 80 if it will not say; its rows may be unknown.
    package static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Forgets what is on screen, so the next frame is drawn whole (after a resize).
    package func invalidate() {
        shown = TextGrid(width: 0, height: 0)
        Self.emit("\u{1B}[2J")
    }

    /// Writes the rows of `grid` that differ from the last frame.
    package func draw(_ grid: TextGrid) {
        guard !suspended else { return }
        var buffer = self.buffer
        var shown = self.shown
        self.buffer = []
        self.shown = TextGrid(width: 0, height: 0)
        defer {
            self.buffer = buffer
            self.shown = shown
        }
        let room = Self.room(for: grid)
        if scratch.count < room {
            scratch.deallocate()
            scratch = .allocate(capacity: room)
        }
        let count = Self.frame(grid, over: &shown, into: scratch)
        guard count > 0 else { return }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
        // A terminal that stopped reading loses the frame (the next is drawn whole) rather than the loop.
        let written = frames >= 0 ? BoundedWrite.writeAtOnce(frames, buffer, waitingAtMost: Self.frameWait)
                                  : BoundedWrite.write(STDOUT_FILENO, buffer, waitingAtMost: Self.frameWait)
        if !written { shown = TextGrid(width: 0, height: 0) }
    }

    /// The most bytes a frame of `grid` can take: every row moved to, every cell in four bytes
    /// and a change into or out of reverse video before it, and reverse video ended after each row.
    static func room(for grid: TextGrid) -> Int { grid.height * (cursorMoveRoom + 5) + grid.cells.count * 9 }

    /// `ESC [ row ; column H`, each number at most 20 digits.
    static let cursorMoveRoom = 44

    /// The bytes that turn what the terminal shows (`shown`, empty: nothing known) into `grid`,
    /// into `bytes` (at least `room(for:)` long); returns how many. `shown` becomes `grid`. Only
    /// the changed span of each row is written, and where both are copies of one grid (frames over
    /// one still body), only the columns either drew are compared.
    static func frame(_ grid: TextGrid, over shown: inout TextGrid, into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        precondition(bytes.count >= room(for: grid), "no room for the frame")
        guard var cursor = bytes.baseAddress else {  // no room: a grid with no cells
            shown = grid
            return 0
        }
        if shown.width != grid.width || shown.height != grid.height {
            shown = grid
            for row in 0..<grid.height { putRow(row, columns: 0..<grid.width, of: grid, at: &cursor) }
        } else {
            shown.take(grid) { row, columns in putRow(row, columns: columns, of: grid, at: &cursor) }
        }
        return cursor - bytes.baseAddress!
    }

    /// A move to `columns` of `row` and the cells there; reverse video (`ESC[7m`) where a cell
    /// has it, ended (`ESC[27m`) where it stops and at the span's end, so no other text inherits it.
    static func putRow(_ row: Int, columns: Range<Int>, of grid: TextGrid, at cursor: inout UnsafeMutablePointer<UInt8>) {
        putCursorMove(toRow: row + 1, column: columns.lowerBound + 1, at: &cursor)
        guard grid.mayBeInverted else {
            grid.cells.withUnsafeBufferPointer { cells in
                for index in (row * grid.width + columns.lowerBound)..<(row * grid.width + columns.upperBound) {
                    putUTF8(cells[index], at: &cursor)
                }
            }
            return
        }
        var inverted = false
        grid.cells.withUnsafeBufferPointer { cells in
            for index in (row * grid.width + columns.lowerBound)..<(row * grid.width + columns.upperBound) {
                let cell = cells[index]
                if (cell & TextGrid.inverse != 0) != inverted {
                    inverted.toggle()
                    putReverseVideo(inverted, at: &cursor)
                }
                putUTF8(cell & ~TextGrid.inverse, at: &cursor)
            }
        }
        if inverted { putReverseVideo(false, at: &cursor) }
    }

    /// `ESC [ 7 m` (reverse video on) or `ESC [ 2 7 m` (off).
    static func putReverseVideo(_ on: Bool, at cursor: inout UnsafeMutablePointer<UInt8>) {
        cursor[0] = 0x1B
        cursor[1] = UInt8(ascii: "[")
        cursor += 2
        if !on {
            cursor.pointee = UInt8(ascii: "2")
            cursor += 1
        }
        cursor[0] = UInt8(ascii: "7")
        cursor[1] = UInt8(ascii: "m")
        cursor += 2
    }

    /// `ESC [ row ; column H`.
    static func putCursorMove(toRow row: Int, column: Int, at cursor: inout UnsafeMutablePointer<UInt8>) {
        cursor[0] = 0x1B
        cursor[1] = UInt8(ascii: "[")
        cursor += 2
        putDecimal(row, at: &cursor)
        cursor.pointee = UInt8(ascii: ";")
        cursor += 1
        putDecimal(column, at: &cursor)
        cursor.pointee = UInt8(ascii: "H")
        cursor += 1
    }

    /// A Unicode scalar value in UTF-8.
    static func putUTF8(_ value: UInt32, at cursor: inout UnsafeMutablePointer<UInt8>) {
        switch value {
        case ..<0x80:
            cursor[0] = UInt8(value)
            cursor += 1
        case ..<0x800:
            cursor[0] = 0xC0 | UInt8(value >> 6)
            cursor[1] = 0x80 | UInt8(value & 0x3F)
            cursor += 2
        case ..<0x10000:
            cursor[0] = 0xE0 | UInt8(value >> 12)
            cursor[1] = 0x80 | UInt8(value >> 6 & 0x3F)
            cursor[2] = 0x80 | UInt8(value & 0x3F)
            cursor += 3
        default:
            cursor[0] = 0xF0 | UInt8(value >> 18)
            cursor[1] = 0x80 | UInt8(value >> 12 & 0x3F)
            cursor[2] = 0x80 | UInt8(value >> 6 & 0x3F)
            cursor[3] = 0x80 | UInt8(value & 0x3F)
            cursor += 4
        }
    }

    /// A row or a column in decimal: most often two digits, divided by a constant.
    static func putDecimal(_ value: Int, at cursor: inout UnsafeMutablePointer<UInt8>) {
        let zero = UInt8(ascii: "0")
        if value < 10 {
            cursor[0] = zero + UInt8(value)
            cursor += 1
        } else if value < 100 {
            cursor[0] = zero + UInt8(value / 10)
            cursor[1] = zero + UInt8(value % 10)
            cursor += 2
        } else {
            putDecimal(value / 10, at: &cursor)
            cursor[0] = zero + UInt8(value % 10)
            cursor += 1
        }
    }

    /// Shows the cursor, leaves the alternate screen and restores the terminal mode.
    package func leave() {
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
