import Synchronization
import MetronomeSupport
import MetronomeTiming

/// "Which frame is being heard now", published by the audio thread and read
/// by any other thread without locks.
///
/// The audio thread stores the frame heard at an instant (frames written minus
/// the device delay, with the status timestamp); a reader extrapolates from it
/// to its own instant. A sequence counter makes the pair consistent: readers
/// retry if they raced a write (a seqlock), and the writer never waits.
package final class AudiblePosition: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let frame = Atomic<Int64>(0)
    private let instant = Atomic<Int64>(0)
    private let written = Atomic<Int64>(0)
    package let rate: SampleRate

    package init(rate: SampleRate) {
        self.rate = rate
    }

    /// Audio thread only: `heard` was the frame at the ear at `at`; `written` frames are queued in all.
    package func publish(heard: Int64, at: MonotonicInstant, written: Int64) {
        let next = sequence.load(ordering: .relaxed) &+ 1
        sequence.store(next, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        frame.store(heard, ordering: .relaxed)
        instant.store(at.nanoseconds, ordering: .relaxed)
        self.written.store(written, ordering: .relaxed)
        sequence.store(next &+ 1, ordering: .releasing)
    }

    /// The last published sample: the heard frame, its instant, and the frames written by then.
    package func snapshot() -> (heard: Int64, at: MonotonicInstant, written: Int64) {
        while true {
            let before = sequence.load(ordering: .acquiring)
            let heard = frame.load(ordering: .relaxed)
            let nanos = instant.load(ordering: .relaxed)
            let written = self.written.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            let after = sequence.load(ordering: .relaxed)
            if before == after, before & 1 == 0 {
                return (heard, MonotonicInstant(nanoseconds: nanos), written)
            }
        }
    }

    /// The frame being heard at `now`: the last published one plus the time since,
    /// never past what has been written. Negative before the first frame sounds.
    package func heardFrame(at now: MonotonicInstant) -> Int64 {
        let sample = snapshot()
        let elapsed = max(0, now.nanoseconds - sample.at.nanoseconds)
        let advanced = sample.heard + FrameTime.frames(inNanoseconds: elapsed, at: rate.framesPerSecond)
        return min(advanced, sample.written)
    }
}
