import Glibc

/// Single keys from a terminal on stdin, without echo or line buffering.
///
/// Saves the original `termios` and restores exactly that on `restore()` and
/// in `deinit`. Ctrl-C, Ctrl-\ and Ctrl-Z still raise their signals (`ISIG`
/// stays on); Ctrl-S, Ctrl-Q and Ctrl-V reach the program as keys (`IXON`
/// and `IEXTEN` off), and Enter comes as CR (`ICRNL` off), as in kilo.
package final class KeyInput {
    package let descriptor = STDIN_FILENO
    private var original = termios()
    private var active = false

    /// nil when stdin is not a terminal.
    package init?() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        guard enter() else { return nil }
    }

    deinit { restore() }

    /// The saved mode with echo, line buffering, flow control and literal-next off.
    static func rawMode(from original: termios) -> termios {
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        return raw
    }

    /// Raw mode again (after `restore()`, as on SIGCONT); false if the terminal refused.
    @discardableResult
    package func enter() -> Bool {
        guard !active else { return true }
        var raw = Self.rawMode(from: original)
        TerminalRescue.enteredRawMode(original)
        tcflush(STDIN_FILENO, TCIFLUSH)
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else {
            TerminalRescue.leftRawMode()
            return false
        }
        active = true
        return true
    }

    /// Puts the terminal back exactly as it was.
    package func restore() {
        guard active else { return }
        active = false
        // Not TCSAFLUSH: that waits until the output is read, for ever on a stalled terminal.
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
        tcflush(STDIN_FILENO, TCIFLUSH)
        TerminalRescue.leftRawMode()
    }

    /// The bytes typed since the last call, at most `limit` (a paste is taken a bounded piece a frame).
    package func read(limit: Int = 4096) -> [UInt8] {
        Self.readPending(descriptor, limit: limit)
    }

    /// Everything waiting on `descriptor` (non-blocking: `VMIN` 0, or `O_NONBLOCK`), up to `limit` bytes.
    static func readPending(_ descriptor: Int32, limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while bytes.count < limit {
            let wanted = min(buffer.count, limit - bytes.count)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return bytes
    }
}
