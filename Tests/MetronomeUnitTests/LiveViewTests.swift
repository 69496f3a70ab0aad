import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomePendulum
@testable import MetronomeTerminal
@testable import MetronomeSession
import MetronomeTestSupport

/// The live loop's state machine on a manual clock, frame by frame: a click
/// track rendered a period at a time as the audio thread renders it, its
/// audible position published as a device with a buffer of latency would
/// publish it, and the view woken when it asks to be.
private final class LiveRig {
    let rate = SampleRate.standard
    let clock = ManualClock()
    let track: ClickTrack
    let position: AudiblePosition
    let clicks = ClickLog(capacity: 1 << 14)
    let passages = LockFreeQueue<Passage>(capacity: 256)
    let settings: Settings
    let start: MonotonicInstant
    /// The device's buffer: a frame written is heard this much later.
    static let period = 256, latency: Int64 = 1_024
    private let block = UnsafeMutablePointer<Float>.allocate(capacity: period)
    /// Periods the device has played (each publishes the position).
    private var played: Int64 = 0

    init(bpm: Int, meter: Meter = .common, style: PictureStyle = .ascii) {
        settings = Settings(tempo: Tempo(bpm: bpm)!, meter: meter, picture: Settings.Picture(style: style))
        let sounds = impulseSounds(rate: rate)
        track = ClickTrack(schedule: ClickSchedule(tempo: settings.tempo, meter: meter, rate: rate), beat: sounds.beat, bell: sounds.bell)
        track.clickLog = clicks
        track.passageLog = passages
        position = AudiblePosition(rate: rate)
        start = clock.now()
        render(upTo: Self.latency)
        position.publish(heard: 0, at: start, written: track.position)
    }

    deinit { block.deallocate() }

    func makeView(picture: Bool = true, tracing: Bool = false, inspecting: Bool = false) -> LiveView {
        let sounds = impulseSounds(rate: rate)
        let controller = PracticeController(tempo: settings.tempo, volume: 1, rate: rate,
                                            headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
        var view = LiveView(settings: settings, schedule: track.schedule, firstPassage: track.passage, rate: rate,
                            controller: controller, picture: picture, printsLines: !picture, planned: false,
                            latencyTenths: nil, tracing: tracing, inspecting: inspecting)
        if picture { view.resize(width: 80, height: 24, at: clock.now()) }
        return view
    }

    private func render(upTo frame: Int64) {
        while track.position < frame { track.render(into: block, count: Self.period) }
    }

    /// The frame heard at `instant` on the device's line: one frame every 1/rate s from the start.
    func lineFrame(at instant: MonotonicInstant) -> Int64 {
        (instant.nanoseconds - start.nanoseconds) * rate.framesPerSecond / 1_000_000_000
    }

    /// The instant the device finishes playing period `k`.
    private func periodEnd(_ k: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: start.nanoseconds + FrameTime.nanoseconds(inFrames: k * Int64(Self.period), at: rate.framesPerSecond))
    }

    /// Moves the clock to `instant`, the device playing (and the engine rendering) on the way.
    func advance(to instant: MonotonicInstant) {
        while periodEnd(played + 1) <= instant {
            played += 1
            let end = periodEnd(played)
            render(upTo: played * Int64(Self.period) + Self.latency)
            position.publish(heard: played * Int64(Self.period), at: end, written: track.position)
        }
        if instant > clock.now() { clock.advance(nanoseconds: instant.nanoseconds - clock.now().nanoseconds) }
    }

    /// What the loop does at a frame: hands the view what the audio thread logged, then asks for the frame.
    func frame(_ view: inout LiveView) -> LiveView.Frame {
        var logged: [Passage] = []
        while let passage = passages.pop() { logged.append(passage) }
        _ = view.receive(passages: logged)
        view.receive(clicks: clicks.drain())
        return view.frame(at: clock.now(), sample: position.snapshot(), underruns: 0)
    }

    /// What the loop does with a key's reactions.
    func press(_ keys: [Key], _ view: inout LiveView) -> [LiveView.Reaction] {
        let reactions = view.press(keys, at: clock.now(), sample: position.snapshot())
        for case .send(let command) in reactions { track.apply(command) }
        return reactions
    }

    /// Runs the view, frame after frame as it asks, until `end`; `each` sees every frame.
    func run(_ view: inout LiveView, until end: MonotonicInstant, _ each: (LiveView.Frame, inout LiveView) -> Void = { _, _ in }) {
        while view.nextWake <= end {
            advance(to: view.nextWake)
            let frame = frame(&view)
            each(frame, &view)
        }
        advance(to: end)
    }

    func after(seconds: Double) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: start.nanoseconds + Int64(seconds * 1e9))
    }
}

private func character(_ text: String) -> Key { .character(UInt8(ascii: Unicode.Scalar(text)!)) }

@Suite struct LiveViewTests {
    /// `--flash`: the frames less than 100 ms after a click, or half the time to the next at fast tempos,
    /// flash; a bar's first beat inverts the picture, another beat the status line.
    @Test func theFlashLastsATenthOfASecondOrHalfABeat() {
        for (bpm, length) in [(120, Int64(4_800)), (600, Int64(2_400))] {
            let history = PassageHistory(Passage(schedule: ClickSchedule(tempo: Tempo(bpm: bpm)!, rate: .standard)))
            let click: Int64 = 8, heard = history.passage(forClick: click).frame(ofClick: click)
            #expect(LiveView.flash(shown: heard, lastHeard: click, history: history, bell: true) == .bell)
            #expect(LiveView.flash(shown: heard + length - 1, lastHeard: click, history: history, bell: false) == .beat)
            #expect(LiveView.flash(shown: heard + length, lastHeard: click, history: history, bell: true) == nil, "\(bpm)")
            #expect(LiveView.flash(shown: 10, lastHeard: -1, history: history, bell: true) == nil)
        }
        expectRefused(["--flash", "--no-pendulum"], saying: "--flash is drawn on the picture: it does not go with --no-pendulum")
    }

    /// With --inspect the status line listens, then shows the notes the inspector matched and the
    /// picture marks the last, from the next frame on; the rod goes on at the heard frame's angle.
    @Test func theNotesHeardShowOnTheStatusLineAndThePictureMarksTheLast() {
        let rig = LiveRig(bpm: 100)
        var view = rig.makeView(inspecting: true)
        let motion = PendulumMotion(schedule: rig.track.schedule)
        var readout = PracticeReadout()
        func expectPicture(_ frame: LiveView.Frame, _ view: LiveView) {
            let beat = frame.shownFrame / 28_800
            let status = PendulumStatus(tempo: Tempo(bpm: 100)!, meter: .common, bar: beat / 4 + 1, beatInBar: Int(beat % 4) + 1,
                                        elapsedSeconds: frame.shownFrame / 48_000, underruns: 0, practice: readout)
            #expect(view.grid == PendulumPicture.draw(width: 80, height: 24, angle: motion.angle(atFrame: Double(frame.shownFrame)), status: status))
        }
        rig.run(&view, until: rig.after(seconds: 1)) { frame, view in expectPicture(frame, view) }
        #expect(view.grid.line(23).contains("  listening  "))
        view.heard(offsets: [-12.3, 4.06])
        for offset in [-12.3, 4.06] { readout.add(offsetMilliseconds: offset) }
        // The rod resting at the end of its swing: the view still wakes for the frame whose status changed.
        var shown = 0
        rig.run(&view, until: rig.after(seconds: 1.5)) { frame, view in
            if shown == 0 { #expect(frame.draw) }
            shown += 1
            expectPicture(frame, view)
        }
        #expect(shown > 0)
        #expect(view.grid.line(0).hasSuffix(" late 4.1 ms "), "\(view.grid.line(0))")
        #expect(view.grid.line(23).contains("mean -4.1 sd 11.6 ms"), "\(view.grid.line(23))")
        // Without --inspect nothing is said.
        var plain = rig.makeView()
        plain.heard(offsets: [3])
        rig.advance(to: plain.nextWake)
        _ = rig.frame(&plain)
        #expect(!plain.grid.line(23).contains("mean") && !plain.grid.line(0).contains("late"))
    }

    /// At every frame the rod is drawn at the eased angle of the frame heard
    /// then (on the device's line, within the frame the estimate rounds
    /// off), and the picture is the pendulum at that angle with that status.
    @Test func eachFrameDrawsTheEasedAngleOfTheHeardFrame() {
        let rig = LiveRig(bpm: 100)
        var view = rig.makeView()
        let motion = PendulumMotion(schedule: rig.track.schedule)
        var frames = 0
        rig.run(&view, until: rig.after(seconds: 3)) { frame, view in
            frames += 1
            let heard = rig.lineFrame(at: rig.clock.now())
            #expect(frame.shownFrame <= heard && frame.shownFrame >= heard - 1, "at \(heard)")
            #expect(frame.angle == motion.angle(atFrame: Double(frame.shownFrame)))
            // 100 bpm: a beat every 28,800 frames at 48 kHz.
            let beat = frame.shownFrame / 28_800
            let status = PendulumStatus(tempo: Tempo(bpm: 100)!, meter: .common, bar: beat / 4 + 1, beatInBar: Int(beat % 4) + 1,
                                        elapsedSeconds: frame.shownFrame / 48_000, underruns: 0)
            #expect(view.grid == PendulumPicture.draw(width: 80, height: 24, angle: motion.angle(atFrame: Double(frame.shownFrame)),
                                                      status: status))
        }
        // At most one a 60th of a second (the first at 0), and most of them: the rod moves most frames.
        #expect(frames > 90 && frames <= 181)
    }

    /// Keys become the controller's commands, timed by the frame heard when
    /// pressed; the audio thread's new passage reaches the picture.
    @Test func keysBecomeCommandsTimedByTheHeardFrame() throws {
        let rig = LiveRig(bpm: 120)
        var view = rig.makeView()
        rig.run(&view, until: rig.after(seconds: 1.01))
        let ups = rig.press(Array(repeating: Key.up, count: 5), &view)
        #expect(ups.count == 5)
        guard case .send(.tempo(let tempo, _)) = ups.last else { Issue.record("not a tempo: \(ups)"); return }
        #expect(tempo == Tempo(bpm: 125)!)
        // Tap: timed by the frame heard at the press, on the device's line.
        let tapReactions = rig.press([character("t")], &view)
        #expect(tapReactions.isEmpty)  // one tap is not a tempo yet
        rig.run(&view, until: rig.after(seconds: 1.51))
        let heard = rig.lineFrame(at: rig.clock.now())
        let tap = rig.press([character("t")], &view)
        guard case .send(.tap(let tapped, let tapFrame, _)) = tap.first else { Issue.record("not a tap: \(tap)"); return }
        #expect(tapFrame <= heard && tapFrame >= heard - 1)
        #expect(tapped == Tempo(bpm: 120)!)  // 24,000 frames apart at 48 kHz
        // The tap's passage is drawn: the status line says 120 (not 125) once it is heard.
        rig.run(&view, until: rig.after(seconds: 2.5))
        #expect(view.grid.line(23).contains("120"))
        // Space pauses, q and Esc stop.
        #expect(rig.press([character(" ")], &view) == [.send(.pause)])
        #expect(rig.press([character("q")], &view) == [.stop])
        #expect(rig.press([.escape], &view) == [.stop])
    }

    /// The help box is drawn at the next frame after `?`, however long the rod would have rested.
    @Test func aKeyIsDrawnAtTheNextFrame() {
        let rig = LiveRig(bpm: 120)
        var view = rig.makeView()
        rig.run(&view, until: rig.after(seconds: 1))
        _ = rig.press([character("?")], &view)
        #expect(view.nextWake.nanoseconds - rig.clock.now().nanoseconds <= view.period)
        rig.advance(to: view.nextWake)
        let frame = rig.frame(&view)
        #expect(frame.draw)
        #expect((0..<view.grid.height).contains { view.grid.line($0).contains("tap tempo") })
    }

    /// Without a terminal: a line a bar, printed as its first beat is heard (the loop wakes for
    /// each click as it is heard, and otherwise ten times a second at most).
    @Test func withoutAPictureALineABarAsItIsHeard() {
        let rig = LiveRig(bpm: 120, meter: Meter(beatsPerBar: 3, noteValue: 4)!)
        var view = rig.makeView(picture: false)
        var printed: [(text: String, heard: Int64)] = []
        var woken = 0
        rig.run(&view, until: rig.after(seconds: 4.6)) { frame, _ in
            woken += 1
            if !frame.lines.isEmpty { printed.append((frame.lines, rig.lineFrame(at: rig.clock.now()))) }
        }
        #expect(printed.map(\.text) == ["bar 1  120 bpm 3/4  0.0s\n", "bar 2  120 bpm 3/4  1.5s\n",
                                        "bar 3  120 bpm 3/4  3.0s\n", "bar 4  120 bpm 3/4  4.5s\n"])
        // Each within a millisecond of being heard.
        for (bar, line) in printed.enumerated() {
            let first = Int64(bar) * 72_000
            #expect(line.heard >= first && line.heard <= first + 48, "bar \(bar + 1) at \(line.heard)")
        }
        // 4.6 s: ten wakes a second and one a click (10 clicks) at most, not twenty a second (92).
        #expect(woken <= 46 + 10, "\(woken) wakes")
        #expect(view.finish() == "")
    }

    /// A resize draws the next frame whole, at the new size, at once.
    @Test func aResizeRedrawsAtTheNewSize() {
        let rig = LiveRig(bpm: 120)
        var view = rig.makeView()
        rig.run(&view, until: rig.after(seconds: 1))
        view.resize(width: 100, height: 30, at: rig.clock.now())
        #expect(view.nextWake.nanoseconds - rig.clock.now().nanoseconds <= view.period)
        rig.advance(to: view.nextWake)
        let frame = rig.frame(&view)
        #expect(frame.draw)
        #expect(view.grid.width == 100 && view.grid.height == 30)
    }

    /// Paused, the rod rests and only the status line's seconds move: the
    /// loop wakes at most ten times a second (to see signals and the end),
    /// not sixty, and draws once a second.
    @Test func pausedTheLoopWakesTenTimesASecondAndDrawsOnce() {
        let rig = LiveRig(bpm: 120)
        var view = rig.makeView()
        rig.run(&view, until: rig.after(seconds: 1))
        #expect(rig.press([character(" ")], &view) == [.send(.pause)])
        // The pause is heard within the buffer; the key keeps every frame for a second.
        rig.run(&view, until: rig.after(seconds: 3))
        var woken = 0, drawn = 0
        rig.run(&view, until: rig.after(seconds: 7)) { frame, _ in
            woken += 1
            if frame.draw { drawn += 1 }
        }
        #expect(woken <= 41)
        #expect(drawn == 4)
        #expect(view.grid.line(23).contains("PAUSED"))
    }

    /// At a slow tempo the rod rests for frames at each end of its swing: those
    /// frames are skipped, yet at every instant of the full-rate grid the
    /// picture on screen is the one a loop drawing every frame shows then.
    @Test(arguments: [(40, PictureStyle.ascii), (137, .ascii), (40, .unicode), (137, .unicode)])
    func skippedFramesLeaveTheScreenAsTheFullRateLoopWouldDrawIt(bpm: Int, style: PictureStyle) {
        let rig = LiveRig(bpm: bpm, style: style)
        var skipping = rig.makeView()
        var full = rig.makeView(tracing: true)  // the trace keeps every frame
        var frames = 0, woken = 0, drawn = 0, differing = 0
        let seconds = 10
        while frames < seconds * 60 {
            rig.advance(to: full.nextWake)
            let now = rig.clock.now()
            let sample = rig.position.snapshot()
            var logged: [Passage] = []
            while let passage = rig.passages.pop() { logged.append(passage) }
            _ = full.receive(passages: logged)
            _ = skipping.receive(passages: logged)
            _ = full.frame(at: now, sample: sample, underruns: 0)
            frames += 1
            if skipping.nextWake <= now {
                woken += 1
                if skipping.frame(at: now, sample: sample, underruns: 0).draw { drawn += 1 }
            }
            if skipping.grid != full.grid { differing += 1 }
        }
        #expect(differing == 0)
        #expect(drawn <= woken)
        // At 40 bpm the rod rests at the ends of its swing; at 137 in braille it moves every frame.
        if bpm == 40 { #expect(woken < frames) }
    }
}

extension LiveViewTests {
    /// The loop waits for keys and signals until the next wake, in whole milliseconds rounded up:
    /// a wait of 0 ms before a frame is due would spin.
    @Test func theWaitLastsUntilTheNextWakeRoundedUpToAMillisecond() {
        let rig = LiveRig(bpm: 120)
        var view = rig.makeView()
        rig.advance(to: view.nextWake)
        _ = rig.frame(&view)
        let wake = view.nextWake.nanoseconds
        func wait(before nanoseconds: Int64) -> Int { view.waitMilliseconds(at: MonotonicInstant(nanoseconds: wake - nanoseconds)) }
        #expect(wait(before: 16_666_667) == 17)
        #expect(wait(before: 2_000_000) == 2)
        #expect(wait(before: 1) == 1)
        #expect(wait(before: 0) == 0)
        #expect(wait(before: -5_000_000) == 0)
    }

    /// The trace records every frame of a picture while tracing, and none without a picture.
    @Test func theTraceRecordsEveryPictureMadeWhileTracing() {
        let rig = LiveRig(bpm: 40)
        var views = [rig.makeView(tracing: true), rig.makeView(), rig.makeView(picture: false)]
        var traced = [0, 0, 0], made = [0, 0, 0]
        let end = rig.after(seconds: 3)
        while let index = views.indices.min(by: { views[$0].nextWake < views[$1].nextWake }), views[index].nextWake <= end {
            rig.advance(to: views[index].nextWake)
            let frame = views[index].frame(at: rig.clock.now(), sample: rig.position.snapshot(), underruns: 0)
            made[index] += 1
            if frame.traced {
                traced[index] += 1
                #expect(frame.draw)
            }
        }
        #expect(traced == [made[0], 0, 0])
        #expect(made[0] >= 180)
    }
}
