@testable import Metronome
import Testing

@Suite struct LinkBeatFollowerTests {
    /// A timeline whose beats are shifted by `shift` µs from `from` on, as when a peer's phase is adopted.
    struct ShiftedTimeline: LinkTimeline {
        let base: ExactTimeline
        let from: Int64
        let shift: Int64

        func beat(at time: LinkTime, quantum: Double) -> Double {
            base.beat(at: LinkTime(micros: time.micros >= from ? time.micros - shift : time.micros), quantum: quantum)
        }

        func time(atBeat beat: Double, quantum: Double) -> LinkTime {
            let unshifted = base.time(atBeat: beat, quantum: quantum).micros
            return LinkTime(micros: unshifted + shift >= from ? unshifted + shift : unshifted)
        }
    }

    /// Lines refitted every period: the true line (frame 0 at 1 s, 48 kHz) moved by up to ±40 µs (±2 frames).
    func jitteredLines(_ count: Int) -> [FrameTimeMapping] {
        var seed: UInt64 = 11
        return (0..<count).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let jitter = Int64(seed >> 33) % 80_001 - 40_000
            return FrameTimeMapping(frame: 0, nanos: 1_000_000_000 + jitter, nanoframesPerSecond: 48_000_000_000_000)
        }
    }

    @Test func aLineRefittedEveryPeriodNeitherDoublesNorSkipsABeat() {
        // 240 bpm (250000 µs a beat) from 1.1 s (frame 4800), in periods of 48 frames (1 ms), for a minute.
        let timeline = ExactTimeline(origin: 1_100_000, microsPerBeat: 250_000)
        let period: Int64 = 48, periods = 60_000
        let lines = jitteredLines(periods)
        var follower = LinkBeatFollower(lateFrames: 48)
        var followed: [LinkClick] = [], placed: [LinkClick] = []
        for index in 0..<periods {
            let start = Int64(index) * period
            follower.clicks(inPeriodFrom: start, frames: period, mapping: lines[index], timeline: timeline, quantum: 4) { followed.append($0) }
            LinkClickPlacement.clicks(inPeriodFrom: start, frames: period, mapping: lines[index], timeline: timeline, quantum: 4) { placed.append($0) }
        }
        // Each period alone would double some beats and drop others at the periods' edges...
        #expect(placed.map(\.beat) != Array(0..<240))
        // ...the follower plays each of the minute's 240 beats once,
        #expect(followed.map(\.beat) == Array(0..<240))
        // within 3 frames of its place on the true line (2 of jitter, 1 of rounding).
        for click in followed {
            #expect(abs(click.frame - 4_800 - click.beat * 12_000) <= 3, "beat \(click.beat) at \(click.frame)")
        }
    }

    @Test func aBeatFoundJustBeforeThePeriodPlaysAtItsStart() {
        let timeline = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        var follower = LinkBeatFollower(lateFrames: 10)
        var clicks: [LinkClick] = []
        let line = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        // Beat 0 at frame 0; beat 1 at frame 24000, one past the second period.
        follower.clicks(inPeriodFrom: 0, frames: 12_000, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        follower.clicks(inPeriodFrom: 12_000, frames: 12_000, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        #expect(clicks.map(\.beat) == [0])
        // Refitted, the line hears every frame 100 µs later: beat 1 is now due at frame 23996 (⌈23995.2⌉).
        let later = line.delayed(byNanoseconds: 100_000)
        follower.clicks(inPeriodFrom: 24_000, frames: 12_000, mapping: later, timeline: timeline, quantum: 4) { clicks.append($0) }
        #expect(clicks.map(\.beat) == [0, 1])
        #expect(clicks.last?.frame == 24_000)
        // Too late (more than `lateFrames`) it is dropped, as a beat that has passed.
        var strict = LinkBeatFollower(lateFrames: 3)
        var played: [Int64] = []
        strict.clicks(inPeriodFrom: 12_000, frames: 12_000, mapping: line, timeline: timeline, quantum: 4) { played.append($0.beat) }
        strict.clicks(inPeriodFrom: 0, frames: 12_000, mapping: line, timeline: timeline, quantum: 4) { played.append($0.beat) }
        strict.clicks(inPeriodFrom: 24_000, frames: 12_000, mapping: later, timeline: timeline, quantum: 4) { played.append($0.beat) }
        #expect(played == [0])
    }

    @Test func aPhaseMovedBackDoesNotPlayTheSameBeatAgain() {
        // Beat 4 plays at frame 96000 (2 s); 50 ms later the session's phase moves
        // back 200 ms, so beat 4 falls again at 2.15 s: it must not play twice.
        let base = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        let timeline = ShiftedTimeline(base: base, from: 3_050_000, shift: 200_000)
        let line = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        var follower = LinkBeatFollower(lateFrames: 48)
        var clicks: [LinkClick] = []
        for index in 0..<40 {
            let start = Int64(index) * 4_800
            // The session moves at 3.05 s (frame 98400); a period sees the timeline captured at its start.
            if start < 98_400 {
                follower.clicks(inPeriodFrom: start, frames: 4_800, mapping: line, timeline: base, quantum: 4) { clicks.append($0) }
            } else {
                follower.clicks(inPeriodFrom: start, frames: 4_800, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
            }
        }
        #expect(clicks.map(\.beat) == [0, 1, 2, 3, 4, 5, 6, 7])
        // Beat 5 plays where the moved timeline puts it: 2.7 s after frame 0.
        #expect(clicks.first { $0.beat == 5 }?.frame == 129_600)
    }

    @Test func aJumpToAnotherTimelinePlaysItsBeatsFromWhereTheyFall() {
        // Joining a session: from frame 48000 on the beats are numbered 1000 further and 100 ms later.
        let line = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        let before = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        let after = ExactTimeline(origin: 1_100_000 - 1_000 * 500_000, microsPerBeat: 500_000)
        var follower = LinkBeatFollower(lateFrames: 48)
        var clicks: [LinkClick] = []
        for index in 0..<20 {
            let start = Int64(index) * 4_800
            if start < 48_000 {
                follower.clicks(inPeriodFrom: start, frames: 4_800, mapping: line, timeline: before, quantum: 4) { clicks.append($0) }
            } else {
                follower.clicks(inPeriodFrom: start, frames: 4_800, mapping: line, timeline: after, quantum: 4) { clicks.append($0) }
            }
        }
        #expect(clicks.map(\.beat) == [0, 1, 1_002, 1_003])
        #expect(clicks.map(\.frame) == [0, 24_000, 52_800, 76_800])
    }
}
