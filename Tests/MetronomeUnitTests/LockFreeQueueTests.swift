import Glibc
import Testing
@testable import MetronomeSupport
@testable import MetronomeAudio
import MetronomeTestSupport

@Suite struct LockFreeQueueTests {
    /// The audio thread pushes into the ring; a page it touches for the first
    /// time would fault on the audio thread, and the process would grow until
    /// the ring first wraps (160 kB in an hour's soak). Every page is in
    /// memory from the start.
    @Test func theRingIsResidentBeforeAnythingIsPushed() {
        // Large enough that malloc maps it fresh from the kernel, untouched.
        let queue = ClickLog(capacity: 1 << 14)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = Int(bitPattern: queue.ring.baseAddress!)
        let first = start / page * page
        let pages = (start + queue.ring.count - first + page - 1) / page
        var resident = [UInt8](repeating: 0, count: pages)
        #expect(mincore(UnsafeMutableRawPointer(bitPattern: first), pages * page, &resident) == 0)
        #expect(pages >= 100)
        #expect(resident.filter { $0 & 1 == 0 }.count == 0)
    }

    @Test func valuesComeOutInOrderAndAFullRingDropsTheNewest() {
        let queue = LockFreeQueue<Int>(capacity: 4)
        #expect((0..<5).map { queue.tryPush($0) } == [true, true, true, false, false])
        #expect(queue.drain() == [0, 1, 2])
        queue.push(9)
        #expect(queue.peek() == 9)
        #expect(queue.pop() == 9)
        #expect(queue.pop() == nil)
    }
}
