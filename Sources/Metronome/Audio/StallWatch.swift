/// Finds the time a device lost without reporting an underrun.
///
/// A sound card keeps playing while the process is stopped; when its buffer
/// runs dry it reports an underrun, and the engine skips the time it was
/// silent. Some devices stop with the process instead: ALSA's jack plugin
/// runs its JACK client inside our process, so while we are stopped nothing
/// is taken from the buffer, JACK skips the cycles it could not run, and the
/// plugin resumes as if nothing had happened: everything after is late by
/// the skipped cycles, and no error says so.
///
/// The watch compares the device's clock with the monotonic clock. Each
/// status read gives the frames the device has taken (written less queued)
/// at an instant; `taken − rate·time` is
/// the device's line, constant while the device keeps time (a read taken
/// late relative to the device's own updates only lies below it). The line
/// is the highest such offset over the last one to two seconds (so the two
/// clocks' drift never adds up). A read that falls more than `threshold`
/// below the line is a suspected stall; the first read at least `settling`
/// frames of time later settles it: if the best offset since is still more
/// than `threshold` below the line, the device lost time. How much is the
/// best of the last two offsets before the stall less the best one since:
/// a few reads against a few, so that, unlike the line (the best of a
/// second or two of reads), neither side reads closer to the device than the
/// other and many stalls do not add up an error.
///
/// A sound server whose graph moves audio a quantum at a time (PipeWire
/// through its ALSA plugin) loses time the same way when its own graph skips
/// cycles: stopped or starved for a few quanta, it resumes on the clock and
/// takes our stream's next quantum a cycle or more later, with no underrun
/// reaching us (measured: PipeWire stopped for 30 ms left every later click
/// 1024 frames late). The engine writes as soon as a quantum is taken, so its
/// reads sit at the top of the quanta's staircase: such a watch counts half
/// a quantum as lost time and settles a suspicion only after a whole buffer
/// of time, so a thread that woke late a few times in a row is not a stall.
///
/// The watch takes frames of the track (the engine's timeline), so once the
/// engine has skipped the lost frames they are back on the line. It reads
/// what the device has taken, not its delay report: the pulse plugin's
/// delay wanders by more than the threshold over a few seconds (see
/// `ConsumptionLine`), and a watch on it would find stalls that never were.
public struct StallWatch: Sendable {
    public let rate: Int64
    /// How far below its line the device must fall to count: half the
    /// engine's buffer, at least 10 ms. A card that reports its position a
    /// period at a time reads up to a period low; a whole buffer late, it
    /// would have underrun instead.
    public let threshold: Int64
    /// How long, in frames of time, a read below the line is watched before
    /// it is settled: the threshold, or a server's whole buffer.
    public let settling: Int64

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

    public init(rate: SampleRate, bufferFrames: Int) {
        self.rate = rate.framesPerSecond
        threshold = max(Int64(bufferFrames) / 2, rate.framesPerSecond / 100)
        settling = threshold
    }

    /// The watch on a sound server's graph that moves audio `quantum` frames at
    /// a time: half a quantum lost counts (at least 10 ms), settled over `bufferFrames`.
    public init(rate: SampleRate, quantum: Int, bufferFrames: Int) {
        self.rate = rate.framesPerSecond
        threshold = max(Int64(quantum) / 2, rate.framesPerSecond / 100)
        settling = max(threshold, Int64(bufferFrames))
    }

    /// Forgets the line, as after an underrun the engine already handled;
    /// watching starts again once the frames taken pass `frame`.
    public mutating func restart(after frame: Int64) {
        waitingFor = frame
        buckets = 0
        remembered = 0
        suspecting = false
    }

    /// Takes a status read; returns the frames the device lost when a stall is settled.
    public mutating func observe(taken: Int64, at instant: MonotonicInstant) -> Int64? {
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
