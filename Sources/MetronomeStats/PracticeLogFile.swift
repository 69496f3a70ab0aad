import Glibc
import SystemPackage

/// The practice log read whole, a chunk at a time: its entries, and the
/// lines that were none (corrupt, cut or foreign), counted and skipped.
package struct PracticeLogFile: Sendable {
    package let entries: [PracticeLogEntry]
    package let skipped: Int

    package init(entries: [PracticeLogEntry], skipped: Int) {
        self.entries = entries
        self.skipped = skipped
    }

    /// The text of a log, line by line.
    package init(bytes: [UInt8]) {
        var entries: [PracticeLogEntry] = []
        var reader = LineSplitter()
        bytes.withUnsafeBufferPointer { reader.feed($0) { entries.append($0) } }
        reader.finish { entries.append($0) }
        self.init(entries: entries, skipped: reader.skipped)
    }

    /// Reads `path`, keeping its entries; nil when it does not exist, else why it cannot be read.
    package static func read(_ path: String) -> Result<PracticeLogFile, Errno>? {
        var entries: [PracticeLogEntry] = []
        return read(path) { entries.append($0) }.map { $0.map { PracticeLogFile(entries: entries, skipped: $0) } }
    }

    /// Reads `path`, handing each entry to `each`, and says how many lines it skipped;
    /// nil when it does not exist, else why it cannot be read.
    package static func read(_ path: String, each: (PracticeLogEntry) -> Void) -> Result<Int, Errno>? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? nil : .failure(Errno(rawValue: errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Errno(rawValue: errno)) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { return .failure(.isDirectory) }
        var reader = LineSplitter()
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        while true {
            let count = Glibc.read(descriptor, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(rawValue: errno))
            }
            if count == 0 { break }
            reader.feed(UnsafeBufferPointer(rebasing: chunk[..<count]), each: each)
        }
        reader.finish(each: each)
        return .success(reader.skipped)
    }
}

/// Cuts bytes into lines across chunks and reads each.
private struct LineSplitter {
    var skipped = 0
    private var partial: [UInt8] = []

    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, each: (PracticeLogEntry) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count, let found = memchr(base + start, 0x0A, bytes.count - start) {
            let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if partial.isEmpty {
                line(UnsafeBufferPointer(rebasing: bytes[start..<newline]), each: each)
            } else {
                partial.append(contentsOf: bytes[start..<newline])
                let whole = partial
                partial.removeAll(keepingCapacity: true)
                whole.withUnsafeBufferPointer { line($0, each: each) }
            }
            start = newline + 1
        }
        partial.append(contentsOf: bytes[start...])
    }

    /// The last line, without its newline.
    mutating func finish(each: (PracticeLogEntry) -> Void) {
        guard !partial.isEmpty else { return }
        let whole = partial
        partial.removeAll()
        whole.withUnsafeBufferPointer { line($0, each: each) }
    }

    private mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, each: (PracticeLogEntry) -> Void) {
        // Blank lines are no lines.
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        if let entry = PracticeLogEntry.parse(bytes) { each(entry) } else { skipped += 1 }
    }
}
