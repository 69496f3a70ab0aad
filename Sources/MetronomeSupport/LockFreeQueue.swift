import Glibc
import Synchronization

/// A single-producer single-consumer ring of plain values, handed between two threads without locks.
///
/// The producer never blocks, allocates or faults a page in: a full ring drops
/// the value, and the ring is written through once when made, so it is resident
/// before the audio thread touches it (and the process does not grow until the
/// ring first wraps).
package final class LockFreeQueue<Element: BitwiseCopyable>: @unchecked Sendable {
    private let capacity: Int
    private let storage: UnsafeMutablePointer<Element>
    private let head = Atomic<Int>(0)  // next to write, producer only
    private let tail = Atomic<Int>(0)  // next to read, consumer only

    package init(capacity: Int = 4096) {
        self.capacity = max(capacity, 2)
        storage = .allocate(capacity: self.capacity)
        memset(storage, 0, self.capacity * MemoryLayout<Element>.stride)
    }

    /// The ring's memory, for tests that check it is resident.
    var ring: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage, count: capacity * MemoryLayout<Element>.stride)
    }

    deinit { storage.deallocate() }

    /// Producer: appends `value`, or drops it when the ring is full.
    @inline(__always)
    package func push(_ value: Element) {
        _ = tryPush(value)
    }

    /// Producer: appends `value` and returns true, or returns false when the ring is full.
    @inline(__always)
    package func tryPush(_ value: Element) -> Bool {
        let write = head.load(ordering: .relaxed)
        let next = (write + 1) % capacity
        guard next != tail.load(ordering: .acquiring) else { return false }
        (storage + write).initialize(to: value)
        head.store(next, ordering: .releasing)
        return true
    }

    /// Consumer: the oldest value without taking it, or nil when the ring is empty.
    @inline(__always)
    package func peek() -> Element? {
        let read = tail.load(ordering: .relaxed)
        guard read != head.load(ordering: .acquiring) else { return nil }
        return storage[read]
    }

    /// Consumer: the oldest value, or nil when the ring is empty. Never allocates.
    @inline(__always)
    package func pop() -> Element? {
        let read = tail.load(ordering: .relaxed)
        guard read != head.load(ordering: .acquiring) else { return nil }
        let value = storage[read]
        tail.store((read + 1) % capacity, ordering: .releasing)
        return value
    }

    /// Consumer: every value pushed since the last drain, oldest first.
    package func drain() -> [Element] {
        var drained: [Element] = []
        while let value = pop() { drained.append(value) }
        return drained
    }
}
