import Glibc

/// A file created under a unique hidden name next to its final path, renamed
/// into place when complete and removed otherwise.
final class TemporaryFile {
    let path: String
    let descriptor: Int32
    private var removed = false

    /// Creates `.NAME.XXXXXX.part` in the directory of `target` with `mkstemps`.
    init(beside target: String) throws(MetronomeError) {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(directory).\(name).XXXXXX.part".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
        guard descriptor >= 0 else {
            throw MetronomeError(.cannotCreate, "cannot create '\(target)': \(String(cString: strerror(errno)))")
        }
        // mkstemps makes the file 0600; give it the mode a new file normally gets.
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)
        self.descriptor = descriptor
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Renames the finished file to `target`.
    func commit(as target: String) throws(MetronomeError) {
        guard rename(path, target) == 0 else {
            let reason = String(cString: strerror(errno))
            remove()
            throw MetronomeError(.cannotCreate, "cannot create '\(target)': \(reason)")
        }
        removed = true
    }

    func remove() {
        guard !removed else { return }
        removed = true
        unlink(path)
    }

    deinit { remove() }
}
