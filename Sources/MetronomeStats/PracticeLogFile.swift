import Glibc
import MetronomeSupport
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
        let each = { (line: UnsafeBufferPointer<UInt8>) -> Bool in
            guard let entry = PracticeLogEntry.parse(line) else { return false }
            entries.append(entry)
            return true
        }
        bytes.withUnsafeBufferPointer { reader.feed($0, each: each) }
        reader.finish(each: each)
        self.init(entries: entries, skipped: reader.skipped)
    }

    /// Reads `path`, keeping its entries; nil when it does not exist, else why it cannot be read.
    package static func read(_ path: String) -> Result<PracticeLogFile, Errno>? {
        var entries: [PracticeLogEntry] = []
        return read(path) { line in
            guard let entry = PracticeLogEntry.parse(line) else { return false }
            entries.append(entry)
            return true
        }.map { $0.map { PracticeLogFile(entries: entries, skipped: $0) } }
    }

    /// Reads `path`, handing each line (without its newline) to `each`, which says whether it was a
    /// practice log line, and says how many lines were not (blank lines aside);
    /// nil when it does not exist, else why it cannot be read.
    package static func read(_ path: String, each: (UnsafeBufferPointer<UInt8>) -> Bool) -> Result<Int, Errno>? {
        var sinks: [Void] = [()]
        return read(path, into: &sinks) { _, line in each(line) }
    }

    /// Reads `path` as `read(_:each:)` does, but cut into as many runs of whole lines as there are
    /// `sinks`, each run read on a thread of its own into a sink of its own: the first run into the
    /// first sink, and so on. A file that is not a regular one (a pipe) is read whole into the first.
    package static func read<Sink>(_ path: String, into sinks: inout [Sink],
                                   each: (inout Sink, UnsafeBufferPointer<UInt8>) -> Bool) -> Result<Int, Errno>? {
        precondition(!sinks.isEmpty, "no sink to read into")
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? nil : .failure(Errno(rawValue: errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Errno(rawValue: errno)) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { return .failure(.isDirectory) }
        guard (status.st_mode & S_IFMT) == S_IFREG, sinks.count > 1 else {
            return sinks.withUnsafeMutableBufferPointer { sinks in
                readRun(descriptor, from: nil, to: nil) { each(&sinks[0], $0) }
            }
        }
        // Each run starts where a line does, at or after its share of the bytes; the last goes on to the end.
        let size = Int(status.st_size)
        var starts = [0]
        for part in 1..<sinks.count {
            switch lineStart(descriptor, atOrAfter: max(size / sinks.count * part, starts[part - 1]), size: size) {
            case .success(let start): starts.append(start)
            case .failure(let error): return .failure(error)
            }
        }
        var results = [Result<Int, Errno>?](repeating: nil, count: sinks.count)
        withoutActuallyEscaping(each) { each in
            sinks.withUnsafeMutableBufferPointer { sinkBuffer in
                results.withUnsafeMutableBufferPointer { resultBuffer in
                    let sinks = sinkBuffer, results = resultBuffer
                    let threads = (1..<sinks.count).map { part in
                        let end = part + 1 < starts.count ? starts[part + 1] : nil
                        let run = { results[part] = readRun(descriptor, from: starts[part], to: end) { each(&sinks[part], $0) } }
                        let thread = NamedThread.start(named: "log reader", run)
                        if thread == nil { run() }
                        return thread
                    }
                    results[0] = readRun(descriptor, from: 0, to: starts[1]) { each(&sinks[0], $0) }
                    for case let thread? in threads { pthread_join(thread, nil) }
                }
            }
        }
        var skipped = 0
        for case let result? in results {
            switch result {
            case .success(let count): skipped += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(skipped)
    }

    /// The bytes from `start` to `end` (nil: from where the descriptor is, to its end), read with
    /// `pread` into a buffer of their own and cut into lines.
    private static func readRun(_ descriptor: Int32, from start: Int?, to end: Int?,
                                each: (UnsafeBufferPointer<UInt8>) -> Bool) -> Result<Int, Errno> {
        var reader = LineSplitter()
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        var offset = start ?? 0
        while end.map({ offset < $0 }) ?? true {
            let wanted = min(chunk.count, end.map { $0 - offset } ?? chunk.count)
            let count = start == nil ? Glibc.read(descriptor, chunk.baseAddress, wanted)
                                     : pread(descriptor, chunk.baseAddress, wanted, off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(rawValue: errno))
            }
            if count == 0 { break }
            offset += count
            reader.feed(UnsafeBufferPointer(rebasing: chunk[..<count]), each: each)
        }
        reader.finish(each: each)
        return .success(reader.skipped)
    }

    /// Where the first line that starts at or after `offset` starts: after the newline at or after
    /// `offset - 1`, or `size` when there is none.
    private static func lineStart(_ descriptor: Int32, atOrAfter offset: Int, size: Int) -> Result<Int, Errno> {
        guard offset > 0 else { return .success(0) }
        var window = [UInt8](repeating: 0, count: 1 << 16)
        var position = offset - 1
        while position < size {
            let count = window.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(position)) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(rawValue: errno))
            }
            if count == 0 { break }
            if let newline = window[..<count].firstIndex(of: 0x0A) { return .success(position + newline + 1) }
            position += count
        }
        return .success(size)
    }
}

/// Cuts bytes into lines across chunks and hands each on; counts those that were not log lines.
private struct LineSplitter {
    var skipped = 0
    private var partial: [UInt8] = []

    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, each: (UnsafeBufferPointer<UInt8>) -> Bool) {
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
    mutating func finish(each: (UnsafeBufferPointer<UInt8>) -> Bool) {
        guard !partial.isEmpty else { return }
        let whole = partial
        partial.removeAll()
        whole.withUnsafeBufferPointer { line($0, each: each) }
    }

    private mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, each: (UnsafeBufferPointer<UInt8>) -> Bool) {
        // Blank lines are no lines, and no log lines either.
        if !each(bytes), bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) { skipped += 1 }
    }
}
