import Testing
@testable import MetronomeLink
import MetronomeTestSupport

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

    /// 240 bpm (250000 µs a beat) from 1.1 s (frame 4800) on `jitteredLines`, period after
    /// period: the follower's clicks, and those each period's line alone places.
    func jitteredMinute(period: Int64, periods: Int, lateFrames: Int64) -> (followed: [LinkClick], placed: [LinkClick]) {
        let timeline = ExactTimeline(origin: 1_100_000, microsPerBeat: 250_000)
        let lines = jitteredLines(periods)
        var follower = LinkBeatFollower(lateFrames: lateFrames)
        var followed: [LinkClick] = [], placed: [LinkClick] = []
        for index in 0..<periods {
            let start = Int64(index) * period
            follower.clicks(inPeriodFrom: start, frames: period, mapping: lines[index], timeline: timeline, quantum: 4) { followed.append($0) }
            LinkClickPlacement.clicks(inPeriodFrom: start, frames: period, mapping: lines[index], timeline: timeline, quantum: 4) { placed.append($0) }
        }
        return (followed, placed)
    }

    @Test func aLineRefittedEveryPeriodNeitherDoublesNorSkipsABeat() {
        // In periods of 48 frames (1 ms), for a minute.
        let (followed, placed) = jitteredMinute(period: 48, periods: 60_000, lateFrames: 48)
        // Each period alone would double some beats and drop others at the periods' edges...
        #expect(placed.map(\.beat) != Array(0..<240))
        // ...the follower plays each of the minute's 240 beats once,
        #expect(followed.map(\.beat) == Array(0..<240))
        // within 3 frames of its place on the true line (2 of jitter, 1 of rounding).
        for click in followed {
            #expect(abs(click.frame - 4_800 - click.beat * 12_000) <= 3, "beat \(click.beat) at \(click.frame)")
        }
    }

    @Test func intervalsKeepTheTempoWithinAFrameWhileTheLineWanders() {
        // The jittered lines at 240 bpm (12000 frames a beat), in periods of 1024 frames.
        let (clicks, placed) = jitteredMinute(period: 1_024, periods: 2_800, lateFrames: 1_024)
        let intervals = zip(clicks.dropFirst(), clicks).map { $0.frame - $1.frame }
        let rough = zip(placed.dropFirst(), placed).map { $0.frame - $1.frame }
        // Each beat on its period's line moves with the line, by up to 4 frames...
        #expect(rough.contains { abs($0 - 12_000) > 1 })
        // ...the followed ones keep the beat's 12000 frames within 1, every beat once (0 to 238 in 2.87 M frames),
        #expect(clicks.map(\.beat) == Array(0..<Int64(clicks.count)) && clicks.count == 239)
        for (index, interval) in intervals.enumerated() { #expect(abs(interval - 12_000) <= 1, "interval \(index): \(interval)") }
        // and stay on the true line within its jitter.
        for click in clicks { #expect(abs(click.frame - 4_800 - click.beat * 12_000) <= 3, "beat \(click.beat) at \(click.frame)") }
    }

    @Test func aLineThatMovesSlowlyIsFollowedHalfAFrameABeat() {
        // The line moves 3 frames (62.5 µs) later at once, then 20 ns later every period (1 ppm):
        // the clicks reach it half a frame a beat and then keep up, every interval within a frame of 24000.
        let timeline = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        var follower = LinkBeatFollower(lateFrames: 1_024)
        var clicks: [LinkClick] = []
        for index in Int64(0)..<1_000 {
            let start = index * 1_024
            let moved: Int64 = index < 100 ? 0 : 62_500 + (index - 100) * 2_000 / 100
            let line = FrameTimeMapping(frame: 0, nanos: 1_000_000_000 + moved, nanoframesPerSecond: 48_000_000_000_000)
            follower.clicks(inPeriodFrom: start, frames: 1_024, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        }
        let intervals = zip(clicks.dropFirst(), clicks).map { $0.frame - $1.frame }
        #expect(intervals.allSatisfy { abs($0 - 24_000) <= 1 }, "\(intervals)")
        // At the end the line puts beat b at 24000·b less the move in frames: the last click within a frame of it.
        guard let end = clicks.last else { Issue.record("no clicks"); return }
        let moved = 62_500 + (Int64(999) - 100) * 2_000 / 100
        let due = Double(end.beat) * 24_000 - Double(moved) * 48_000 / 1e9
        #expect(abs(Double(end.frame) - due) <= 1, "beat \(end.beat) at \(end.frame), due \(due)")
    }

    @Test func aPeersTempoChangeIsFollowedAtOnceHoweverSmallTheShift() {
        // 120 bpm from 1 s (beat 0 at frame 0); a tenth of a beat after beat 8 a peer sets
        // 496000 µs a beat, the timeline kept continuous there: beat 8 now lies 400 µs (19.2
        // frames) later. Only the line is held to half a frame a beat; the session's beats
        // are not: every beat from 9 on is at its frame on the new timeline.
        let before = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        let change: Int64 = 1_000_000 + 8 * 500_000 + 50_000
        let after = ExactTimeline(origin: change - 8 * 496_000 - 49_600, microsPerBeat: 496_000)
        let line = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        var follower = LinkBeatFollower(lateFrames: 1_024)
        var clicks: [LinkClick] = []
        for index in Int64(0)..<400 {
            let start = index * 1_024
            let timeline = line.nanos(ofFrame: start) / 1_000 < change ? before : after
            follower.clicks(inPeriodFrom: start, frames: 1_024, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        }
        #expect(clicks.map(\.beat) == Array(0..<Int64(clicks.count)) && clicks.count > 12)
        for click in clicks where click.beat >= 9 {
            let due = line.firstFrame(atOrAfter: after.time(atBeat: Double(click.beat), quantum: 4))
            #expect(click.frame == due, "beat \(click.beat) at \(click.frame), due \(due)")
        }
    }

    @Test func aBeatFoundJustBeforeThePeriodPlaysAtItsStart() {
        let timeline = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        var follower = LinkBeatFollower(lateFrames: 60)
        var clicks: [LinkClick] = []
        let line = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        // Beat 0 at frame 0; beat 1 at frame 24000, one past the second period.
        follower.clicks(inPeriodFrom: 0, frames: 12_000, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        follower.clicks(inPeriodFrom: 12_000, frames: 12_000, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        #expect(clicks.map(\.beat) == [0])
        // Refitted, the line hears every frame 1.1 ms later (a move followed at once): beat 1 is now due at frame 23947 (⌈23947.2⌉).
        let later = line.delayed(byNanoseconds: 1_100_000)
        follower.clicks(inPeriodFrom: 24_000, frames: 12_000, mapping: later, timeline: timeline, quantum: 4) { clicks.append($0) }
        #expect(clicks.map(\.beat) == [0, 1])
        #expect(clicks.last?.frame == 24_000)
        // Too late (more than `lateFrames`) it is dropped, as a beat that has passed.
        var strict = LinkBeatFollower(lateFrames: 50)
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
