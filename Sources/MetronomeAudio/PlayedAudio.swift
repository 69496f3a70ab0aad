import Synchronization

/// What the audio thread played: the mono mix of each block, kept by track
/// frame in a ring, so the practice inspector can take the metronome's own
/// click out of what its input hears.
///
/// The audio thread records without allocating or locking; frames the track
/// skipped read as silence. A reader on another thread copies a range and is
/// told whether it was all there, neither still to come nor written over.
package final class PlayedAudio: @unchecked Sendable {
    /// Frames kept, a power of two.
    package let capacity: Int
    /// Each frame's sample as its bit pattern, stored and loaded relaxed: the counters order them.
    private let samples: UnsafeMutablePointer<Atomic<UInt32>>
    /// The track frame after the last one recorded, published once its samples are in.
    private let end = Atomic<Int64>(0)
    /// The track frame after the last one being recorded, announced before its samples go in
    /// (they write over the frames `capacity` before them): a seqlock's two counts.
    private let claimed = Atomic<Int64>(0)

    /// Keeps at least `frames` frames (rounded up to a power of two).
    package init(frames: Int) {
        var capacity = 1
        while capacity < max(frames, 1) { capacity <<= 1 }
        self.capacity = capacity
        samples = .allocate(capacity: capacity)
        for index in 0..<capacity { (samples + index).initialize(to: Atomic<UInt32>(0)) }
    }

    deinit {
        samples.deinitialize(count: capacity)
        samples.deallocate()
    }

    /// Audio thread: `block[0..<count]` was played from track frame `frame` on.
    package func record(_ block: UnsafePointer<Float>, count: Int, at frame: Int64) {
        record(count: count, at: frame) { block[$0] }
    }

    /// Audio thread: `voices[0..<count]`, summed, was played from track frame `frame` on.
    package func record(summing voices: VoiceBuffers, count: Int, at frame: Int64) {
        record(count: count, at: frame) { voices.sum(at: $0) }
    }

    @inline(__always)
    private func record(count: Int, at frame: Int64, sample: (Int) -> Float) {
        let recorded = end.load(ordering: .relaxed)
        claimed.store(frame + Int64(count), ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        // A skip forward: the frames in between were never played.
        if frame > recorded {
            var at = frame - min(frame - recorded, Int64(capacity))
            while at < frame {
                samples[index(at)].store(0, ordering: .relaxed)
                at += 1
            }
        }
        for offset in 0..<count { samples[index(frame + Int64(offset))].store(sample(offset).bitPattern, ordering: .relaxed) }
        end.store(frame + Int64(count), ordering: .releasing)
    }

    /// The track frame after the last one recorded.
    package var recordedEnd: Int64 { end.load(ordering: .acquiring) }

    /// Copies track frames `frame..<frame + count` into `output`; frames before
    /// the track's start are silence. False when some of them are not recorded
    /// yet or were written over while copying (`output` is then not to be used).
    package func copy(from frame: Int64, count: Int, into output: UnsafeMutablePointer<Float>) -> Bool {
        let before = end.load(ordering: .acquiring)
        guard frame + Int64(count) <= before, frame >= before - Int64(capacity) else { return false }
        for offset in 0..<count {
            let at = frame + Int64(offset)
            output[offset] = at < 0 ? 0 : Float(bitPattern: samples[index(at)].load(ordering: .relaxed))
        }
        // Whatever is being recorded since may have written over the start of the range.
        atomicMemoryFence(ordering: .acquiring)
        return frame >= claimed.load(ordering: .relaxed) - Int64(capacity)
    }

    @inline(__always)
    private func index(_ frame: Int64) -> Int { Int(frame & Int64(capacity - 1)) }
}
