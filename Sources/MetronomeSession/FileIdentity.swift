import Glibc
import SystemPackage

/// Questions about file names given on the command line.
enum FileIdentity {
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
        let name = FilePath(path).lastComponent?.string ?? path
        guard let real = realpath(FilePath.directory(of: path), nil) else { return path }
        defer { free(real) }
        return FilePath(String(cString: real)).appending(name).string
    }
}
