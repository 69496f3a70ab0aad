import Glibc
import SystemPackage

/// Reads an input file whole (a tempo map, a piped sound); nothing a user names can hang it.
///
/// Opened non-blocking, so a FIFO with no writer opens at once. A pipe, FIFO
/// or device is read as its data comes and given up after `idleLimit` seconds
/// with nothing new; while waiting, `whileWaiting` runs a few times a second
/// (the command ends there on a stopping signal, which is blocked in the main
/// thread and would never interrupt a read). A terminal, a directory and other
/// kinds are refused. A stream can be read only once.
package enum FileContents {
    package struct ReadError: Error {
        package let message: String
    }

    /// The largest tempo map read: ten thousand long lines and more.
    package static let limit = 16 << 20
    /// Seconds a pipe or FIFO may stay silent before the read gives up.
    static let idleLimit = 10

    /// The bytes of `path` (`-` is standard input), at most `limit` of them.
    package static func read(_ path: String, limit: Int = Self.limit, whileWaiting: () -> Void = {}) throws(ReadError) -> [UInt8] {
        let standardInput = path == "-"
        let descriptor = standardInput ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(message: Errno(rawValue: errno).description) }
        defer { if !standardInput { close(descriptor) } }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ReadError(message: Errno(rawValue: errno).description) }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return try readAll(descriptor, limit: limit, waiting: false, whileWaiting: whileWaiting)
        case S_IFIFO, S_IFSOCK:
            return try readAll(descriptor, limit: limit, waiting: true, whileWaiting: whileWaiting)
        case S_IFCHR:
            guard isatty(descriptor) == 0 else { throw ReadError(message: "it is a terminal: redirect a file into it instead") }
            return try readAll(descriptor, limit: limit, waiting: true, whileWaiting: whileWaiting)
        case S_IFDIR:
            throw ReadError(message: "it is a directory")
        default:
            throw ReadError(message: "it is not a file, a pipe or a FIFO")
        }
    }

    /// Whether `path` names something that cannot be read twice or sought in (a pipe, a FIFO, a device, `-`).
    package static func isStream(_ path: String) -> Bool {
        if path == "-" { return true }
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return status.st_mode & S_IFMT != S_IFREG && status.st_mode & S_IFMT != S_IFDIR
    }

    private static func readAll(_ descriptor: Int32, limit: Int, waiting: Bool, whileWaiting: () -> Void) throws(ReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var idleMilliseconds = 0
        while true {
            if waiting {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, 100)
                if polled == 0 || (polled < 0 && errno == EINTR) {
                    whileWaiting()
                    idleMilliseconds += polled == 0 ? 100 : 0
                    guard idleMilliseconds < idleLimit * 1000 else {
                        throw ReadError(message: "nothing arrived for \(idleLimit) s")
                    }
                    continue
                }
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ReadError(message: Errno(rawValue: errno).description)
            }
            if count == 0 { return bytes }
            idleMilliseconds = 0
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { throw ReadError(message: "larger than \(limit >> 20) MB") }
        }
    }
}

extension FilePath {
    /// `mkdir -p`: makes the folder `path` and those above it that are missing;
    /// nil when all are there, else the first that could not be made and why.
    package static func makeDirectories(_ path: String, mode: mode_t) -> (directory: String, error: Errno)? {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, mode) != 0, errno != EEXIST { return (built, Errno(rawValue: errno)) }
        }
        return nil
    }

    /// The directory `path` is in, as `dirname` says it: `.` for a bare name, `/` at the root.
    package static func directory(of path: String) -> String {
        let parent = FilePath(path).removingLastComponent()
        return parent.isEmpty ? "." : parent.string
    }
}
