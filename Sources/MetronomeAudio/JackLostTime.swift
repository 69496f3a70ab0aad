import MetronomeSupport
import MetronomeTiming

/// Time a JACK server lost between two cycles, which the track skips.
///
/// Two ways: JACK's frame time jumped past the last cycle's frames (cycles
/// skipped), or real time went on while the frame time did not (jackd itself
/// stopped: its frame time counts cycles, and its cycle times are a filter's
/// estimate that lags a stall by seconds). Real time is when each cycle ran
/// on our clock, against the frames counted since: a cycle that ran late
/// while the server kept its schedule is no loss, so only a lead of more than
/// a period over the earliest run so far is time lost. PipeWire's JACK runs
/// the cycles it missed in a burst until its frame time has caught up with
/// real time: there the frame time's jumps are lost, and so is each cycle run
/// after its own end (`isLost`), whose output can reach the sink a cycle late
/// (traced in BENCHMARKS.md). Nothing allocated.
struct JackLostTime {
    /// Whether the server's frame time catches up with real time after a stall (PipeWire's).
    let catchesUp: Bool

    init(catchesUp: Bool) {
        self.catchesUp = catchesUp
    }
    /// Frame times counted from the first cycle, unwrapped.
    private var frames: Int64 = 0
    private var lastFirstFrame: UInt32?
    private var lastFrames: Int64 = 0
    /// The least of (when a cycle ran − its frames' duration since the first): its schedule.
    private var schedule: Int64 = .max

    /// Whether `cycle` itself is lost: on PipeWire's JACK, run after its end
    /// (jackd's cycle times lag its own stalls, while its callbacks keep time).
    func isLost(_ cycle: JackCycle) -> Bool { catchesUp && cycle.ranLate }

    /// The frames lost before `cycle`, at `rate`.
    mutating func lost(before cycle: JackCycle, rate: Int64) -> Int64 {
        defer {
            lastFirstFrame = cycle.firstFrame
            lastFrames = Int64(cycle.frames)
        }
        var skipped: Int64 = 0
        if let lastFirstFrame {
            // Signed: a frame time that went back (a server restarting its count) loses nothing.
            let moved = max(0, Int64(Int32(bitPattern: cycle.firstFrame &- lastFirstFrame)))
            frames += moved
            if (moved - lastFrames) * 2 > lastFrames { skipped = moved - lastFrames }
        }
        guard !catchesUp else { return skipped }
        let ran = cycle.wokeAt.nanoseconds - FrameTime.nanoseconds(inFrames: frames, at: rate)
        schedule = min(schedule, ran)
        let ahead = ran - schedule
        guard lastFirstFrame != nil, ahead > FrameTime.nanoseconds(inFrames: lastFrames, at: rate) else { return skipped }
        // To the nearest frame; from here the schedule is the new one.
        schedule = ran
        return max(skipped, FrameTime.frames(inNanoseconds: ahead + 500_000_000 / rate, at: rate))
    }
}
