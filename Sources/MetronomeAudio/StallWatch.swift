import MetronomeSupport
import MetronomeTiming

/// Finds the time a device lost without reporting an underrun.
///
/// ALSA's jack plugin (its JACK client runs in our process) stops with the
/// process, and PipeWire's plugin when its graph skips cycles; both go on with
/// everything after late and no error. The watch keeps its own copy of
/// `ConsumptionLine`'s line (the highest `taken − rate·time` of the last one
/// to two seconds). A read more than `threshold` below it is suspected and
/// settled `settling` frames of time later: still below, the loss is the best
/// of the last two offsets before less the best one since (few reads against
/// few, so neither side reads closer to the device than the other).
package struct StallWatch: Sendable {
    package let rate: Int64
    /// How far below its line the device must fall to count: half the
    /// engine's buffer, at least 10 ms. A card that reports its position a
    /// period at a time reads up to a period low; a whole buffer late, it
    /// would have underrun instead.
    package let threshold: Int64
    /// How long, in frames of time, a read below the line is watched before
    /// it is settled: the threshold, or a server's whole buffer.
    package let settling: Int64

    // Plain integers and flags, no optionals of tuples: the audio thread runs
    // this, and a debug build would allocate type metadata for those on first use.
    /// The epoch offsets are measured from, once `started`.
    private var epoch: Int64 = 0
    private var started = false
    /// Reads are ignored until the frames taken pass this: the device has not started.
    private var waitingFor: Int64 = 0
    private var bucketStart: Int64 = 0
    private var buckets = 0
    private var remembered = 0
    private var bucketBest: Int64 = 0
    private var previousBucketBest: Int64 = 0
    private var suspecting = false
    private var suspectedLine: Int64 = 0
    private var suspectedBest: Int64 = 0
    private var suspectedAt: Int64 = 0
    /// The last two offsets remembered, newest first.
    private var lastOffset: Int64 = 0
    private var offsetBefore: Int64 = 0
    private var suspectedNear: Int64 = 0

    package init(rate: SampleRate, bufferFrames: Int) {
        self.rate = rate.framesPerSecond
        threshold = max(Int64(bufferFrames) / 2, rate.framesPerSecond / 100)
        settling = threshold
    }

    /// The watch on a sound server's graph that moves audio `quantum` frames at
    /// a time: reads sit at the top of the quanta's staircase, so half a quantum
    /// lost counts (at least 10 ms), settled over `bufferFrames` so that a
    /// thread that woke late a few times is not a stall.
    package init(rate: SampleRate, quantum: Int, bufferFrames: Int) {
        self.rate = rate.framesPerSecond
        threshold = max(Int64(quantum) / 2, rate.framesPerSecond / 100)
        settling = max(threshold, Int64(bufferFrames))
    }

    /// Forgets the line, as after an underrun the engine already handled;
    /// watching starts again once the frames taken pass `frame`.
    package mutating func restart(after frame: Int64) {
        waitingFor = frame
        buckets = 0
        remembered = 0
        suspecting = false
    }

    /// Takes a status read; returns the frames the device lost when a stall is settled.
    package mutating func observe(taken: Int64, at instant: MonotonicInstant) -> Int64? {
        guard taken > waitingFor else { return nil }
        let time = instant.nanoseconds
        if !started {
            epoch = time
            started = true
        }
        let offset = taken - frames(inNanoseconds: time - epoch)

        if suspecting {
            suspectedBest = max(suspectedBest, offset)
            guard frames(inNanoseconds: time - suspectedAt) >= settling else { return nil }
            suspecting = false
            // The engine skips the lost frames, which puts the frames taken
            // back on the line: it stays as it was.
            if suspectedLine - suspectedBest > threshold { return suspectedNear - suspectedBest }
            remember(suspectedBest, at: time)
            return nil
        }
        if buckets > 0 {
            let line = buckets > 1 ? max(bucketBest, previousBucketBest) : bucketBest
            if offset < line - threshold {
                suspecting = true
                suspectedLine = line
                suspectedNear = remembered > 1 ? max(lastOffset, offsetBefore) : lastOffset
                suspectedBest = offset
                suspectedAt = time
                return nil
            }
        }
        remember(offset, at: time)
        return nil
    }

    private mutating func remember(_ offset: Int64, at time: Int64) {
        offsetBefore = lastOffset
        lastOffset = offset
        remembered += 1
        if buckets == 0 || time - bucketStart >= 1_000_000_000 {
            previousBucketBest = bucketBest
            bucketBest = offset
            bucketStart = time
            buckets += 1
        } else {
            bucketBest = max(bucketBest, offset)
        }
    }

    /// Frames in a span of nanoseconds, without overflow for any run length.
    private func frames(inNanoseconds span: Int64) -> Int64 {
        FrameTime.frames(inNanoseconds: span, at: rate)
    }
}
