import Glibc

/// Questions about file names given on the command line.
enum FilePath {
    /// Whether `a` and `b` name the same file: the same device and inode when
    /// both exist, else the same absolute path once the directory's links are resolved.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        if stat(a, &first) == 0, stat(b, &second) == 0 {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return resolved(a) == resolved(b)
    }

    /// `path` with its directory resolved by `realpath` (the file itself may not exist yet).
    static func resolved(_ path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let real = realpath(directory, nil) else { return path }
        defer { free(real) }
        let base = String(cString: real)
        return (base.hasSuffix("/") ? base : base + "/") + name
    }
}
