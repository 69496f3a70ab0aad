import Glibc
import SystemPackage

/// A file created under a unique hidden name next to its final path, made
/// durable and renamed into place when complete, and removed otherwise.
package final class TemporaryFile {
    package let path: String
    package let file: FileDescriptor
    /// The raw descriptor, for libsndfile.
    package var descriptor: Int32 { file.rawValue }
    /// The directory both names are in, for syncing the rename.
    private let directory: FilePath
    private var closed = false
    private var removed = false

    /// The characters the hidden name adds to the file's own: `.` before, `.XXXXXX.part` after.
    package static let addedLength = 13

    /// Creates `.NAME.XXXXXX.part` in the directory of `target` with `mkstemps`;
    /// NAME is cut to keep the hidden name within `NAME_MAX` (255 bytes).
    package init(beside target: String) throws(RenderError) {
        let bytes = Array(target.utf8)
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let directoryBytes = slash.map { Array(bytes[...$0]) } ?? []
        let fullName = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
        // Cut between characters, never inside one.
        var kept = min(fullName.count, Int(NAME_MAX) - Self.addedLength)
        while kept < fullName.count, kept > 0, fullName[kept] & 0xC0 == 0x80 { kept -= 1 }
        let name = Array(fullName[..<kept])
        var template = directoryBytes + [UInt8(ascii: ".")] + name + Array(".XXXXXX.part".utf8)
        template.append(0)
        let descriptor = template.withUnsafeMutableBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { mkstemps($0.baseAddress!, 5) }
        }
        guard descriptor >= 0 else {
            throw RenderError(.cannotCreate, "cannot create '\(target)': \(Errno(rawValue: errno))")
        }
        // mkstemps makes the file 0600; give it the mode a new file normally gets.
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)
        file = FileDescriptor(rawValue: descriptor)
        path = String(decoding: template.dropLast(), as: UTF8.self)
        let parent = FilePath(target).removingLastComponent()
        directory = parent.isEmpty ? "." : parent
    }

    /// Writes all of `bytes`, going on after a short write; a failure names `target`.
    package func write(_ bytes: [UInt8], naming target: String) throws(RenderError) {
        do {
            _ = try file.writeAll(bytes)
        } catch {
            throw RenderError(.writeFailed, "cannot write '\(target)': \(error)")
        }
    }

    /// Syncs the finished file to disk, renames it to `target` and syncs the
    /// directory, so the file is there whole after a crash or a power cut.
    package func commit(as target: String) throws(RenderError) {
        func failed(_ kind: RenderFailure, _ what: String, _ reason: Errno = Errno(rawValue: errno)) -> RenderError {
            remove()
            return RenderError(kind, "cannot \(what) '\(target)': \(reason)")
        }
        guard fsync(file.rawValue) == 0 else { throw failed(.writeFailed, "write") }
        closed = true
        do {
            try file.close()
        } catch {
            throw failed(.writeFailed, "write", (error as? Errno) ?? Errno(rawValue: errno))
        }
        guard rename(path, target) == 0 else { throw failed(.cannotCreate, "create") }
        removed = true
        guard let folder = try? FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec]) else { return }
        defer { try? folder.close() }
        guard fsync(folder.rawValue) == 0 else {
            throw RenderError(.writeFailed, "cannot write '\(target)': \(Errno(rawValue: errno))")
        }
    }

    package func remove() {
        if !closed {
            closed = true
            try? file.close()
        }
        guard !removed else { return }
        removed = true
        unlink(path)
    }

    deinit { remove() }
}
