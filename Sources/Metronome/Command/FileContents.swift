import Glibc

/// Reading a small text file whole (a tempo map), with the C error as a Swift one.
enum FileContents {
    struct ReadError: Error {
        let message: String
    }

    /// The largest file read: a tempo map of ten thousand long lines.
    static let limit = 16 << 20

    static func read(_ path: String) throws(ReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(message: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(message: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { throw ReadError(message: "larger than \(limit >> 20) MB") }
        }
    }
}
