import CAllocationCounter
import Glibc
import Testing
@testable import MetronomeLink
import MetronomeTestSupport

/// The real Link, disabled: no network, the session state alone.
@Suite struct LinkSessionTests {
    @Test func aNewSessionIsDisabledAndAloneAtItsTempo() throws {
        let link = try LinkSession(bpm: 93.5)
        #expect(!link.isEnabled)
        #expect(link.peers == 0)
        #expect(!link.isStartStopSyncEnabled)
        #expect(link.captureAppState().tempo == 93.5)
        #expect(link.captureAudioState().tempo == 93.5)
    }

    @Test func linksClockIsTheRawMonotonicClockInMicroseconds() throws {
        let link = try LinkSession(bpm: 120)
        var before = timespec(), after = timespec()
        clock_gettime(CLOCK_MONOTONIC_RAW, &before)
        let now = link.now()
        clock_gettime(CLOCK_MONOTONIC_RAW, &after)
        #expect(now.micros >= Int64(before.tv_sec) * 1_000_000 + Int64(before.tv_nsec) / 1_000)
        #expect(now.micros <= Int64(after.tv_sec) * 1_000_000 + Int64(after.tv_nsec) / 1_000)
    }

    @Test func aCommittedTempoIsTheSessionsForBothThreads() throws {
        let link = try LinkSession(bpm: 120)
        var state = link.captureAppState()
        state.setTempo(77, at: link.now())
        try link.commitAppState(state)
        #expect(link.captureAppState().tempo == 77)
        // The audio thread's view catches up on its next capture.
        waitUntil(seconds: 5, every: .zero) { link.captureAudioState().tempo == 77 }
        #expect(link.captureAudioState().tempo == 77)
        // And the other way round: committed from the audio thread, read by the app.
        var audio = link.captureAudioState()
        audio.setTempo(181, at: link.now())
        link.commitAudioState(audio)
        let later = ContinuousClock.now + .seconds(5)
        while link.captureAppState().tempo != 181, ContinuousClock.now < later {}
        #expect(link.captureAppState().tempo == 181)
    }

    @Test func beatsAndTimesAreInverse() throws {
        let link = try LinkSession(bpm: 120)
        var state = link.captureAppState()
        let origin = LinkTime(micros: 50_000_000)
        state.setTempo(150, at: origin)
        // Alone in the session, a requested beat is granted as asked.
        state.requestBeat(8, at: origin, quantum: 4)
        #expect(state.beat(at: origin, quantum: 4) == 8)
        #expect(state.phase(at: origin, quantum: 4) == 0)
        // 150 bpm: 400 ms a beat.
        #expect(state.time(atBeat: 9, quantum: 4) == LinkTime(micros: 50_400_000))
        #expect(state.time(atBeat: 8, quantum: 4) == origin)
        // A second is 2.5 beats.
        #expect(state.beat(at: LinkTime(micros: 51_000_000), quantum: 4) == 10.5)
        #expect(state.phase(at: LinkTime(micros: 51_000_000), quantum: 4) == 2.5)
        #expect(state.time(atBeat: 10.5, quantum: 4) == LinkTime(micros: 51_000_000))
    }

    @Test func startAndStopTakeEffectWhenAsked() throws {
        let link = try LinkSession(bpm: 120)
        try link.setStartStopSync(true)
        #expect(link.isStartStopSyncEnabled)
        var state = link.captureAppState()
        #expect(!state.isPlaying)
        let start = LinkTime(micros: link.now().micros + 1_000_000)
        state.setIsPlaying(true, at: start, requestingBeat: 0, quantum: 4)
        try link.commitAppState(state)
        let after = link.captureAppState()
        #expect(after.isPlaying)
        #expect(after.timeForIsPlaying == start)
        #expect(after.beat(at: start, quantum: 4) == 0)
        var stop = after
        stop.setIsPlaying(false, at: LinkTime(micros: start.micros + 2_000_000))
        try link.commitAppState(stop)
        #expect(!link.captureAppState().isPlaying)
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func theAudioThreadsCallsAllocateNothing() throws {
        let link = try LinkSession(bpm: 120)
        var follower = LinkBeatFollower(lateFrames: 48)
        var filter = HostTimeFilter(rate: .standard)
        var clicks = 0
        let start = link.now().micros
        // A period as the audio thread will run it: fit, capture, place, commit.
        func period(_ index: Int64) {
            // Periods of 1024 frames at 48 kHz, on Link's clock from now.
            let now = LinkTime(micros: start + index * 21_333)
            filter.add(frame: index * 1_024, heardAt: now)
            var state = link.captureAudioState()
            if let line = filter.mapping() {
                follower.clicks(inPeriodFrom: index * 1_024, frames: 1_024, mapping: line, timeline: state, quantum: 4) { _ in clicks += 1 }
            }
            if index == 100 { state.setTempo(140, at: now) }
            link.commitAudioState(state)
            _ = link.peers
        }
        // The first run instantiates the Swift runtime's type metadata (once a
        // process, unspecialized in a debug build): the engine runs a period before it starts.
        period(0)
        metronome_counting_begin()
        for index in 1..<200 { period(Int64(index)) }
        let allocations = metronome_counting_end()
        #expect(allocations == 0)
        // 200 periods of 21.3 ms at 120 then 140 bpm: 4.27 s, 8 or 9 beats and more.
        #expect(clicks >= 8)
    }
}
