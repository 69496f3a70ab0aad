import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The stall watch on reads shaped like those through ALSA's jack plugin
/// (measured there): one read a JACK cycle of 1024 frames, taken just after
/// the cycle, so the heard frame sits a few frames below the device's line.
@Suite struct StallWatchTests {
    let rate = SampleRate.standard
    let cycle: Int64 = 1024
    /// Nanoseconds of `frames` at 48 kHz.
    func nanoseconds(_ frames: Int64) -> Int64 { frames * 1_000_000_000 / 48_000 }

    /// Reads of a device that keeps time: cycle `n` heard at `n·1024` frames,
    /// read `lateness(n)` frames after it; `lost` frames of JACK time skipped
    /// before cycle `stallAt` (the device is heard that much later from then on).
    func reads(cycles: Range<Int64>, stallAt: Int64 = .max, lost: Int64 = 0, start: Int64 = 1_000_000,
               lateness: (Int64) -> Int64 = { $0 % 7 }) -> [(heard: Int64, at: MonotonicInstant)] {
        cycles.map { n in
            let deviceFrame = n * cycle + (n >= stallAt ? lost : 0) + lateness(n)
            return (n * cycle, MonotonicInstant(nanoseconds: start + nanoseconds(deviceFrame)))
        }
    }

    /// What the watch reports over `reads`, skipping the track by each loss as the engine does.
    func lostFrames(_ reads: [(heard: Int64, at: MonotonicInstant)], watch: inout StallWatch) -> [Int64] {
        var skipped: Int64 = 0
        return reads.compactMap { read in
            let lost = watch.observe(taken: read.heard + skipped, at: read.at)
            skipped += lost ?? 0
            return lost
        }
    }

    @Test func aDeviceThatKeepsTimeLosesNothing() {
        var watch = StallWatch(rate: rate, bufferFrames: 2048)
        #expect(watch.threshold == 1024)
        #expect(lostFrames(reads(cycles: 1..<10_000), watch: &watch).isEmpty)
    }

    @Test func aStallIsTheDropOfTheLineSettledByTheNextRead() {
        // 9 cycles skipped; the first read after the stall comes 162 frames late (as measured).
        var watch = StallWatch(rate: rate, bufferFrames: 2048)
        let lost = lostFrames(reads(cycles: 1..<400, stallAt: 120, lost: 9 * cycle) { $0 == 120 ? 162 : $0 % 7 }, watch: &watch)
        // Exact to the spread of the reads' lateness (0–6 frames here), not thrown by the late first read.
        #expect(lost.count == 1)
        #expect(abs((lost.first ?? 0) - 9 * cycle) <= 7, "\(lost)")
    }

    @Test func aSingleLateReadIsNoStall() {
        // The audio thread woke 40 ms late once: the next read is back on the line.
        var watch = StallWatch(rate: rate, bufferFrames: 2048)
        #expect(lostFrames(reads(cycles: 1..<400) { $0 == 150 ? 1920 : 3 }, watch: &watch).isEmpty)
    }

    @Test func aDeviceClockThatDriftsIsNoStallInAnHour() {
        // A device 200 ppm slow against the monotonic clock: 0.7 s an hour, never a stall.
        var watch = StallWatch(rate: rate, bufferFrames: 2048)
        let hour = 3_600 * 48_000 / cycle
        #expect(lostFrames(reads(cycles: 1..<hour) { $0 * cycle / 5_000 + $0 % 5 }, watch: &watch).isEmpty)
    }

    @Test func aDeviceNotYetStartedIsNotWatched() {
        // Nothing heard for a second while the buffer fills, then the device starts.
        var watch = StallWatch(rate: rate, bufferFrames: 2048)
        let waiting = (0..<47).map { n in (heard: Int64(0), at: MonotonicInstant(nanoseconds: 1_000_000 + nanoseconds(n * cycle))) }
        #expect(lostFrames(waiting + reads(cycles: 1..<200, start: 1_000_000 + nanoseconds(47 * cycle)), watch: &watch).isEmpty)
    }

    @Test func afterARestartTheOldLineIsForgotten() {
        var watch = StallWatch(rate: rate, bufferFrames: 2048)
        _ = lostFrames(reads(cycles: 1..<100), watch: &watch)
        // An underrun the engine handled itself: the device restarts half a second later on a new line.
        watch.restart(after: 100 * cycle)
        #expect(lostFrames(reads(cycles: 100..<300, stallAt: 100, lost: 24_000), watch: &watch).isEmpty)
    }

    // A PipeWire graph through its ALSA plugin: one read a 1024-frame quantum,
    // just after the graph took it, a buffer of four quanta.

    @Test func aServerGraphThatMissesACycleLosesAQuantum() {
        // The graph missed one cycle: the stream is taken a quantum later from
        // then on (measured: PipeWire stopped 30 ms). Half the buffer, the card's
        // threshold, would never see it.
        var card = StallWatch(rate: rate, bufferFrames: 4096)
        #expect(lostFrames(reads(cycles: 1..<400, stallAt: 200, lost: cycle), watch: &card).isEmpty)
        var server = StallWatch(rate: rate, quantum: 1024, bufferFrames: 4096)
        #expect(server.threshold == 512 && server.settling == 4096)
        let lost = lostFrames(reads(cycles: 1..<400, stallAt: 200, lost: cycle), watch: &server)
        #expect(lost.count == 1 && abs((lost.first ?? 0) - cycle) <= 7, "\(lost)")
    }

    @Test func aWriterLateForSeveralReadsIsNoServerStall() {
        // A loaded machine wakes the writer 15 ms late three reads in a row (each
        // more than half a quantum below the line); the reads after are on it again.
        var watch = StallWatch(rate: rate, quantum: 1024, bufferFrames: 4096)
        #expect(lostFrames(reads(cycles: 1..<400) { (150..<153).contains($0) ? 720 : $0 % 7 }, watch: &watch).isEmpty)
        // With the card's settling (the threshold, a read later) the same reads would count as a stall.
        var hasty = StallWatch(rate: rate, bufferFrames: 1024)
        #expect(!lostFrames(reads(cycles: 1..<400) { (150..<153).contains($0) ? 720 : $0 % 7 }, watch: &hasty).isEmpty)
    }

    @Test func aServerClockThatDriftsIsNoStallInAnHour() {
        var watch = StallWatch(rate: rate, quantum: 1024, bufferFrames: 4096)
        let hour = 3_600 * 48_000 / cycle
        #expect(lostFrames(reads(cycles: 1..<hour) { $0 * cycle / 5_000 + $0 % 5 }, watch: &watch).isEmpty)
    }
}
