import Glibc

/// Where a render will write, checked before anything is written: an existing
/// file that is read-only is kept unless forced, and a file larger than the
/// free space of its disk is refused at once instead of failing hours later.
struct OutputTarget {
    let path: String

    /// The directory the file goes in.
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Refuses to replace a read-only file (no write permission bit, as `ls -l`
    /// shows it, even for root) unless `force`, as `cp -i` and `mv -i` users expect.
    func checkReplaceable(force: Bool) throws(RenderError) {
        var status = stat()
        guard !force, stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        if status.st_mode & 0o222 == 0 || access(path, W_OK) != 0 {
            throw RenderError(.cannotCreate, "'\(path)' is read-only: use --force to replace it")
        }
    }

    /// Refuses a file of `bytes` bytes that its disk cannot hold (`statvfs`).
    func checkRoom(for bytes: Int64) throws(RenderError) {
        var disk = statvfs()
        guard statvfs(directory, &disk) == 0 else { return }
        let room = UInt64(disk.f_bavail).multipliedReportingOverflow(by: UInt64(disk.f_frsize))
        let free = room.overflow ? Int64.max : Int64(clamping: room.partialValue)
        if bytes > free {
            throw RenderError(.cannotCreate, "'\(path)' would take \(ByteCount(bytes)) but its disk has \(ByteCount(free)) free")
        }
    }
}
