import Glibc

/// A file created under a unique hidden name next to its final path, made
/// durable and renamed into place when complete, and removed otherwise.
final class TemporaryFile {
    let path: String
    let descriptor: Int32
    /// The directory both names are in, for syncing the rename.
    private let directory: String
    private var closed = false
    private var removed = false

    /// The characters the hidden name adds to the file's own: `.` before, `.XXXXXX.part` after.
    static let addedLength = 13

    /// Creates `.NAME.XXXXXX.part` in the directory of `target` with `mkstemps`;
    /// NAME is cut to keep the hidden name within `NAME_MAX` (255 bytes).
    init(beside target: String) throws(RenderError) {
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
            throw RenderError(.cannotCreate, "cannot create '\(target)': \(String(cString: strerror(errno)))")
        }
        // mkstemps makes the file 0600; give it the mode a new file normally gets.
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)
        self.descriptor = descriptor
        path = String(decoding: template.dropLast(), as: UTF8.self)
        directory = directoryBytes.isEmpty ? "." : String(decoding: directoryBytes, as: UTF8.self)
    }

    /// Syncs the finished file to disk, renames it to `target` and syncs the
    /// directory, so the file is there whole after a crash or a power cut.
    func commit(as target: String) throws(RenderError) {
        func failed(_ kind: RenderFailure, _ what: String) -> RenderError {
            let reason = String(cString: strerror(errno))
            remove()
            return RenderError(kind, "cannot \(what) '\(target)': \(reason)")
        }
        guard fsync(descriptor) == 0 else { throw failed(.writeFailed, "write") }
        closed = true
        guard close(descriptor) == 0 else { throw failed(.writeFailed, "write") }
        guard rename(path, target) == 0 else { throw failed(.cannotCreate, "create") }
        removed = true
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            defer { close(directoryDescriptor) }
            guard fsync(directoryDescriptor) == 0 else {
                throw RenderError(.writeFailed, "cannot write '\(target)': \(String(cString: strerror(errno)))")
            }
        }
    }

    func remove() {
        if !closed {
            closed = true
            close(descriptor)
        }
        guard !removed else { return }
        removed = true
        unlink(path)
    }

    deinit { remove() }
}
