import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
import MetronomeTestSupport

@Suite struct HeardClockTests {
    let rate = SampleRate.standard

    func instant(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(seconds * 1e9)) }

    @Test func stalePeriodicReportsGiveAStraightLine() {
        // The true position is 48000 * t; reports come every 10 ms but are
        // stale by up to a 1024-frame period (read mid-period).
        var clock = HeardClock(rate: rate)
        var worst = 0.0
        for step in 0..<500 {
            let t = 1.0 + Double(step) * 0.01
            let truth = (t - 1) * 48_000
            let reported = Int64((truth / 1024).rounded(.down) * 1024)  // position at the last period boundary
            let sample = (heard: reported, at: instant(t), written: Int64(truth) + 4_096)
            for frame in 0..<3 {
                let now = t + Double(frame) * 0.0033
                let estimate = Double(clock.heardFrame(at: instant(now), sample: sample))
                if step > 20 { worst = max(worst, abs(estimate - (now - 1) * 48_000)) }
            }
        }
        // Re-anchoring on each report would be off by up to 1024 frames; the line is off by a few.
        #expect(worst < 48)
    }

    @Test func aJumpReanchorsAtOnce() {
        var clock = HeardClock(rate: rate)
        _ = clock.heardFrame(at: instant(1), sample: (0, instant(1), 10_000))
        // An underrun: the timeline skipped 48000 frames ahead.
        let after = clock.heardFrame(at: instant(1.5), sample: (72_000, instant(1.5), 80_000))
        #expect(after == 72_000)
    }

    /// JACK's samples are exact: a port connected after the first cycles adds its latency (2048 frames)
    /// to every sample from then on, and the line follows at once; a device's stale line would not.
    @Test func exactSamplesMoveTheLineDownAtOnce() {
        var exact = HeardClock(rate: rate, exact: true), stale = HeardClock(rate: rate)
        for step in 0..<100 {
            let t = 1.0 + Double(step) * 1024 / 48_000
            let latency: Int64 = step < 10 ? 0 : 2_048
            let sample = (heard: Int64(step) * 1024 - latency, at: instant(t), written: Int64(step) * 1024 + 4_096)
            _ = exact.heardFrame(at: instant(t), sample: sample)
            _ = stale.heardFrame(at: instant(t), sample: sample)
        }
        let last = 1.0 + 99 * 1024 / 48_000.0
        // Within the rounding of the seconds these instants are made from.
        #expect(abs(exact.frame(at: instant(last))! - (99 * 1024 - 2_048)) <= 1)
        let lead = exact.instant(whenHeard: 99 * 1024)!.nanoseconds - instant(last).nanoseconds
        #expect(abs(lead - FrameTime.nanoseconds(inFrames: 2_048, at: 48_000)) <= 2, "\(lead)")
        // The stale line keeps the earlier anchor, decaying 200 ppm: still more than 2000 frames ahead.
        #expect(stale.frame(at: instant(last))! > 99 * 1024 - 48)
    }

    @Test func neverPastWhatWasWritten() {
        var clock = HeardClock(rate: rate)
        #expect(clock.heardFrame(at: instant(3), sample: (0, instant(1), 1_000)) == 1_000)
    }
}
