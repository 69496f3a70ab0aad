import MetronomeSupport
import MetronomeTiming

/// The line on which a device takes frames: which frame it had taken at
/// which instant, as straight as the two clocks are.
///
/// `taken − rate·time` is constant while the device keeps time, and a status
/// read late against the device's own updates lies below it, so the line is
/// the highest offset of the last one to two seconds (the clocks' drift never
/// adds up). Taken frames (written less queued), never the delay report: the
/// pulse plugin's delay (into pipewire-pulse) wanders by up to 40 ms while the
/// sound does not move, but the frames it takes are exact, a quantum at a time.
package struct ConsumptionLine: Sendable {
    package let rate: Int64
    /// Offsets taken since the last `reset()`.
    package private(set) var reads = 0
    // Plain integers, no optionals: the audio thread runs this.
    private var bucketStart: Int64 = 0
    private var bucketBest: Int64 = 0
    private var previousBucketBest: Int64 = 0
    private var buckets = 0

    package init(rate: SampleRate) {
        self.rate = rate.framesPerSecond
    }

    /// Takes a read: `taken` frames had left the queue at `instant`. A read
    /// before the device has taken anything says nothing and is ignored.
    package mutating func observe(taken: Int64, at instant: MonotonicInstant) {
        guard taken > 0 else { return }
        let time = instant.nanoseconds
        let offset = taken - FrameTime.frames(inNanoseconds: time, at: rate)
        reads += 1
        if buckets == 0 || time - bucketStart >= 1_000_000_000 {
            previousBucketBest = buckets == 0 ? offset : bucketBest
            bucketBest = offset
            bucketStart = time
            buckets += 1
        } else {
            bucketBest = max(bucketBest, offset)
        }
    }

    /// `taken − rate·time` of the device: the best offset of the last one to two seconds.
    /// Meaningless before the first read.
    package var line: Int64 { buckets > 1 ? max(bucketBest, previousBucketBest) : bucketBest }

    /// Forgets every read, as for a stream that starts again.
    package mutating func reset() {
        reads = 0
        buckets = 0
    }
}
