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
    private var shown: [UInt32] = []
    private var shownWidth = 0
    private var active = true
    /// Given back for a stop (Ctrl-Z) and not taken again: nothing is drawn, and `leave` has nothing to restore.
    private var suspended = false
    private var buffer: [UInt8] = []
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
        shown.removeAll(keepingCapacity: true)
    }

    deinit {
        leave()
        if frames >= 0 { close(frames) }
    }

    package var keyInput: KeyInput { keys }

    /// Columns and rows of the terminal (`TIOCGWINSZ`), 80x24 if it will not say.
    package static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Forgets what is on screen, so the next frame is drawn whole (after a resize).
    package func invalidate() {
        shown.removeAll(keepingCapacity: true)
        Self.emit("\u{1B}[2J")
    }

    /// Writes the rows of `grid` that differ from the last frame.
    package func draw(_ grid: TextGrid) {
        guard !suspended else { return }
        var buffer = self.buffer
        var shown = self.shown
        self.buffer = []
        self.shown = []
        defer {
            self.buffer = buffer
            self.shown = shown
        }
        buffer.removeAll(keepingCapacity: true)
        let whole = shownWidth != grid.width || shown.count != grid.cells.count
        if whole {
            shown = grid.cells
            shownWidth = grid.width
        }
        let width = grid.width
        grid.cells.withUnsafeBufferPointer { now in
            shown.withUnsafeMutableBufferPointer { before in
                for row in 0..<grid.height {
                    let start = row * width
                    var first = 0, last = width - 1
                    if !whole {
                        // Only the changed span of the row.
                        guard let span = Self.changedSpan(now.baseAddress! + start, before.baseAddress! + start, count: width) else { continue }
                        first = span.lowerBound
                        last = span.upperBound - 1
                        (before.baseAddress! + start + first).update(from: now.baseAddress! + start + first, count: last - first + 1)
                    }
                    Self.appendCursorMove(toRow: row + 1, column: first + 1, into: &buffer)
                    for value in now[(start + first)...(start + last)] { Self.appendUTF8(value, into: &buffer) }
                }
            }
        }
        guard !buffer.isEmpty else { return }
        // A terminal that stopped reading loses the frame (the next is drawn whole) rather than the loop.
        let written = frames >= 0 ? BoundedWrite.writeAtOnce(frames, buffer, waitingAtMost: Self.frameWait)
                                  : BoundedWrite.write(STDOUT_FILENO, buffer, waitingAtMost: Self.frameWait)
        if !written { shown.removeAll(keepingCapacity: true) }
    }

    /// The cells from the first that differs to the last that does, nil when
    /// none does: eight at a time from each end, one vector compare each.
    static func changedSpan(_ now: UnsafePointer<UInt32>, _ before: UnsafePointer<UInt32>, count: Int) -> Range<Int>? {
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
