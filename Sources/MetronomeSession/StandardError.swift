import Glibc

/// Lines for the user on stderr, written with one `write(2)` each.
package enum StandardError {
    /// Writes `metronome: LINE` and a newline, the line's control characters
    /// escaped (see `escaped(_:)`): a value from the command line or a file
    /// can neither break the line in two nor send the terminal escape sequences.
    package static func report(_ line: String, program: String = "metronome") {
        write("\(program): \(escaped(line))\n")
    }

    /// `text` with every control character shown as text: `\n`, `\r`, `\t`,
    /// `\e` for ESC, `\xNN` for the other C0 codes, DEL and the C1 codes
    /// (U+0080 to U+009F); everything else as it is.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{1B}": result += "\\e"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count == 1 ? "0" : "") + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Writes `text` as it is.
    package static func write(_ text: String) {
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
