import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeLink
@testable import MetronomeAudio
import MetronomeTestSupport

/// The audio thread's side of Link on a session of its own (not enabled: no
/// network), fed a line of heard frames on the manual clock, a period at a time.
@Suite struct LinkConductorTests {
    static let period = 256
    static let periodNanoseconds: Int64 = 5_333_333
    static let periods: Int64 = 1_000

    /// A track following `conductor`, and a step that hands it period `k` as
    /// heard on a line of 48 kHz ending now, then renders the period.
    final class Rig {
        let clock = ManualClock()
        let session: LinkSession
        let conductor: LinkConductor
        let track: ClickTrack
        let clicks = ClickLog(capacity: 1 << 12)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: LinkConductorTests.period)

        init(startStopSync: Bool = false) throws {
            session = try LinkSession(bpm: 120)
            if startStopSync { try session.setStartStopSync(true) }
            conductor = LinkConductor(session: session, rate: .standard, periodFrames: LinkConductorTests.period, beatsPerBar: 4,
                                      startStopSync: startStopSync, clock: clock)
            let sounds = impulseSounds(rate: .standard)
            track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!, rate: .standard), beat: sounds.beat, bell: sounds.bell)
            track.clickLog = clicks
            track.passageLog = LockFreeQueue<Passage>(capacity: 1_024)
        }

        deinit { block.deallocate() }

        /// Whether the audio thread's view of the session comes to hold `condition` within ten seconds.
        /// A disabled session (no network here) gives its own commits no grace period:
        /// while Link's thread applies one commit, it can clear the flag the next one set,
        /// and a capture then returns the earlier tempo until that thread takes the later
        /// one (seen once, on a loaded CI machine: 133 read back after 141 was committed).
        func sessionSettles(_ condition: (LinkSessionState) -> Bool) -> Bool {
            waitUntil(seconds: 10, every: .milliseconds(1)) { condition(session.captureAudioState()) }
        }

        func sessionSettles(atBPM bpm: Double) -> Bool { sessionSettles { abs($0.tempo - bpm) < 0.001 } }

        /// Period `k` is heard at Link time `base + k` periods: the instant handed over is that
        /// time carried back to the manual clock through a reading of Link's clock.
        func step(_ k: Int64) {
            let since = (session.now().micros - base.micros) * 1_000 - k * LinkConductorTests.periodNanoseconds
            conductor.observe(heard: k * Int64(LinkConductorTests.period), at: MonotonicInstant(nanoseconds: clock.now().nanoseconds - since))
            track.render(into: block, count: LinkConductorTests.period, following: conductor)
        }

        /// Link's time of period 0: the periods stepped end about now.
        private(set) lazy var base = LinkTime(micros: session.now().micros - LinkConductorTests.periods * LinkConductorTests.periodNanoseconds / 1_000)
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func placingClicksAndChangingTheTempoAllocateNothing() throws {
        let rig = try Rig()
        // The first second builds the line; the next clicks, a bell and beats, touch once what
        // the first of each sound makes lazily (the runtime's globals), as a live run's first bar does.
        for k in 0..<600 { rig.step(Int64(k)) }
        // A while loop: a debug build's iterator of a range of Int64 allocates.
        var k: Int64 = 600
        metronome_counting_begin()
        while k < Self.periods {
            rig.step(k)
            if k == 800 { _ = rig.conductor.apply(.tempo(Tempo(bpm: 130)!, gain: 1)) }
            k += 1
        }
        let allocations = metronome_counting_end()
        #expect(allocations == 0)
        #expect(rig.clicks.drain().count >= 6)
    }

    /// Alone, clicks wait for a second of the line (period 189: heard frames from 256 to 48 640), and the
    /// first is a bar's first, in that period; the picture rests until then (it once counted the
    /// silent beats, and the first click was whatever beat of the session's bar fell next).
    @Test func aloneTheFirstClickIsABarsFirstAsSoonAsTheLineIsFitted() throws {
        let rig = try Rig()
        for k in 0..<400 { rig.step(Int64(k)) }
        let clicks = rig.clicks.drain()
        let first = try #require(clicks.first)
        #expect(first.sound == .bell && first.beatInBar == 0 && first.bar == 0, "\(first)")
        #expect(first.frame >= 189 * 256 && first.frame < 190 * 256, "\(first)")
        #expect(clicks.dropFirst().first.map { $0.sound == .beat && $0.beatInBar == 1 && $0.click == first.click + 1 } == true)
        let passages = rig.track.passageLog!.drain()
        #expect(passages.first.map { $0.paused && $0.pauseFrame == 0 } == true, "the picture rests from the start")
        let playing = try #require(passages.first { !$0.paused })
        #expect(playing.frame(ofClick: playing.firstClick) == first.frame && playing.bar(ofClick: playing.firstClick) == (0, 0))
    }

    @Test func theKeysChangeTheSessionAndAPauseSilencesOnlyThisMetronome() throws {
        let rig = try Rig()
        for k in 0..<300 { rig.step(Int64(k)) }
        // A tempo key is the session's; the track takes its gain.
        #expect(rig.conductor.apply(.tempo(Tempo(bpm: 133)!, gain: 0.5)) == false)
        #expect(rig.sessionSettles(atBPM: 133))
        // So is a tapped one (the session keeps its phase: a peer's beats do not move for a tap).
        #expect(rig.conductor.apply(.tap(Tempo(bpm: 141)!, tapFrame: 300 * 256, gain: 0.5)) == false)
        #expect(rig.sessionSettles(atBPM: 141))
        // Alone, a pause is the track's too (the picture stops) and silences the clicks.
        #expect(rig.conductor.apply(.pause) == false)
        _ = rig.clicks.drain()
        for k in 300..<600 { rig.step(Int64(k)) }
        #expect(rig.clicks.drain().isEmpty)
        #expect(rig.conductor.apply(.resume) == false)
        rig.track.apply(.resume)
        for k in 600..<Self.periods { rig.step(k) }
        let resumed = rig.clicks.drain()
        #expect(resumed.count >= 4)
        // Alone, the resume starts a new bar at once, bell first; the bars count on (not bar 1 again).
        let first = try #require(resumed.first)
        #expect(first.frame == 600 * 256 && first.sound == .bell && first.beatInBar == 0 && first.bar > 0, "\(first)")
    }

    @Test func withStartAndStopSharedAStoppedSessionIsSilentAndAStartBeginsOnADownbeat() throws {
        let rig = try Rig(startStopSync: true)
        for k in 0..<500 { rig.step(Int64(k)) }
        #expect(rig.clicks.drain().isEmpty)
        // Space: the session plays, from a downbeat: the first click is the bell.
        #expect(rig.conductor.apply(.resume) == true)
        #expect(rig.sessionSettles { $0.isPlaying })  // one thread here: the audio pair may be called
        // The start is now on Link's clock, where period 1000 falls: a bar and more past it.
        for k in 500..<1_600 { rig.step(Int64(k)) }
        let started = rig.clicks.drain()
        #expect(started.count >= 4)
        #expect(started.first?.sound == .bell && started.first?.beatInBar == 0, "\(started.first.map { "\($0)" } ?? "none")")
    }

    /// Stopped, the track rests at the session's tempo, which a peer moves: the picture shows it, not `--bpm`.
    @Test func withStartAndStopSharedAStoppedSessionRestsAtItsTempo() throws {
        let rig = try Rig(startStopSync: true)
        for k in 0..<300 { rig.step(Int64(k)) }
        #expect(rig.track.passage.paused && rig.track.passage.tempo == Tempo(bpm: 120)!)
        // A peer's tempo (one thread here: the audio pair may be called).
        var state = rig.session.captureAudioState()
        state.setTempo(127, at: rig.session.now())
        rig.session.commitAudioState(state)
        #expect(rig.sessionSettles(atBPM: 127))
        rig.step(300)
        #expect(rig.track.passage.paused && rig.track.passage.tempo == Tempo(bpm: 127)!)
        #expect(!rig.conductor.isPlaying && rig.conductor.sounding == false)
    }

    /// Space turns the shared transport over whatever this metronome asked last:
    /// after a peer stopped the session, the pause the keys send (they think it
    /// plays) starts it again.
    @Test func withStartAndStopSharedSpaceTurnsTheSessionsTransportOver() throws {
        let rig = try Rig(startStopSync: true)
        #expect(rig.conductor.apply(.resume) == true)
        #expect(rig.sessionSettles { $0.isPlaying })
        // A peer stops it (one thread here: the audio pair may be called).
        var state = rig.session.captureAudioState()
        state.setIsPlaying(false, at: rig.session.now())
        rig.session.commitAudioState(state)
        #expect(rig.sessionSettles { !$0.isPlaying })
        #expect(rig.conductor.apply(.pause) == true)
        #expect(rig.sessionSettles { $0.isPlaying })
        #expect(rig.conductor.apply(.resume) == true)
        #expect(rig.sessionSettles { !$0.isPlaying })
    }
}
