import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomePendulum
@testable import MetronomeTerminal
@testable import MetronomeSession
import MetronomeTestSupport

/// A click track played in 256-frame blocks, as the audio thread plays it,
/// with keys pressed at given heard frames: before each block the keys pressed
/// so far go through the controller, and its commands reach the track at the
/// first frame not yet rendered.
private final class PracticeRun {
    let rate = SampleRate.standard
    var controller: PracticeController
    let track: ClickTrack
    let clicks = ClickLog(capacity: 1 << 16)
    let passages = LockFreeQueue<Passage>(capacity: 1024)
    /// The frame at which each key's commands were applied.
    private(set) var appliedAt: [Int64] = []
    static let block = 256

    init(bpm: Int, meter: Meter = .common) {
        let tempo = Tempo(bpm: bpm)!
        let sounds = impulseSounds(rate: rate)
        track = ClickTrack(schedule: ClickSchedule(tempo: tempo, meter: meter, rate: rate), beat: sounds.beat, bell: sounds.bell)
        track.clickLog = clicks
        track.passageLog = passages
        controller = PracticeController(tempo: tempo, volume: 1, rate: rate, headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
    }

    /// Plays to `end`, pressing `keys` (heard frame, key); returns every click started.
    func play(until end: Int64, keys: [(frame: Int64, key: Key)]) -> [StartedClick] {
        var pending = keys.sorted { $0.frame < $1.frame }[...]
        let block = UnsafeMutablePointer<Float>.allocate(capacity: Self.block)
        defer { block.deallocate() }
        while track.position < end {
            while let next = pending.first, next.frame <= track.position {
                pending.removeFirst()
                if case .command(let command) = controller.press(next.key, heardFrame: next.frame) { track.apply(command) }
                appliedAt.append(track.position)
            }
            track.render(into: block, count: Self.block)
        }
        return clicks.drain()
    }

    /// Frame of click `j` of a constant tempo counted from `origin`: origin + floor(j * 60 R / B + 1/2).
    func grid(_ tempo: Tempo, from origin: Int64, _ j: Int64) -> Int64 {
        origin + ClickSchedule(tempo: tempo, rate: rate).frame(ofClick: j)
    }
}

private func character(_ text: String) -> Key { .character(UInt8(ascii: Unicode.Scalar(text)!)) }

@Suite struct PracticeTests {
    @Test func fiveUpsMakeTheNextUnwrittenBeatTheFirstAtTheNewTempo() throws {
        let run = PracticeRun(bpm: 120)
        let clicks = run.play(until: 480_000, keys: (0..<5).map { (100_000 + Int64($0) * 10, Key.up) })
        let old = Tempo(bpm: 120)!, new = Tempo(bpm: 125)!
        #expect(run.controller.tempo == new)
        // The keys reached the track at the block boundary after frame 100000; click 5 (120000) was not yet written.
        #expect(run.appliedAt.allSatisfy { $0 == 100_096 })
        #expect(clicks.map(\.click) == Array(0..<Int64(clicks.count)))  // none doubled or skipped
        for click in clicks {
            let expected = click.click <= 5 ? run.grid(old, from: 0, click.click) : run.grid(new, from: 120_000, click.click - 5)
            #expect(click.frame == expected, "click \(click.click)")
        }
        #expect(clicks.last!.click >= 20)
        let passage = try #require(run.passages.drain().last)
        #expect(passage.tempo == new && passage.firstClick == 5 && passage.frame(ofClick: 5) == 120_000)
        // Bells stay on every fourth beat across the change.
        let bells: [Int64] = clicks.filter(\.bell).map(\.click)
        let fourths: [Int64] = clicks.map(\.click).filter { $0 % 4 == 0 }
        #expect(bells == fourths)
    }

    @Test func tempoKeysStepMultiplyAndStayInRange() {
        let rate = SampleRate.standard
        let headroom = Headroom(sounds: [[0.5]])
        var controller = PracticeController(tempo: Tempo(bpm: 600)!, volume: 1, rate: rate, headroom: headroom)
        _ = controller.press(.pageUp, heardFrame: 0)
        #expect(controller.tempo == Tempo(bpm: 1000)!)
        #expect(controller.press(.up, heardFrame: 0) == .nothing)  // already at the top
        _ = controller.press(.left, heardFrame: 0)
        _ = controller.press(.down, heardFrame: 0)
        #expect(controller.tempo == Tempo(bpm: 994)!)
        controller = PracticeController(tempo: Tempo(millibeatsPerMinute: 92_500)!, volume: 1, rate: rate, headroom: headroom)
        _ = controller.press(.pageDown, heardFrame: 0)
        #expect(controller.tempo == Tempo(millibeatsPerMinute: 46_250)!)
        _ = controller.press(.right, heardFrame: 0)
        #expect(controller.tempo == Tempo(millibeatsPerMinute: 51_250)!)
        controller = PracticeController(tempo: Tempo(millibeatsPerMinute: 1_500)!, volume: 1, rate: rate, headroom: headroom)
        _ = controller.press(.pageDown, heardFrame: 0)
        #expect(controller.tempo == Tempo(bpm: 1)!)
    }

    @Test func tapsSetTheMeanTempoAndTheNextBeatFollowsTheLastTap() throws {
        let run = PracticeRun(bpm: 90)
        // Six taps near 0.5 s apart with jitter: the last five count.
        let jitter: [Int64] = [0, 700, -350, 410, -620, 230]
        let taps = jitter.enumerated().map { 100_000 + Int64($0.offset) * 24_000 + $0.element }
        let clicks = run.play(until: 600_000, keys: taps.map { ($0, character("t")) })
        let used = taps.suffix(5)
        let span = Double(used.last! - used.first!)
        let bpm: Double = 60 * 48_000 * Double(used.count - 1) / span
        let tempo = try #require(Tempo(millibeatsPerMinute: Int64((bpm * 10).rounded()) * 100))
        #expect(run.controller.tempo == tempo)
        #expect(abs(bpm - 120) < 1)
        // The next beat falls one new interval after the last tap, and the exact grid runs on from it.
        let lastTap = taps.last!
        let after = clicks.filter { $0.frame > run.appliedAt.last! }
        let first = try #require(after.first)
        #expect(first.frame == run.grid(tempo, from: lastTap, 1))
        for (j, click) in after.enumerated() { #expect(click.frame == run.grid(tempo, from: first.frame, Int64(j))) }
        #expect(clicks.map(\.click) == Array(0..<Int64(clicks.count)))
    }

    @Test func aPauseBetweenTapsStartsANewSeries() {
        let run = PracticeRun(bpm: 90)
        // Two taps, then more than 2 s, then one tap: the lone tap changes nothing.
        _ = run.play(until: 400_000, keys: [(100_000, character("t")), (124_000, character("t")), (250_000, character("t"))])
        #expect(run.controller.tempo == Tempo(bpm: 120)!)
        #expect(run.controller.taps == [250_000])
    }

    @Test func aMeterKeyTakesEffectAtTheNextBar() {
        let run = PracticeRun(bpm: 120)
        // "3" during bar 1 (click 1 at 24000): bar 1 keeps 4 beats, then bells every third beat; "0" later silences the bell.
        let clicks = run.play(until: 24_000 * 20, keys: [(30_000, character("3")), (24_000 * 9 + 5, character("0"))])
        let bells = clicks.filter(\.bell).map(\.click)
        #expect(bells == [0, 4, 7])  // "0" pressed during bar 3 (clicks 7-9): no bell from click 10 on
        let seven = clicks.first { $0.click == 7 }, fourteen = clicks.first { $0.click == 14 }
        #expect(seven?.bar == 2 && seven?.beatInBar == 0)
        #expect(fourteen?.bar == 4 && fourteen?.beatInBar == 1)  // bars still counted in threes
        for click in clicks { #expect(click.frame == Int64(click.click) * 24_000) }  // no frame moved
    }

    @Test func resumingStartsANewBarAtOnceBellFirst() {
        let run = PracticeRun(bpm: 120)
        let clicks = run.play(until: 400_000, keys: [(50_000, character(" ")), (200_000, character(" "))])
        let resumedAt = run.appliedAt[1]
        #expect(clicks.prefix(3).map(\.frame) == [0, 24_000, 48_000])
        #expect(!clicks.contains { $0.frame > 48_000 && $0.frame < resumedAt })
        let resumed = clicks.filter { $0.frame >= resumedAt }
        #expect(resumed.first?.frame == resumedAt)
        let first = resumed.first
        #expect(first?.click == 3 && first?.bar == 1 && first?.beatInBar == 0 && first?.bell == true)
        for (j, click) in resumed.enumerated() { #expect(click.frame == resumedAt + Int64(j) * 24_000) }
        #expect(resumed.filter(\.bell).map(\.click) == [3, 7, 11])
    }

    @Test func mutedClicksAreSilentButTheGridRunsOn() {
        let run = PracticeRun(bpm: 120)
        let clicks = run.play(until: 230_000, keys: [(50_000, character("m")), (150_000, character("m"))])
        #expect(clicks.map(\.click) == [0, 1, 2, 7, 8, 9])
        for click in clicks { #expect(click.frame == Int64(click.click) * 24_000) }
        #expect(run.controller.muted == false)
    }

    @Test func volumeKeysStepByATenthAndStayInRange() {
        let run = PracticeRun(bpm: 120)
        _ = run.play(until: 1_000, keys: [(0, character("-")), (0, character("-")), (0, character("+")), (0, character("+")), (0, character("+"))])
        #expect(run.controller.volumePercent == 100)
        #expect(run.track.gain == 1)
        _ = run.play(until: 2_000, keys: (0..<3).map { _ in (1_000, character("-")) })
        #expect(run.controller.volumePercent == 70)
        #expect(abs(run.track.gain - 0.7) < 1e-6)
    }

    @Test func aGainCommandReachesTheSoundsPlayed() {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { block.deallocate() }
        track.apply(.gain(0.5))
        track.render(into: block, count: 256)
        #expect(block[0] == sounds.bell.samples[0] * 0.5)  // click 0 rings the bell, at the new gain
    }

    @Test func applyingCommandsAllocatesNothing() {
        let run = PracticeRun(bpm: 120)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { block.deallocate() }
        let queue = LockFreeQueue<PracticeCommand>(capacity: 16)
        let commands: [PracticeCommand] = [.tempo(Tempo(bpm: 200)!, gain: 1), .beatsPerBar(3), .pause, .resume,
                                           .tap(Tempo(bpm: 100)!, tapFrame: 1_000, gain: 0.5), .mute(true), .mute(false), .gain(0.8)]
        for command in commands {
            metronome_counting_begin()
            queue.push(command)
            while let popped = queue.pop() { run.track.apply(popped) }
            for _ in 0..<40 { run.track.render(into: block, count: 256) }
            let allocations = metronome_counting_end()
            #expect(allocations == 0, "\(command)")
        }
        #expect(run.passages.drain().count >= 5)
    }

    @Test func thePendulumReachesItsExtremeAtEveryClickAcrossChanges() throws {
        let run = PracticeRun(bpm: 120)
        let keys: [(frame: Int64, key: Key)] = [(60_000, .up), (60_000, .pageUp), (200_000, character("t")), (221_000, character("t"))]
        let clicks = run.play(until: 500_000, keys: keys)
        var motion = PendulumMotion(schedule: run.track.schedule)
        for passage in run.passages.drain() { motion.history.append(passage) }
        #expect(clicks.count > 12)
        for click in clicks {
            let extreme = click.click % 2 == 0 ? 30.0 : -30.0
            #expect(abs(motion.angle(atFrame: Double(click.frame)) - extreme) < 1e-9, "click \(click.click)")
            // And on its way between clicks.
            #expect(abs(motion.angle(atFrame: Double(click.frame) + 100)) < 30)
        }
    }

    @Test func inAPauseTheRodFinishesItsSwingAndRests() {
        let run = PracticeRun(bpm: 120)
        _ = run.play(until: 300_000, keys: [(50_000, character(" "))])
        var motion = PendulumMotion(schedule: run.track.schedule)
        for passage in run.passages.drain() { motion.history.append(passage) }
        // Click 2 at 48000 (+30°); the rod still travels to -30° by 72000 and rests there.
        #expect(motion.angle(atFrame: 48_000) == 30)
        #expect(abs(motion.angle(atFrame: 60_000)) < 1e-9)
        #expect(motion.angle(atFrame: 72_000) == -30)
        #expect(motion.angle(atFrame: 250_000) == -30)
    }

    @Test func keysAreDecodedFromTerminalBytes() {
        let bytes: [UInt8] = [0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42, 0x1B, 0x5B, 0x35, 0x7E, 0x1B, 0x5B, 0x36, 0x7E,
                              0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43, 0x74, 0x20, 0x1B, 0x5B, 0x44]
        #expect(Key.decode(bytes) == [.up, .down, .pageUp, .pageDown, .right, character("t"), character(" "), .left])
        #expect(Key.decode([0x1B]) == [.escape])
        #expect(Key.decode([0x1B, 0x5B, 0x32, 0x7E, 0x71]) == [character("q")])  // Insert is passed over
    }
}
