import Glibc
import SystemPackage

/// Where a file will be written, checked before anything is: only a regular
/// file is replaced, a read-only one only when forced, and a file larger than
/// the free space of its disk is refused at once instead of failing hours later.
package struct OutputTarget {
    package let path: String

    package init(path: String) { self.path = path }

    /// The directory the file goes in.
    package var directory: String { FilePath.directory(of: path) }

    /// Refuses what a file renamed into place must not replace: anything but a
    /// regular file (a symbolic link, a FIFO, a device, a directory, a socket,
    /// which `rename` would swap for a file), and a read-only file unless `force`.
    package func checkReplaceable(force: Bool) throws(RenderError) {
        var status = stat()
        // lstat: the name itself, not what a link points to.
        guard lstat(path, &status) == 0 else { return }
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return try checkWritable(force: force)
        case S_IFLNK: throw RenderError(.cannotCreate, "'\(path)' is a symbolic link: name the file itself, or remove the link")
        case S_IFIFO: kind = "a FIFO"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFDIR: kind = "a directory"
        default: kind = "a socket"
        }
        throw RenderError(.cannotCreate, "'\(path)' is \(kind), not a regular file: choose a file name")
    }

    /// Refuses to write over a read-only file (no write permission bit, as `ls -l`
    /// shows it, even for root) unless `force`, as `cp -i` and `mv -i` users expect.
    package func checkWritable(force: Bool) throws(RenderError) {
        var status = stat()
        guard !force, stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        if status.st_mode & 0o222 == 0 || access(path, W_OK) != 0 {
            throw RenderError(.cannotCreate, "'\(path)' is read-only: use --force to replace it")
        }
    }

    /// Refuses a file of `bytes` bytes that its disk cannot hold (`statvfs`).
    package func checkRoom(for bytes: Int64) throws(RenderError) {
        var disk = statvfs()
        guard statvfs(directory, &disk) == 0 else { return }
        let room = UInt64(disk.f_bavail).multipliedReportingOverflow(by: UInt64(disk.f_frsize))
        let free = room.overflow ? Int64.max : Int64(clamping: room.partialValue)
        if bytes > free {
            throw RenderError(.cannotCreate, "'\(path)' would take \(ByteCount(bytes)) but its disk has \(ByteCount(free)) free")
        }
    }
}
