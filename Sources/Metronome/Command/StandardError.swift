import Glibc

/// Lines for the user on stderr, written with one `write(2)` each.
public enum StandardError {
    /// Writes `metronome: LINE` and a newline.
    public static func report(_ line: String, program: String = "metronome") {
        write("\(program): \(line)\n")
    }

    /// Writes `text` as it is.
    public static func write(_ text: String) {
        writeAll(STDERR_FILENO, Array(text.utf8))
    }
}

/// `write(2)` until every byte is out, retrying `EINTR`; gives up on any other error.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 { if errno == EINTR { continue } else { return } }
        offset += written
    }
}
