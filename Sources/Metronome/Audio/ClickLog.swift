import Synchronization

/// The clicks the audio thread started, handed to the main thread without
/// locks: a single-producer single-consumer ring of (click, frame) pairs.
///
/// The audio thread pushes; the main thread drains for the trace and the
/// printed lines. When the ring is full a click is counted as lost rather than
/// blocking the audio thread.
public final class ClickLog: @unchecked Sendable {
    public struct Entry: Equatable, Sendable {
        public let click: Int64
        public let frame: Int64
    }

    private let capacity: Int
    private let entries: UnsafeMutablePointer<Entry>
    private let head = Atomic<Int>(0)  // next to write, producer only
    private let tail = Atomic<Int>(0)  // next to read, consumer only
    private let lostCount = Atomic<Int>(0)

    public init(capacity: Int = 4096) {
        self.capacity = capacity
        entries = .allocate(capacity: capacity)
    }

    deinit { entries.deallocate() }

    /// Producer: records a started click. Never blocks or allocates.
    @inline(__always)
    public func push(click: Int64, frame: Int64) {
        let write = head.load(ordering: .relaxed)
        let next = (write + 1) % capacity
        guard next != tail.load(ordering: .acquiring) else {
            lostCount.add(1, ordering: .relaxed)
            return
        }
        entries[write] = Entry(click: click, frame: frame)
        head.store(next, ordering: .releasing)
    }

    /// Consumer: every entry pushed since the last drain, oldest first.
    public func drain() -> [Entry] {
        var read = tail.load(ordering: .relaxed)
        let end = head.load(ordering: .acquiring)
        var drained: [Entry] = []
        while read != end {
            drained.append(entries[read])
            read = (read + 1) % capacity
        }
        tail.store(read, ordering: .releasing)
        return drained
    }

    /// Clicks that found the ring full.
    public var lost: Int { lostCount.load(ordering: .relaxed) }
}
