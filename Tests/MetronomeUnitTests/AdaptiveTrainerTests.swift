import CAllocationCounter
import Testing
@testable import MetronomeCommandLine
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeListening
@testable import MetronomePendulum
@testable import MetronomeSession
import MetronomeTestSupport

/// The adaptive trainer (`--when-tight`): its rule, the bars judged from the inspector's notes,
/// the status line, the step landing at a bar line on the exact grid, and its options.
struct AdaptiveTrainerTests {
    static let rate = SampleRate.standard

    static func rule(start: Int = 100, step: Int64 = 5_000, bars: Int64 = 2, until: Int = 110, toleranceMicroseconds: Int64 = 10_000,
                     stepsBack: Bool = false) -> AdaptiveTrainer.Rule {
        AdaptiveTrainer.Rule(start: Tempo(bpm: start)!, step: step, barsPerStep: bars, until: Tempo(bpm: until)!,
                             toleranceMicroseconds: toleranceMicroseconds, stepsBack: stepsBack)
    }

    static let tight = AdaptiveTrainer.Verdict.tight(worstFrames: 0)
    static let loose = AdaptiveTrainer.Verdict.off(beatInBar: 2, offsetFrames: 1_000)

    // MARK: The rule

    /// M tight bars in a row at the trainer's tempo step it on; bars played before the step landed
    /// are passed over; a loose bar starts the count again and holds the tempo; `until` is kept.
    @Test func tightBarsStepOnLooseOnesHoldAndBarsOfAnOldTempoAreNotCounted() {
        var trainer = AdaptiveTrainer(Self.rule())
        let t100 = Tempo(bpm: 100)!, t105 = Tempo(bpm: 105)!, t110 = Tempo(bpm: 110)!
        #expect(trainer.judge(bar: 0, playedAt: t100, verdict: Self.tight) == .counted)
        #expect(trainer.judge(bar: 1, playedAt: t100, verdict: Self.loose) == .held)
        #expect(trainer.tightBars == 0)
        #expect(trainer.judge(bar: 2, playedAt: t100, verdict: Self.tight) == .counted)
        #expect(trainer.judge(bar: 3, playedAt: t100, verdict: Self.tight) == .step(t105))
        #expect(trainer.stepPending)
        // Bar 4 still played at 100: the step lands at bar 5.
        #expect(trainer.judge(bar: 4, playedAt: t100, verdict: Self.tight) == .passedOver)
        #expect(trainer.stepPending)
        #expect(trainer.judge(bar: 5, playedAt: t105, verdict: Self.tight) == .counted)
        #expect(!trainer.stepPending)
        #expect(trainer.judge(bar: 6, playedAt: t105, verdict: Self.tight) == .step(t110))
        #expect(trainer.judge(bar: 8, playedAt: t110, verdict: Self.tight) == .counted)
        #expect(trainer.judge(bar: 9, playedAt: t110, verdict: Self.tight) == .counted)
        #expect(trainer.reached && trainer.tempo == t110)
        // Without --step-back a loose bar at the top holds it there.
        #expect(trainer.judge(bar: 10, playedAt: t110, verdict: .missed(beatInBar: 0)) == .held)
        #expect(trainer.tempo == t110)
    }

    /// With --step-back a loose bar moves the tempo a step back, never past the start; the last
    /// step is cut short at `until`; a slowing trainer steps back up.
    @Test func aLooseBarStepsBackNeverPastTheStartAndTheLastStepStopsAtUntil() {
        var trainer = AdaptiveTrainer(Self.rule(step: 4_000, bars: 1, until: 107, stepsBack: true))
        let t100 = Tempo(bpm: 100)!, t104 = Tempo(bpm: 104)!, t107 = Tempo(bpm: 107)!
        #expect(trainer.judge(bar: 0, playedAt: t100, verdict: Self.loose) == .held)
        #expect(trainer.judge(bar: 1, playedAt: t100, verdict: Self.tight) == .step(t104))
        #expect(trainer.next == t107)
        #expect(trainer.judge(bar: 3, playedAt: t104, verdict: Self.tight) == .step(t107))
        #expect(trainer.judge(bar: 5, playedAt: t107, verdict: .missed(beatInBar: 1)) == .stepBack(Tempo(bpm: 103)!))
        #expect(trainer.judge(bar: 6, playedAt: t107, verdict: Self.tight) == .passedOver)

        var slowing = AdaptiveTrainer(AdaptiveTrainer.Rule(start: Tempo(bpm: 100)!, step: -10_000, barsPerStep: 1, until: Tempo(bpm: 80)!,
                                                           toleranceMicroseconds: 5_000, stepsBack: true))
        #expect(slowing.judge(bar: 0, playedAt: t100, verdict: Self.tight) == .step(Tempo(bpm: 90)!))
        #expect(slowing.judge(bar: 2, playedAt: Tempo(bpm: 90)!, verdict: Self.loose) == .stepBack(t100))
        #expect(slowing.judge(bar: 4, playedAt: t100, verdict: Self.loose) == .held)
    }

    /// The window is exact: 10 ms is 480 frames at 48 kHz, 441 at 44.1 kHz; 7.5 ms at 44.1 kHz is 330.75 frames.
    @Test func theWindowIsExactInFrames() {
        let ten = Self.rule(), sevenAndAHalf = Self.rule(toleranceMicroseconds: 7_500)
        #expect(ten.isTight(offsetFrames: 480, rate: .standard) && ten.isTight(offsetFrames: -480, rate: .standard))
        #expect(!ten.isTight(offsetFrames: 481, rate: .standard) && !ten.isTight(offsetFrames: -481, rate: .standard))
        let cd = SampleRate(44_100)!
        #expect(ten.isTight(offsetFrames: 441, rate: cd) && !ten.isTight(offsetFrames: 442, rate: cd))
        #expect(sevenAndAHalf.isTight(offsetFrames: 330, rate: cd) && !sevenAndAHalf.isTight(offsetFrames: 331, rate: cd))
        #expect(!ten.isTight(offsetFrames: .min, rate: .standard) && !ten.isTight(offsetFrames: .max, rate: .standard))
    }

    // MARK: Judging bars

    static func clicks(bars: Int64, beats: Int64 = 3, interval: Int64 = 24_000, countIn: Int64 = 0) -> [StartedClick] {
        (0..<((bars + countIn) * beats)).map { click in
            StartedClick(click: click, frame: click * interval, bar: click / beats - countIn, beatInBar: Int32(click % beats),
                         sound: click % beats == 0 ? .bell : .beat)
        }
    }

    static func match(_ click: StartedClick, offset: Int64) -> NoteMatch {
        NoteMatch(target: .init(frame: click.frame, index: click.click, beatOfBar: Int(click.beatInBar)), offsetFrames: offset, rate: rate)
    }

    /// A bar is judged once the inspector has heard up to the first click after it; a click with no
    /// note is missed, one whose note is outside the window is off; the count-in is not judged.
    @Test func aBarIsJudgedOnceItsLastNoteCanNoLongerCome() {
        var judge = BarJudge(rule: Self.rule(), rate: Self.rate)
        let clicks = Self.clicks(bars: 3, countIn: 1)
        judge.receive(clicks: clicks)
        for click in clicks where click.click != 10 { judge.heard(Self.match(click, offset: click.click == 5 ? -481 : 100)) }
        // The count-in's bar passes unjudged; bar 0 waits for click 6.
        #expect(judge.judged(through: 6 * 24_000 - 1) == [])
        #expect(judge.judged(through: 6 * 24_000) == [.init(bar: 0, firstClick: 3, verdict: .off(beatInBar: 2, offsetFrames: -481))])
        #expect(judge.judged(through: 9 * 24_000 + 5) == [.init(bar: 1, firstClick: 6, verdict: .tight(worstFrames: 100))])
        // The last bar is judged when the next bar's first click is heard: none comes here.
        #expect(judge.judged(through: .max) == [])
        judge.receive(clicks: [StartedClick(click: 12, frame: 12 * 24_000, bar: 3, beatInBar: 0, sound: .bell)])
        #expect(judge.judged(through: .max) == [.init(bar: 2, firstClick: 9, verdict: .missed(beatInBar: 1))])
    }

    // MARK: The step at a bar line

    /// `.tempoFromNextBar` asked mid-bar lands on the next bar line, whose frame is the old grid's;
    /// the new grid counts from it exactly; a tempo key before it cancels it. Allocates nothing.
    @Test func theStepLandsAtTheNextBarLineOnTheExactGrid() {
        let sounds = impulseSounds(rate: Self.rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 100)!, meter: .common, rate: Self.rate), beat: sounds.beat, bell: sounds.bell)
        let log = ClickLog(capacity: 1 << 12)
        track.clickLog = log
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 100)
        defer { buffer.deallocate() }
        // Into beat 2 of bar 1 (beat 1 at 28 800): the step waits for beat 4 (bar 2).
        while track.position < 30_000 { track.render(into: buffer, count: 100) }
        metronome_counting_begin()
        track.apply(.tempoFromNextBar(Tempo(millibeatsPerMinute: 107_300)!, gain: 0.5))
        while track.position < 400_000 { track.render(into: buffer, count: 100) }
        #expect(metronome_counting_end() == 0)
        let frames = log.drain().filter { $0.index == 0 }.map(\.frame)
        // floor(k · 60 · 48000 / bpm + 1/2), from the bar line at 4 · 28 800.
        let before: [Int64] = (0..<4).map { Int64($0) * 28_800 }
        let after: [Int64] = (0..<Int64(frames.count - 4)).map { (beat: Int64) -> Int64 in 115_200 + (2 * beat * 2_880_000_000 + 107_300) / (2 * 107_300) }
        let expected = before + after
        #expect(frames == expected)
        #expect(track.passage.tempo == Tempo(millibeatsPerMinute: 107_300)! && track.gain == 0.5)

        // A key's tempo after the ask, before the bar line: the key's, and no step at the bar line.
        let keyed = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 100)!, meter: .common, rate: Self.rate), beat: sounds.beat, bell: sounds.bell)
        while keyed.position < 30_000 { keyed.render(into: buffer, count: 100) }
        keyed.apply(.tempoFromNextBar(Tempo(bpm: 110)!, gain: 1))
        keyed.apply(.tempo(Tempo(bpm: 90)!, gain: 1))
        while keyed.position < 400_000 { keyed.render(into: buffer, count: 100) }
        #expect(keyed.passage.tempo == Tempo(bpm: 90)!)
    }

    // MARK: The view

    static func view(rule: AdaptiveTrainer.Rule, picture: Bool = true) -> (LiveView, ClickTrack) {
        let sounds = impulseSounds(rate: rate)
        let settings = Settings(tempo: rule.start, meter: Meter(beatsPerBar: 3, noteValue: 4)!, program: .adaptive(rule))
        let track = ClickTrack(schedule: ClickSchedule(tempo: settings.tempo, meter: settings.meter, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let controller = PracticeController(tempo: settings.tempo, volume: 1, rate: rate, headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
        var view = LiveView(settings: settings, schedule: track.schedule, firstPassage: track.passage, rate: rate, controller: controller,
                            picture: picture, printsLines: !picture, planned: false, latencyTenths: nil, tracing: false, inspecting: true)
        if picture { view.resize(width: 120, height: 24, at: MonotonicInstant(nanoseconds: 0)) }
        return (view, track)
    }

    /// The view judges the bars as the notes come, asks for each step from the next bar line, and
    /// says on the status line what the trainer waits for; a tempo key stops it.
    @Test func theViewAsksForStepsAndTheStatusLineSaysWhy() {
        let rule = Self.rule(step: 5_000, bars: 2, until: 110, stepsBack: true)
        var (view, _) = Self.view(rule: rule)
        // 100 bpm in 3/4: a beat every 28 800 frames.
        let clicks = Self.clicks(bars: 6, interval: 28_800)
        view.receive(clicks: clicks)
        func text() -> String { view.trainerReadout?.text ?? "" }
        #expect(text() == "tight 0/2 → 105")
        var result = view.judge(clicks[0..<3].map { Self.match($0, offset: 0) }, through: 3 * 28_800)
        #expect(result.reactions == [] && text() == "tight 1/2 → 105")
        result = view.judge(clicks[3..<6].map { Self.match($0, offset: $0.click == 4 ? 1_200 : 0) }, through: 6 * 28_800)
        #expect(result.reactions == [] && text() == "holding 100: bar 2 beat 2 +25.0 ms")
        #expect(result.judged.map(\.decision) == [.held])
        result = view.judge(clicks[6..<12].map { Self.match($0, offset: -100) }, through: 12 * 28_800)
        let gain = view.controller.gain(for: Tempo(bpm: 105)!)
        #expect(result.reactions == [.send(.tempoFromNextBar(Tempo(bpm: 105)!, gain: gain))])
        #expect(text() == "→ 105 next bar")
        // Not yet landed: the status line still waits; a miss at the new tempo would step back, but the key comes first.
        let reactions = view.press([.up], at: MonotonicInstant(nanoseconds: 0), sample: (heard: 0, at: MonotonicInstant(nanoseconds: 0), written: 0))
        #expect(reactions.count == 1 && text() == "trainer off: keys lead")
        result = view.judge(clicks[12..<15].map { Self.match($0, offset: 0) }, through: 15 * 28_800)
        #expect(result.reactions == [] && result.judged == [])
    }

    /// Without a picture, a line for each step, hold and step back.
    @Test func withoutAPictureEachStepAndHoldIsALine() {
        let rule = Self.rule(step: 5_000, bars: 1, until: 110, toleranceMicroseconds: 5_000, stepsBack: true)
        let readout = TrainerReadout(trainer: AdaptiveTrainer(rule), rate: Self.rate)
        #expect(readout.line(for: .step(Tempo(bpm: 105)!), bar: 3, verdict: Self.tight) == "trainer: 105 bpm from the next bar: 1 tight bar within 5 ms")
        #expect(readout.line(for: .held, bar: 3, verdict: .missed(beatInBar: 2)) == "trainer: holding 100 bpm: bar 4 beat 3 missed")
        #expect(readout.line(for: .stepBack(Tempo(bpm: 100)!), bar: 0, verdict: .off(beatInBar: 0, offsetFrames: -240))
                == "trainer: back to 100 bpm from the next bar: bar 1 beat 1 -5.0 ms")
        #expect(readout.line(for: .counted, bar: 3, verdict: Self.tight) == nil)
        #expect(TrainerReadout.milliseconds(7_500) == "7.5" && TrainerReadout.milliseconds(250) == "0.25" && TrainerReadout.milliseconds(12_000) == "12")
    }

    // MARK: The options

    /// `--when-tight` makes `--step`/`--until` adaptive with `--inspect`; what it needs, and what needs it, is refused in one line (64).
    @Test func theOptionsMakeTheTrainerAdaptiveAndRefuseWhatDoesNotGo() throws {
        let settings = try parsedSettings("--bpm", "100", "--step", "5/4", "--until", "140", "--when-tight", "12.5", "--step-back", "--inspect")
        #expect(settings.program == .adaptive(Self.rule(step: 5_000, bars: 4, until: 140, toleranceMicroseconds: 12_500, stepsBack: true)))
        #expect(settings.plan == nil && settings.adaptiveTrainer?.barsPerStep == 4)
        let plain = try parsedSettings("--bpm", "100", "--step", "5/4", "--until", "140", "--when-tight", "10", "--inspect")
        #expect(plain.adaptiveTrainer?.stepsBack == false)
        let trainer = ["--bpm", "100", "--step", "5/4", "--until", "140"]
        for (arguments, message) in [(["--when-tight", "10", "--inspect"], "--when-tight makes the speed trainer adaptive"),
                                     (["--bpm", "100", "--step", "5/4", "--when-tight", "10", "--inspect"], "--when-tight makes the speed trainer adaptive"),
                                     (trainer + ["--when-tight", "10"], "--when-tight moves the tempo by what it hears: give --inspect"),
                                     (trainer + ["--when-tight", "10", "--calibrate"], "--when-tight moves the tempo by what it hears"),
                                     (trainer + ["--step-back"], "--step-back is for the adaptive trainer"),
                                     (trainer + ["--when-tight", "0", "--inspect"], "--when-tight '0' is not a window in ms from 0.1 to 500"),
                                     (trainer + ["--when-tight", "-5", "--inspect"], "--when-tight '-5' is not a window"),
                                     (trainer + ["--when-tight", "1e1", "--inspect"], "--when-tight '1e1' is not a window"),
                                     (["--setlist", "songs.txt", "--when-tight", "10", "--inspect"], "--when-tight makes the speed trainer adaptive")] {
            _ = expectRefused(arguments, saying: message)
        }
        let result = try run(metronomeBinary(), trainer + ["--when-tight", "10"])
        #expect(result.status == 64 && result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
    }
}
