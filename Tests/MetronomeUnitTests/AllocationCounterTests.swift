import CAllocationCounter
import Testing
import MetronomeTestSupport

/// The allocation counter must see allocations, or "no allocation" proves nothing.
@Suite struct AllocationCounterTests {
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func counterSeesSwiftAllocations() {
        metronome_counting_begin()
        let array = [Int](repeating: 7, count: Int.random(in: 100...200))
        let counted = metronome_counting_end()
        #expect(array.count >= 100)
        #expect(counted >= 1)
    }

    @Test func counterSeesNothingWhenNothingIsAllocated() {
        var sum = 0
        metronome_counting_begin()
        for value in 0..<1000 { sum &+= value }
        let counted = metronome_counting_end()
        #expect(sum == 499_500)
        #expect(counted == 0)
    }
}
