import Glibc

/// Reading an input file whole (a tempo map, a piped sound), so that nothing
/// a user names can hang the program.
///
/// The file is opened without blocking: a FIFO with no writer opens at once.
/// A regular file is read as it is. A pipe, a FIFO or a device is read as its
/// data comes, giving up after `idleLimit` seconds with nothing new, and a
/// stopping signal (blocked in the main thread, so it would never interrupt a
/// read) ends the program while it waits. A terminal, a directory and other
/// kinds of file are refused.
enum FileContents {
    struct ReadError: Error {
        let message: String
    }

    /// The largest tempo map read: ten thousand long lines and more.
    static let limit = 16 << 20
    /// Seconds a pipe or FIFO may stay silent before the read gives up.
    static let idleLimit = 10

    /// What each stream (a pipe, a FIFO, `-`) gave when first read: it cannot
    /// be read twice, and the options are checked before the run as well as in it.
    nonisolated(unsafe) private static var streams: [String: Result<[UInt8], ReadError>] = [:]

    /// The bytes of `path` (`-` is standard input), at most `limit` of them; a stream is read once.
    static func read(_ path: String, limit: Int = Self.limit) throws(ReadError) -> [UInt8] {
        if let earlier = streams[path] { return try earlier.get() }
        guard isStream(path) else { return try readOnce(path, limit: limit) }
        let result = Result { () throws(ReadError) in try readOnce(path, limit: limit) }
        streams[path] = result
        return try result.get()
    }

    private static func readOnce(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        let standardInput = path == "-"
        let descriptor = standardInput ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(message: String(cString: strerror(errno))) }
        defer { if !standardInput { close(descriptor) } }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ReadError(message: String(cString: strerror(errno))) }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return try readAll(descriptor, limit: limit, waiting: false)
        case S_IFIFO, S_IFSOCK:
            return try readAll(descriptor, limit: limit, waiting: true)
        case S_IFCHR:
            guard isatty(descriptor) == 0 else { throw ReadError(message: "it is a terminal: redirect a file into it instead") }
            return try readAll(descriptor, limit: limit, waiting: true)
        case S_IFDIR:
            throw ReadError(message: "it is a directory")
        default:
            throw ReadError(message: "it is not a file, a pipe or a FIFO")
        }
    }

    /// Whether `path` names something that cannot be read twice or sought in (a pipe, a FIFO, a device, `-`).
    static func isStream(_ path: String) -> Bool {
        if path == "-" { return true }
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return status.st_mode & S_IFMT != S_IFREG && status.st_mode & S_IFMT != S_IFDIR
    }

    private static func readAll(_ descriptor: Int32, limit: Int, waiting: Bool) throws(ReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var idleMilliseconds = 0
        while true {
            if waiting {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, 100)
                if polled == 0 || (polled < 0 && errno == EINTR) {
                    TerminationSignals.endIfAStopIsPending()
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
                throw ReadError(message: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            idleMilliseconds = 0
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { throw ReadError(message: "larger than \(limit >> 20) MB") }
        }
    }
}
