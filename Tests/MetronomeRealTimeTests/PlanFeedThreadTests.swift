import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The plan reaches the audio thread from a thread of its own: nothing else
/// (no UI loop, no picture) has to run for a map to play on.
@Suite struct PlanFeedThreadTests {
    /// A map of 40 one-beat passages, four of them queued at a time: the
    /// audio thread plays them live with nothing but the feed thread topping
    /// up the queue, and every click lands where the offline render (fed
    /// between blocks) puts it. The feed thread is not real-time: a take in
    /// which a loaded machine kept it from running for 0.3 s is taken again.
    @Test func aMapOfManyShortPassagesPlaysOnWithNoUILoop() throws {
        let rate = SampleRate.standard
        let text = String(repeating: "1 1/4 600\n1 1/4 480\n", count: 20)
        let source = TempoPlan.Source.map(try parseMap(text), first: 0, loops: false)
        let expected = try PlannedRun(source, rate: rate.framesPerSecond)
        let beats = try #require(TempoPlan(source, rate: rate, rhythm: .plain).beats(inBars: nil))
        let impulses = impulseSounds(rate: rate)
        let sounds = ClickSounds(beat: impulses.beat, bell: impulses.bell, subdivision: impulses.beat, polyrhythm: impulses.bell)

        try takes(3, "a map fed by its thread") { _, _ in
            let plan = TempoPlan(source, rate: rate, rhythm: .plain, beats: beats)
            let feeder = PlanFeeder(plan, capacity: 4)  // 0.4 s ahead: starved within a second without feeding
            let track = ClickTrack(plan: plan, feeder: feeder, sounds: sounds, length: .beats(beats))
            let log = ClickLog(capacity: 1 << 12)
            track.clickLog = log
            let feeding = PlanFeedThread(feeder: feeder)
            let playback = LivePlayback(track: track, sink: SilentSink(rate: rate, periodFrames: 256))
            feeding.start()
            playback.start()
            // The track is finite (about 4.5 s); a starved one would play on, so the wait is bounded.
            waitUntil(seconds: 20, every: .milliseconds(50)) { playback.isFinished }
            #expect(playback.isFinished)
            playback.stop()
            playback.join()
            feeding.stop()

            let played = log.drain()
            #expect(played.count == 40)
            #expect(played.map(\.frame) == expected.clicks.map(\.frame))
            return true
        }
    }

    /// `stop()` ends the thread at once, not at its next deadline, and a second stop does nothing.
    @Test func stopWakesTheThreadAndJoinsIt() throws {
        let rate = SampleRate.standard
        let source = TempoPlan.Source.map(try parseMap("4 120\n"), first: 0, loops: true)
        let feeding = PlanFeedThread(feeder: PlanFeeder(TempoPlan(source, rate: rate, rhythm: .plain)),
                                     intervalNanoseconds: 3_600_000_000_000)
        feeding.start()
        let start = MonotonicClock().now()
        feeding.stop()
        feeding.stop()
        #expect(MonotonicClock().now().nanoseconds - start.nanoseconds < 1_000_000_000)
    }
}
