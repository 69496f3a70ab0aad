import CAllocationCounter
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// A timebase master worked out here in fractions: stretches of one tempo
/// and meter, each from a bar line where the one before puts it, exactly (as
/// a DAW's tempo map: not moved to a whole frame); its beats fall on the
/// nearest frame, and it publishes its tick floored or, as Ardour does, rounded.
struct SimulatedMaster {
    struct Stretch {
        /// Where the stretch's first bar line falls, in frames.
        var origin: Fraction
        var bar: Int64
        var millibpm: Int64
        var beatsPerBar: Int64
        var beatType: Int64
    }

    var stretches: [Stretch]
    var rounds: Bool
    let rate: Int64 = 48_000
    let ticks: Int64 = 1920

    /// One tempo and meter from frame 0, bar 1.
    init(millibpm: Int64, beatsPerBar: Int64 = 4, beatType: Int64 = 4, rounds: Bool) {
        stretches = [Stretch(origin: Fraction(0), bar: 1, millibpm: millibpm, beatsPerBar: beatsPerBar, beatType: beatType)]
        self.rounds = rounds
    }

    /// From the first beat of bar `bar`, a new tempo and meter.
    mutating func change(atBar bar: Int64, millibpm: Int64, beatsPerBar: Int64, beatType: Int64) {
        let last = stretches[stretches.count - 1]
        stretches.append(Stretch(origin: beat((bar - last.bar) * last.beatsPerBar, last), bar: bar, millibpm: millibpm,
                                 beatsPerBar: beatsPerBar, beatType: beatType))
    }

    /// Where a stretch's beat `j` falls: its origin and `60000·R·j / m` frames.
    func beat(_ j: Int64, _ stretch: Stretch) -> Fraction {
        stretch.origin + Fraction(60_000 * Int128(rate) * Int128(j), Int128(stretch.millibpm))
    }

    /// The frame a stretch's beat `j` falls on: the nearest.
    func beatFrame(_ j: Int64, _ stretch: Stretch) -> Int64 { beat(j, stretch).nearestFrame }

    func position(rolling: Bool, frame: Int64) -> MasterPosition {
        let stretch = stretches.last { $0.origin.numerator <= Int128(frame) * $0.origin.denominator }!
        // Beats past the stretch's start: (f - origin)·m / (60000·R).
        let numerator = (Int128(frame) * stretch.origin.denominator - stretch.origin.numerator) * Int128(stretch.millibpm)
        let denominator = 60_000 * Int128(rate) * stretch.origin.denominator
        var beat = Int64(numerator / denominator)
        let rest = numerator - Int128(beat) * denominator
        var tick = Int64(rounds ? (2 * rest * Int128(ticks) + denominator) / (2 * denominator) : rest * Int128(ticks) / denominator)
        if tick == ticks { beat += 1; tick = 0 }
        let bbt = MasterPosition.BBT(bar: stretch.bar + beat / stretch.beatsPerBar, beat: beat % stretch.beatsPerBar + 1, tick: tick,
                                     ticksPerBeat: Double(ticks), beatsPerBar: Float(stretch.beatsPerBar),
                                     beatType: Float(stretch.beatType), beatsPerMinute: Double(stretch.millibpm) / 1000)
        return MasterPosition(rolling: rolling, frame: frame, frameRate: rate, bbt: bbt)
    }

    /// The master's beats in frames `range`: (frame, bar, beat in bar from 0).
    func beats(in range: Range<Int64>) -> [Heard] {
        var heard: [Heard] = []
        for (index, stretch) in stretches.enumerated() {
            let end = index + 1 < stretches.count ? stretches[index + 1].origin.nearestFrame : .max
            var j: Int64 = 0
            while true {
                let frame = beatFrame(j, stretch)
                guard frame < end, frame < range.upperBound else { break }
                if frame >= range.lowerBound {
                    heard.append(Heard(frame: frame, bar: stretch.bar + j / stretch.beatsPerBar, beatInBar: Int(j % stretch.beatsPerBar)))
                }
                j += 1
            }
        }
        return heard
    }
}

struct Heard: Equatable, CustomStringConvertible {
    var frame: Int64
    var bar: Int64
    var beatInBar: Int
    var description: String { "\(frame)@\(bar).\(beatInBar)" }
}

/// Cycles of 1024 frames, rolling from `from` for `count` cycles, or stopped there.
struct Roll {
    var from: Int64
    var count: Int
    var rolling = true
    var range: Range<Int64> { rolling ? from..<from + Int64(count) * 1024 : from..<from }
}

@Suite struct TransportFollowerTests {
    let cycle = 1024

    /// Runs the follower through `rolls` of `master` and returns every click at its transport frame.
    func follow(_ master: SimulatedMaster, _ rolls: [Roll], follower: inout TransportFollower) -> [Heard] {
        var heard: [Heard] = []
        let buffer = UnsafeMutableBufferPointer<FollowedClick>.allocate(capacity: 32)
        defer { buffer.deallocate() }
        for roll in rolls {
            for index in 0..<roll.count {
                let frame = roll.from + (roll.rolling ? Int64(index * cycle) : 0)
                let result = follower.follow(master.position(rolling: roll.rolling, frame: frame), frames: cycle, into: buffer)
                guard case .following(let count) = result else {
                    #expect(result == .stopped && !roll.rolling)
                    continue
                }
                #expect(roll.rolling)
                for click in buffer.prefix(count) {
                    #expect(click.offset >= 0 && click.offset < cycle)
                    heard.append(Heard(frame: frame + Int64(click.offset), bar: click.bar, beatInBar: click.beatInBar))
                }
            }
        }
        return heard
    }

    func follow(_ master: SimulatedMaster, _ rolls: [Roll]) -> [Heard] {
        var follower = TransportFollower()
        return follow(master, rolls, follower: &follower)
    }

    func expected(_ master: SimulatedMaster, _ rolls: [Roll]) -> [Heard] {
        rolls.flatMap { master.beats(in: $0.range) }
    }

    @Test(arguments: [(120_000, false), (120_000, true), (137_000, false), (137_000, true)])
    func everyClickIsOnTheMastersBeatFromAStart(millibpm: Int64, rounds: Bool) {
        let master = SimulatedMaster(millibpm: millibpm, rounds: rounds)
        let rolls = [Roll(from: 0, count: 6000)]
        let heard = follow(master, rolls)
        #expect(heard.count > 250)
        #expect(heard == expected(master, rolls))
        #expect(heard.filter { $0.beatInBar == 0 }.map(\.bar) == Array(1...Int64(heard.count / 4 + (heard.count % 4 > 0 ? 1 : 0))))
    }

    @Test func silentWhileStoppedAndOnTheGridAgainAfterAStart() {
        let master = SimulatedMaster(millibpm: 137_000, rounds: true)
        // Rolls, stops mid-beat for a second (the frame stands still), rolls on from there.
        let stop: Int64 = 100 * 1024
        let rolls = [Roll(from: 0, count: 100), Roll(from: stop, count: 47, rolling: false), Roll(from: stop, count: 100)]
        let heard = follow(master, rolls)
        #expect(heard == expected(master, rolls))
        #expect(heard.contains { $0.frame >= stop })
    }

    @Test(arguments: [false, true])
    func relocationsWhileRollingAndWhileStopped(rounds: Bool) {
        let master = SimulatedMaster(millibpm: 137_000, rounds: rounds)
        let rolls = [Roll(from: 0, count: 60),
                     Roll(from: 1_234_567, count: 60),                  // forward, mid-beat, rolling
                     Roll(from: 98_765, count: 60),                     // backward, rolling
                     Roll(from: 98_765 + 60 * 1024, count: 5, rolling: false),
                     Roll(from: 3_000_001, count: 5, rolling: false),   // located while stopped
                     Roll(from: 3_000_001, count: 60),
                     Roll(from: 21_021, count: 30)]                     // onto a beat's frame (60·48000/137 = 21021.9)
        #expect(follow(master, rolls) == expected(master, rolls))
    }

    @Test(arguments: [false, true])
    func aTempoChangeAtABar(rounds: Bool) {
        var master = SimulatedMaster(millibpm: 120_000, rounds: rounds)
        master.change(atBar: 9, millibpm: 137_000, beatsPerBar: 4, beatType: 4)
        master.change(atBar: 17, millibpm: 90_500, beatsPerBar: 4, beatType: 4)
        let rolls = [Roll(from: 0, count: 2000)]
        let heard = follow(master, rolls)
        #expect(heard == expected(master, rolls))
        #expect(heard.contains { $0.bar == 20 })
        // Back into the first tempo, a locate into the second while stopped: on the grids it met.
        var follower = TransportFollower()
        _ = follow(master, rolls, follower: &follower)
        let more = [Roll(from: 500_000, count: 100), Roll(from: 200_000, count: 100),
                    Roll(from: 1_000_003, count: 3, rolling: false), Roll(from: 1_000_003, count: 200)]
        #expect(follow(master, more, follower: &follower) == expected(master, more))
        // A follower that starts on bar 9 meets the first tempo mid-beat: anchored on the tick, within one.
        var fresh = TransportFollower()
        let located = [Roll(from: 768_000, count: 50), Roll(from: 500_000, count: 100)]
        let anchored = follow(master, located, follower: &fresh)
        let beats = expected(master, located)
        #expect(anchored.prefix(10) == beats.prefix(10))
        #expect(anchored.count == beats.count)
        for (click, beat) in zip(anchored, beats) {
            #expect(click.bar == beat.bar && click.beatInBar == beat.beatInBar && abs(click.frame - beat.frame) <= (rounds ? 7 : 13))
        }
    }

    @Test(arguments: [false, true])
    func aMeterChangeFromFourFourToSevenEight(rounds: Bool) {
        var master = SimulatedMaster(millibpm: 120_000, rounds: rounds)
        // 7/8 at 120 quarters: 240 eighths a minute.
        master.change(atBar: 5, millibpm: 240_000, beatsPerBar: 7, beatType: 8)
        let rolls = [Roll(from: 0, count: 1000)]
        let heard = follow(master, rolls)
        #expect(heard == expected(master, rolls))
        let bells = heard.filter { $0.beatInBar == 0 }
        #expect(bells.map(\.bar).prefix(8) == [1, 2, 3, 4, 5, 6, 7, 8])
        // Bars of 7 eighths: 7 · 12000 frames apart.
        #expect(bells[5].frame - bells[4].frame == 84_000 && bells[3].frame - bells[2].frame == 96_000)
    }

    @Test func aRoundingMasterGivesTheClicksOfAFlooringOne() {
        var rounding = SimulatedMaster(millibpm: 137_000, rounds: true)
        rounding.change(atBar: 9, millibpm: 92_125, beatsPerBar: 3, beatType: 4)
        var flooring = rounding
        flooring.rounds = false
        // Through the change at bar 9 (frame 672_700), a stop, locates into both tempos and back.
        let rolls = [Roll(from: 0, count: 700), Roll(from: 700 * 1024, count: 10, rolling: false),
                     Roll(from: 700 * 1024, count: 200), Roll(from: 77_777, count: 200), Roll(from: 2_999_999, count: 200),
                     Roll(from: 333_333, count: 100)]
        // The two publish different ticks at some of these cycles, or this proves nothing.
        let differ = rolls.flatMap { roll in (0..<roll.count).map { roll.from + Int64($0 * 1024) } }.contains {
            rounding.position(rolling: true, frame: $0).bbt!.tick != flooring.position(rolling: true, frame: $0).bbt!.tick
        }
        #expect(differ)
        let heard = follow(rounding, rolls)
        #expect(heard == follow(flooring, rolls))
        #expect(heard == expected(rounding, rolls))
    }

    @Test func tenMinutesOfExtrapolationDoNotDrift() {
        let master = SimulatedMaster(millibpm: 137_000, rounds: true)
        let cycles = 10 * 60 * 48_000 / 1024 + 1
        let rolls = [Roll(from: 0, count: cycles)]
        let heard = follow(master, rolls)
        let beats = expected(master, rolls)
        #expect(heard.count == 1370 || heard.count == 1371)
        #expect(heard == beats)
        // The last beat on 60000·R·k / m exactly, not on a sum of rounded intervals.
        let k = Int64(heard.count - 1)
        #expect(heard.last?.frame == Fraction(60_000 * 48_000 * Int128(k), 137_000).nearestFrame)
    }

    @Test func aMasterThatStartsItsGridAnewIsFollowedFromTheTick() {
        // Rolling on, the master's bar 1 moves to frame 300_000 + 5_000 (a re-based song):
        // the tick disagrees with the grid by far more than 2 ticks, so it is a relocation.
        let first = SimulatedMaster(millibpm: 120_000, rounds: false)
        var second = SimulatedMaster(millibpm: 120_000, rounds: false)
        second.stretches[0].origin = Fraction(305_000)
        var follower = TransportFollower()
        let before = follow(first, [Roll(from: 0, count: 300)], follower: &follower)
        #expect(before == first.beats(in: 0..<300 * 1024))
        let after = follow(second, [Roll(from: 300 * 1024, count: 300)], follower: &follower)
        // 305_000 + k·24000 from the next cycle on: the master publishes its ticks there, floored.
        let expectedAfter = second.beats(in: 300 * 1024..<600 * 1024)
        #expect(after.count == expectedAfter.count)
        for (click, beat) in zip(after, expectedAfter) {
            #expect(click.bar == beat.bar && click.beatInBar == beat.beatInBar)
            #expect(abs(click.frame - beat.frame) <= 13, "within a tick (12.5 frames) of a flooring master's beat")
        }
    }

    @Test func withoutBBTTheTransportOnlyStartsAndStopsOurOwnGrid() {
        var follower = TransportFollower()
        let buffer = UnsafeMutableBufferPointer<FollowedClick>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        #expect(follower.follow(MasterPosition(rolling: true, frame: 0, frameRate: 48_000, bbt: nil), frames: 1024, into: buffer)
                == .ownGrid(rolling: true))
        #expect(follower.follow(MasterPosition(rolling: false, frame: 1024, frameRate: 48_000, bbt: nil), frames: 1024, into: buffer)
                == .ownGrid(rolling: false))
        // A BBT that cannot be followed (no tempo) is no BBT.
        var position = SimulatedMaster(millibpm: 120_000, rounds: false).position(rolling: true, frame: 0)
        position.bbt?.beatsPerMinute = 0
        #expect(follower.follow(position, frames: 1024, into: buffer) == .ownGrid(rolling: true))
        // With one, stopped is silence and rolling is clicks.
        let master = SimulatedMaster(millibpm: 120_000, rounds: false)
        #expect(follower.follow(master.position(rolling: false, frame: 0), frames: 1024, into: buffer) == .stopped)
        #expect(follower.follow(master.position(rolling: true, frame: 0), frames: 1024, into: buffer) == .following(clicks: 1))
        #expect(buffer[0] == FollowedClick(offset: 0, bar: 1, beatInBar: 0) && buffer[0].isBell)
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func aCycleAllocatesNothing() {
        var master = SimulatedMaster(millibpm: 137_000, rounds: true)
        master.change(atBar: 5, millibpm: 240_000, beatsPerBar: 7, beatType: 8)
        // The master's positions worked out first: the fractions allocate.
        var positions: [MasterPosition] = []
        for index in 0..<600 { positions.append(master.position(rolling: index % 200 < 190, frame: Int64(index % 300) * 1024)) }
        let buffer = UnsafeMutableBufferPointer<FollowedClick>.allocate(capacity: 32)
        defer { buffer.deallocate() }
        var follower = TransportFollower()
        var clicks = 0
        _ = follower.follow(positions[0], frames: cycle, into: buffer)
        metronome_counting_begin()
        for index in 0..<positions.count {
            if case .following(let count) = follower.follow(positions[index], frames: cycle, into: buffer) { clicks += count }
        }
        let counted = metronome_counting_end()
        #expect(clicks > 20)
        #expect(counted == 0)
    }

    /// Ahead by an output's latency: each click is written that much before its
    /// beat, so it is heard on it; the beats due before the start plus the
    /// latency are not heard.
    @Test(arguments: [false, true])
    func clicksAheadByTheLatencyAreHeardOnTheBeats(rounds: Bool) {
        let master = SimulatedMaster(millibpm: 137_000, rounds: rounds)
        var follower = TransportFollower()
        let buffer = UnsafeMutableBufferPointer<FollowedClick>.allocate(capacity: 32)
        defer { buffer.deallocate() }
        var heard: [Heard] = []
        for index in 0..<600 {
            let frame = Int64(index * cycle)
            guard case .following(let count) = follower.follow(master.position(rolling: true, frame: frame), frames: cycle, ahead: 2048,
                                                                into: buffer) else { continue }
            for click in buffer.prefix(count) {
                heard.append(Heard(frame: frame + Int64(click.offset) + 2048, bar: click.bar, beatInBar: click.beatInBar))
            }
        }
        #expect(heard == master.beats(in: 2048..<600 * 1024 + 2048))
    }
}
