import Glibc

/// Single keys from a terminal on stdin, without echo or line buffering.
///
/// Saves the original `termios` and restores exactly that on `restore()` and
/// in `deinit`. Ctrl-C still raises SIGINT (`ISIG` stays on).
public final class KeyInput {
    public let descriptor = STDIN_FILENO
    private var original = termios()
    private var active = false

    /// nil when stdin is not a terminal.
    public init?() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return nil }
        active = true
    }

    deinit { restore() }

    /// Puts the terminal back exactly as it was.
    public func restore() {
        guard active else { return }
        active = false
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// The bytes typed since the last call.
    public func read() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer[..<count]) : []
    }
}
