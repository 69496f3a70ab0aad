import MetronomeSupport
import MetronomeTiming
import MetronomeOSC
import MetronomeAudio
import MetronomeListening
import MetronomePendulum
import MetronomeTerminal

/// What the live loop shows and does, as a pure state machine: events in (a
/// frame due with the audio position, keys, a resize, the clicks and passages
/// the audio thread logged), the picture, plain lines, commands and the next
/// wake out. No clock, no terminal, no I/O: tests drive it on a manual clock.
///
/// Frames sit on a steady grid of `1/fps`; one whose picture would not change
/// is skipped (`scheduleNext`). It looks ahead only while nothing it cannot
/// foresee may change the picture: not while tracing (the trace records every
/// frame), not in a run with a plan or Link (`planned`), not for a second
/// after a key (whose passage is on its way).
struct LiveView {
    /// A snapshot of the audible position (`AudiblePosition.snapshot()`).
    typealias Sample = (heard: Int64, at: MonotonicInstant, written: Int64)

    /// What a key asks of the loop.
    enum Reaction: Equatable {
        case send(PracticeCommand)
        case stop
        /// A setlist's next (+1) or previous (-1) song.
        case song(Int)
    }

    /// One frame's work for the loop.
    struct Frame {
        /// Whether `grid` changed since it was last drawn (or must be drawn: tracing, a resize).
        var draw: Bool
        /// The frame shown and the rod's angle, for the trace.
        var shownFrame: Int64
        var angle: Double
        /// Plain lines to print (without a picture).
        var lines: String
        /// Whether the trace records the frame: every picture made while tracing.
        var traced = false
        /// `--flash`: what the picture flashes for, if it does.
        var flash: Flash?
    }

    /// What a `--flash` picture flashes for: a bell inverts it whole, another beat its status line.
    enum Flash: String {
        case bell, beat
    }

    let picture: Bool
    /// Without a picture: whether heard bars become plain lines.
    let printsLines: Bool
    /// Whether a plan (a tempo map, the trainer) may hand over passages the view cannot foresee.
    let planned: Bool
    let verbosity: Settings.Verbosity
    let style: PictureStyle
    let flash: Bool
    /// What the picture last made (`probe`) flashes for.
    private var probeFlash: Flash?
    let countInBars: Int64
    let visualOffsetFrames: Int64
    let latencyTenths: Int64?
    let tracing: Bool
    /// Nanoseconds between frames on the grid.
    let period: Int64
    let framesPerSecond: Int

    private(set) var controller: PracticeController
    private(set) var motion: PendulumMotion
    private(set) var helpShown = false
    /// Whether `n` and `p` move through a setlist, and the song the status line shows (`3/12 Waltz`).
    let hasSongs: Bool
    private(set) var song: String?
    /// Without a picture: songs not yet heard, each printed as a line where it starts.
    private var pendingSongs: [(frame: Int64, place: String)] = []
    private var heardClock: HeardClock
    /// The picture as last made (what the screen shows once drawn), and a scratch one to make the next in.
    private(set) var grid = TextGrid(width: 0, height: 0)
    private var probe = TextGrid(width: 0, height: 0)
    /// The part of the picture that never moves, drawn once a size: each frame starts from a copy of it.
    private var body = TextGrid(width: 0, height: 0)
    private var size = (width: 80, height: 24)
    /// The status line while its status is unchanged: one for the frames made, one for looking ahead.
    private var statusCache: (status: PendulumStatus?, line: String) = (nil, "")
    private var probeCache: (status: PendulumStatus?, line: String) = (nil, "")
    /// What `probe` holds after looking ahead: the picture of this shown frame, with these underruns,
    /// unless `changes` moved since (a passage, a key, a resize): then the frame needs no making.
    private var ahead: (shown: Int64, angle: Double, underruns: Int, changes: Int)?
    private var changes = 0
    /// Whether the next frame must be drawn whatever it shows.
    private var mustDraw = true
    /// Clicks started but not yet heard, for the plain lines.
    private var pending: [StartedClick] = []
    private var tempoChanges: TempoChanges
    /// Until this instant every frame of the grid is made (a key's change is on its way).
    private var fullRateUntil = MonotonicInstant(nanoseconds: .min)
    /// The next frame on the grid, and the instant the loop should wake for a frame.
    private var nextFrame: MonotonicInstant?
    private(set) var nextWake = MonotonicInstant(nanoseconds: .min)
    /// The other peers of the Ableton Link session, for the status line and the lines; nil without Link.
    private(set) var linkPeers: Int?
    /// Whether the run plays in a Link session, and shares its start and stop.
    let linked: Bool
    let sharesStartStop: Bool
    /// Whether the session's shared transport plays (what PAUSED shows then, not the keys' last Space).
    private(set) var linkTransportPlays = false
    private(set) var midiClockPlays: Bool?
    /// What the practice inspector heard, for the status line and the picture's mark; nil without `--inspect`.
    private(set) var practice: PracticeReadout?
    /// `--when-tight`: the adaptive trainer, the bars it judges, and what the status line says of it.
    private(set) var trainer: AdaptiveTrainer?
    private var judge: BarJudge?
    /// A tempo key took the tempo over: the trainer has stopped.
    private(set) var trainerStopped = false
    /// What the status line says of the trainer.
    var trainerReadout: TrainerReadout? {
        guard let trainer, let judge else { return nil }
        return TrainerReadout(trainer: trainer, rate: judge.rate, stopped: trainerStopped)
    }
    /// Without a picture: the trainer's stop, said with the next lines.
    private var pendingTrainerLines = ""

    init(settings: Settings, schedule: ClickSchedule, firstPassage: Passage, rate: SampleRate, controller: PracticeController,
         picture: Bool, printsLines: Bool, planned: Bool, latencyTenths: Int64?, tracing: Bool, inspecting: Bool = false,
         exactPositions: Bool = false) {
        self.picture = picture
        practice = inspecting ? PracticeReadout() : nil
        if inspecting, let rule = settings.adaptiveTrainer {
            trainer = AdaptiveTrainer(rule)
            judge = BarJudge(rule: rule, rate: rate)
        }
        self.printsLines = printsLines
        self.planned = planned
        verbosity = settings.verbosity
        style = settings.picture.style
        flash = settings.picture.flash
        countInBars = settings.rhythm.countInBars
        visualOffsetFrames = settings.picture.visualOffsetMicroseconds * rate.framesPerSecond / 1_000_000
        self.latencyTenths = latencyTenths
        self.tracing = tracing
        linked = settings.link != nil
        sharesStartStop = settings.link?.startStopSync ?? false
        // Without a picture the clicks time the wakes (`scheduleLines`); this grid paces only
        // the wake after a key: 20 a second will do.
        framesPerSecond = picture ? settings.picture.framesPerSecond : 20
        period = 1_000_000_000 / Int64(framesPerSecond)
        self.controller = controller
        self.controller.awaitsEchoes = settings.link == nil
        hasSongs = settings.songs != nil
        song = settings.songs.map { $0.place(of: $0.current) }
        if printsLines, let song { pendingSongs.append((0, song)) }
        heardClock = HeardClock(rate: rate, exact: exactPositions)
        tempoChanges = TempoChanges(after: firstPassage)
        motion = PendulumMotion(schedule: schedule, amplitude: settings.picture.swingAngle, easing: settings.picture.easing,
                                clickAt: settings.picture.clickAt)
    }

    /// The terminal's size (at the start, after a resize): the next frame is drawn whole.
    mutating func resize(width: Int, height: Int, at now: MonotonicInstant) {
        size = (width, height)
        changes += 1
        mustDraw = true
        wakeForNextFrame(after: now)
    }

    /// Back from a stop (Ctrl-Z): the frames start again from now.
    mutating func resume(at now: MonotonicInstant) {
        nextFrame = nil
        mustDraw = true
        nextWake = now
    }

    /// The song now playing (a setlist's, `3/12 Waltz`) from `frame`: the status line shows it,
    /// and without a picture a line says it once heard.
    mutating func show(song: String, from frame: Int64) {
        self.song = song
        if printsLines { pendingSongs.append((frame, song)) }
        changes += 1
        mustDraw = true
    }

    /// New passages from the audio thread: the picture follows them. Returns
    /// each new grid (a new tempo, a tap, a resume) at its first click, for the trace.
    /// With Link, a passage made at a click carries the session's tempo as it
    /// was then, which a key pressed since may already have moved: for a second
    /// after a key (received `at`) the keys step from their own tempo.
    mutating func receive(passages: [Passage], at now: MonotonicInstant = MonotonicInstant(nanoseconds: .max)) -> [(tempo: Tempo, frame: Int64)] {
        var changes: [(tempo: Tempo, frame: Int64)] = []
        if !passages.isEmpty { self.changes += 1 }
        let keyRecent = now < fullRateUntil
        for passage in passages {
            motion.history.append(passage)
            // The tempo keys step from the tempo playing, which a plan or a Link peer moves
            // (a Link session's resting passage carries its tempo too); a second after a key, the
            // keys' own tempi as they come back, in a Link session nothing.
            if !(linked && keyRecent) { controller.follow(passage.tempo, moves: !passage.paused || linked, awaiting: keyRecent) }
            if let frame = tempoChanges.firstFrame(ofChangeTo: passage) { changes.append((passage.tempo, frame)) }
        }
        return changes
    }

    /// Following a MIDI clock, whether it plays: the status line says when the clicks wait for it.
    mutating func midiClock(plays: Bool?) {
        guard plays != midiClockPlays else { return }
        midiClockPlays = plays
        changes += 1
    }

    /// The Link session's peers now, and whether its transport plays: the status line shows them.
    mutating func link(peers: Int, transportPlays: Bool = false) {
        guard peers != linkPeers || transportPlays != linkTransportPlays else { return }
        linkPeers = peers
        linkTransportPlays = transportPlays
        changes += 1
    }

    /// Notes the practice inspector matched, each `offsets` ms from its click: the status line and the mark follow.
    mutating func heard(offsets: [Double]) {
        guard !offsets.isEmpty, practice != nil else { return }
        for offset in offsets { practice?.add(offsetMilliseconds: offset) }
        changes += 1
    }

    /// Clicks the audio thread started: without a picture, the beats become lines once heard.
    mutating func receive(clicks: [StartedClick]) {
        if printsLines { pending += clicks.filter(\.sound.isBeat) }
        judge?.receive(clicks: clicks)
    }

    /// A bar the adaptive trainer judged, and what it did.
    struct TrainerJudgement: Equatable {
        let judgement: BarJudge.Judgement
        let playedAt: Tempo
        let decision: AdaptiveTrainer.Decision
    }

    /// Notes the practice inspector matched, and how far it has heard (every note up to output
    /// frame `through` is among those matched so far): the adaptive trainer judges the bars now
    /// whole, each against the tempo it was played at, and asks for its steps from the next bar
    /// line. Returns the commands, the bars judged (for the trace) and, without a picture, a
    /// line for each step or hold.
    mutating func judge(_ matches: [NoteMatch], through: Int64?) -> (reactions: [Reaction], judged: [TrainerJudgement], lines: String) {
        // Mutated in place through the optionals: a copy would copy the targets every frame.
        guard judge != nil, let before = trainer, !trainerStopped else { return ([], [], "") }
        for match in matches { judge?.heard(match) }
        var reactions: [Reaction] = [], judged: [TrainerJudgement] = [], lines = ""
        for judgement in through.flatMap({ judge?.judged(through: $0) }) ?? [] {
            let playedAt = tempo(ofClick: judgement.firstClick)
            guard let decision = trainer?.judge(bar: judgement.bar, playedAt: playedAt, verdict: judgement.verdict) else { continue }
            judged.append(TrainerJudgement(judgement: judgement, playedAt: playedAt, decision: decision))
            switch decision {
            case .step(let tempo), .stepBack(let tempo):
                reactions.append(.send(.tempoFromNextBar(tempo, gain: controller.gain(for: tempo))))
            case .counted, .held, .passedOver:
                break
            }
            if printsLines, let line = trainerReadout?.line(for: decision, bar: judgement.bar, verdict: judgement.verdict) { lines += line + "\n" }
        }
        if trainer != before { changes += 1 }
        return (reactions, judged, lines)
    }

    /// A tempo key, a tap or a control bound to one took the tempo over: the adaptive trainer stops.
    private mutating func stopTrainer(for command: PracticeCommand) {
        switch command {
        case .tempo, .tap:
            guard trainer != nil, !trainerStopped else { return }
            trainerStopped = true
            if printsLines { pendingTrainerLines += "trainer: off, the keys set the tempo\n" }
        default:
            break
        }
    }

    /// Keys pressed at `now`: practice keys become commands timed by the frame heard now.
    mutating func press(_ keys: [Key], at now: MonotonicInstant, sample: Sample) -> [Reaction] {
        guard !keys.isEmpty else { return [] }
        return press(keys, heardFrame: heardClock.heardFrame(at: now, sample: sample), at: now)
    }

    /// What a control message asks (an OSC message), as its key would, a tap counting from the frame heard now.
    mutating func respond(to response: MIDIMap.Response, at now: MonotonicInstant, sample: Sample) -> [Reaction] {
        respond(to: response, heardFrame: heardClock.heardFrame(at: now, sample: sample), at: now)
    }

    /// What a MIDI message bound in the map does (`--midi-in`), as its key
    /// would; a tap counts from `heardFrame`, the frame heard when it came in.
    mutating func respond(to response: MIDIMap.Response, heardFrame: Int64, at now: MonotonicInstant) -> [Reaction] {
        let key: Key
        switch response {
        case .tempo(let tempo):
            return outcome(controller.set(tempo), at: now)
        case .action(let action):
            switch action {
            case .start, .stop: return outcome(controller.play(action == .start), at: now)
            case .tap: key = .character(UInt8(ascii: "t"))
            case .startStop: key = .character(UInt8(ascii: " "))
            case .nextSong: key = .character(UInt8(ascii: "n"))
            case .previousSong: key = .character(UInt8(ascii: "p"))
            case .faster: key = .up
            case .slower: key = .down
            case .muchFaster: key = .right
            case .muchSlower: key = .left
            case .double: key = .pageUp
            case .half: key = .pageDown
            case .mute: key = .character(UInt8(ascii: "m"))
            case .louder: key = .character(UInt8(ascii: "+"))
            case .softer: key = .character(UInt8(ascii: "-"))
            case .meter(let beats): key = .character(UInt8(ascii: "0") + UInt8(beats))
            case .tempo: return []
            }
        }
        return press([key], heardFrame: heardFrame, at: now)
    }

    /// A volume asked for outright (OSC), 0 to 100.
    mutating func set(volumePercent: Int, at now: MonotonicInstant) -> [Reaction] {
        outcome(controller.set(volumePercent: volumePercent), at: now)
    }

    /// Beats per bar from the next bar on (OSC's meter, the note value kept); 0 silences the bell, as the key 0.
    mutating func set(beatsPerBar beats: Int, at now: MonotonicInstant) -> [Reaction] {
        outcome(.command(.beatsPerBar(beats)), at: now)
    }

    /// The passage heard at `now`: its tempo and meter.
    mutating func heardPassage(at now: MonotonicInstant, sample: Sample) -> Passage {
        motion.history.passage(atFrame: heardClock.heardFrame(at: now, sample: sample))
    }

    /// When `frame` will be heard on the monotonic clock, on the line the picture follows (nil before the first sample).
    func instant(whenHeard frame: Int64) -> MonotonicInstant? { heardClock.instant(whenHeard: frame) }

    /// The tempo click `click` plays at, of the passages received so far.
    func tempo(ofClick click: Int64) -> Tempo { motion.history.passage(forClick: click).tempo }

    func meter(ofClick click: Int64) -> Meter { motion.history.passage(forClick: click).meter }

    /// Whether the clicks play: not paused, or with Link's start and stop shared, the session's transport playing.
    var plays: Bool { sharesStartStop ? linkTransportPlays : !controller.paused }

    /// What `/metronome/query` reports at `now`: the status line's values.
    mutating func status(at now: MonotonicInstant, sample: Sample, underruns: Int) -> MetronomeStatus {
        let heard = heardClock.heardFrame(at: now, sample: sample)
        let history = motion.history
        let passage = history.passage(atFrame: heard)
        let last = history.lastClick(atOrBefore: heard)
        let position = last >= 0 ? history.passage(forClick: last).bar(ofClick: last) : nil
        return MetronomeStatus(tempo: Float(passage.tempo.millibeatsPerMinute) / 1_000, beatsPerBar: passage.meter.beatsPerBar,
                               noteValue: passage.meter.noteValue, bar: position.map { Int(clamping: $0.bar + 1) } ?? 0,
                               beat: position.map { Int($0.beat) + 1 } ?? 0, playing: sharesStartStop ? linkTransportPlays : !controller.paused,
                               muted: controller.muted, volume: Float(controller.volumePercent) / 100, underruns: underruns,
                               song: song ?? "", linkPeers: linkPeers ?? -1)
    }

    /// What klick's OSC queries report at `now`.
    mutating func klickState(_ report: KlickReport, at now: MonotonicInstant, sample: Sample) -> KlickState {
        report.state(controller: controller, heard: heardPassage(at: now, sample: sample),
                     playing: sharesStartStop ? linkTransportPlays : !controller.paused)
    }

    private mutating func outcome(_ outcome: PracticeController.Outcome, at now: MonotonicInstant) -> [Reaction] {
        guard case .command(let command) = outcome else { return [] }
        stopTrainer(for: command)
        changes += 1
        fullRateUntil = MonotonicInstant(nanoseconds: now.nanoseconds + 1_000_000_000)
        wakeForNextFrame(after: now)
        return [.send(command)]
    }

    private mutating func press(_ keys: [Key], heardFrame heard: Int64, at now: MonotonicInstant) -> [Reaction] {
        changes += 1
        var reactions: [Reaction] = []
        for key in keys {
            if hasSongs, case .character(let byte) = key, byte | 0x20 == UInt8(ascii: "n") || byte | 0x20 == UInt8(ascii: "p") {
                reactions.append(.song(byte | 0x20 == UInt8(ascii: "n") ? 1 : -1))
                continue
            }
            switch controller.press(key, heardFrame: heard) {
            case .command(let command):
                stopTrainer(for: command)
                reactions.append(.send(command))
            case .quit: reactions.append(.stop)
            case .toggleHelp: helpShown.toggle()
            case .nothing: break
            }
        }
        fullRateUntil = MonotonicInstant(nanoseconds: now.nanoseconds + 1_000_000_000)
        wakeForNextFrame(after: now)
        return reactions
    }

    /// The frame due at `now` (call it once `now` reaches `nextWake`).
    mutating func frame(at now: MonotonicInstant, sample: Sample, underruns: Int) -> Frame {
        let shown = heardClock.heardFrame(at: now, sample: sample) - visualOffsetFrames
        var result = Frame(draw: false, shownFrame: shown, angle: 0, lines: "")
        if picture {
            // Made beside the last picture and swapped in: no copy a frame. Looking ahead may have made it already.
            if let ahead, ahead.shown == shown, ahead.underruns == underruns, ahead.changes == changes {
                result.angle = ahead.angle
            } else {
                result.angle = makeProbe(shown: shown, underruns: underruns, lookingAhead: false)
            }
            ahead = nil
            result.draw = mustDraw || tracing || probe != grid
            result.traced = tracing
            result.flash = probeFlash
            swap(&grid, &probe)
            mustDraw = false
        } else {
            result.lines = pendingTrainerLines + heardLines(upTo: shown)
            pendingTrainerLines = ""
        }
        scheduleNext(after: now, shown: shown, sample: sample, underruns: underruns, lookAhead: picture && !result.draw)
        return result
    }

    /// How long the loop may wait at `now` for a key or a signal, in milliseconds: until the next
    /// wake, rounded up (a wait of 0 ms before the frame is due would spin).
    func waitMilliseconds(at now: MonotonicInstant) -> Int {
        Int((max(nextWake.nanoseconds - now.nanoseconds, 0) + 999_999) / 1_000_000)
    }

    /// The lines not yet printed, at the end of playback.
    mutating func finish() -> String { heardLines(upTo: .max) }

    // MARK: - Frames

    /// The next frame on the grid after `now`; a frame that fell behind skips ahead rather than racing.
    private func gridFrame(after now: MonotonicInstant) -> MonotonicInstant {
        guard let nextFrame else { return now }
        var next = nextFrame.nanoseconds
        while next <= now.nanoseconds { next += period }
        if next - now.nanoseconds > period { next = now.nanoseconds + period }
        return MonotonicInstant(nanoseconds: next)
    }

    private mutating func wakeForNextFrame(after now: MonotonicInstant) {
        nextWake = min(nextWake, gridFrame(after: now))
    }

    /// After the frame at `now`: the next frame of the grid, or the first later one whose picture differs.
    /// Looks ahead only after a frame that did not change (`lookAhead`): while the rod moves every
    /// frame, looking ahead would cost a picture a frame and save nothing.
    private mutating func scheduleNext(after now: MonotonicInstant, shown: Int64, sample: Sample, underruns: Int, lookAhead: Bool) {
        guard picture else { return scheduleLines(after: now, shown: shown) }
        var next = nextFrame.map { $0.nanoseconds + period } ?? now.nanoseconds + period
        if next <= now.nanoseconds { next = now.nanoseconds + period }  // fell behind: skip, do not race
        nextFrame = MonotonicInstant(nanoseconds: next)
        nextWake = MonotonicInstant(nanoseconds: next)
        guard lookAhead, !tracing, now >= fullRateUntil, !planned else { return }
        // Look ahead no further than the loop may sleep, with the estimate as it will be then
        // (unless a new sample moves it), not held back by what is written so far.
        var clock = heardClock
        let unbounded = (heard: sample.heard, at: sample.at, written: Int64.max)
        let steps = max(1, Self.longestSleep / period)
        for step in 0..<steps {
            let instant = MonotonicInstant(nanoseconds: next + step * period)
            let shown = clock.heardFrame(at: instant, sample: unbounded) - visualOffsetFrames
            let angle = makeProbe(shown: shown, underruns: underruns, lookingAhead: true)
            if probe != grid {
                ahead = (shown, angle, underruns, changes)
                nextWake = instant
                nextFrame = instant
                return
            }
        }
        nextWake = MonotonicInstant(nanoseconds: next + steps * period)
        nextFrame = nextWake
    }

    /// Without a picture: wakes when the next click is heard, so its line is printed then (not up to
    /// a frame late), or after `longestSleep` at most, to take the clicks and passages the audio
    /// thread logged since and to see the end: a few wakes a second, not twenty.
    private mutating func scheduleLines(after now: MonotonicInstant, shown: Int64) {
        var wake = now.nanoseconds + Self.longestSleep
        let passage = motion.history.passage(atFrame: shown)
        if !passage.paused, let heard = heardClock.instant(whenHeard: passage.frame(ofClick: passage.firstClick(atOrAfter: shown + 1)) + visualOffsetFrames) {
            wake = min(wake, max(heard.nanoseconds, now.nanoseconds + 1_000_000))
        }
        nextFrame = MonotonicInstant(nanoseconds: wake)
        nextWake = MonotonicInstant(nanoseconds: wake)
    }

    /// The longest the loop sleeps between frames, picture unchanged or not (nanoseconds): signals are
    /// taken when it wakes, not handled, so a resize or a stop is seen within this.
    static let longestSleep: Int64 = 100_000_000

    /// Draws the picture of frame `shown` into `probe`; returns the rod's angle. Looking ahead
    /// keeps its own status line, so the one shown is not made again when the frame comes.
    /// Mutating, drawing into `probe` in place: taking `probe` inout while reading `self`
    /// makes Swift copy the whole view, the grid's cells with it, every frame.
    private mutating func makeProbe(shown: Int64, underruns: Int, lookingAhead: Bool) -> Double {
        let angle = motion.angle(atFrame: Double(shown))
        let history = motion.history
        let passage = history.passage(atFrame: shown)
        let lastHeard = history.lastClick(atOrBefore: shown)
        let position = lastHeard >= 0 ? history.passage(forClick: lastHeard).bar(ofClick: lastHeard) : nil
        let countIn = position.map { $0.bar < 0 } ?? false
        let status = PendulumStatus(tempo: passage.tempo, meter: passage.meter,
                                    bar: position.map { shownBar($0.bar) },
                                    beatInBar: position.map { Int($0.beat) + 1 } ?? 0,
                                    elapsedSeconds: max(0, shown) / passage.grid.rate.framesPerSecond,
                                    underruns: underruns,
                                    bell: passage.bell, paused: sharesStartStop ? !linkTransportPlays : controller.paused, muted: controller.muted, countIn: countIn,
                                    latencyTenths: latencyTenths, song: song, linkPeers: linkPeers, practice: practice,
                                    midiClockPlays: midiClockPlays, trainer: trainerReadout)
        if probe.width != size.width || probe.height != size.height {
            probe = TextGrid(width: size.width, height: size.height)
            statusCache.status = nil
            probeCache.status = nil
        }
        // By its own size: the probe swapped with the last picture is made again once more after a resize.
        if body.width != size.width || body.height != size.height {
            body = TextGrid(width: size.width, height: size.height)
            PendulumPicture.drawBody(into: &body, style: style)
        }
        let line: String
        if lookingAhead {
            if status != probeCache.status { probeCache = (status, status.text(width: size.width)) }
            line = probeCache.line
        } else {
            if status != statusCache.status { statusCache = (status, status.text(width: size.width)) }
            line = statusCache.line
        }
        probe.copy(from: body)
        PendulumPicture.drawFront(into: &probe, angle: angle, status: status, statusLine: line, style: style)
        if helpShown { PendulumPicture.drawHelp(into: &probe, style: style) }
        probeFlash = flash ? Self.flash(shown: shown, lastHeard: lastHeard, history: history, bell: position?.beat == 0) : nil
        switch probeFlash {
        case .bell: probe.invert(rows: 0..<probe.height)
        case .beat: probe.invert(rows: (probe.height - 1)..<probe.height)
        case nil: break
        }
        return angle
    }

    /// What frame `shown` flashes for: the click last heard, if it was heard less than the flash's
    /// length ago (100 ms, at most half the time to the next click), and if that click is a bell.
    static func flash(shown: Int64, lastHeard: Int64, history: PassageHistory, bell: Bool) -> Flash? {
        guard lastHeard >= 0 else { return nil }
        let passage = history.passage(forClick: lastHeard)
        let heard = passage.frame(ofClick: lastHeard)
        let length = min(passage.grid.rate.framesPerSecond / 10, (passage.frame(ofClick: lastHeard + 1) - heard) / 2)
        guard shown - heard < length else { return nil }
        return bell ? .bell : .beat
    }

    /// Bars as a musician counts them, from 1; the count-in's from 1 within it.
    private func shownBar(_ bar: Int64) -> Int64 {
        bar < 0 ? countInBars + bar + 1 : bar + 1
    }

    /// Without a terminal: a line per bar as it is heard (a line per click with --verbose).
    private mutating func heardLines(upTo heard: Int64) -> String {
        var text = ""
        // A song's line before the clicks it starts with.
        func songs(upTo frame: Int64) {
            while let first = pendingSongs.first, first.frame <= frame {
                text += "song \(first.place)\n"
                pendingSongs.removeFirst()
            }
        }
        var index = 0
        while index < pending.count, pending[index].frame <= heard {
            let click = pending[index]
            songs(upTo: click.frame)
            let passage = motion.history.passage(forClick: click.click)
            let bar = (click.bar < 0 ? "count-in " : "") + "\(shownBar(click.bar))", beat = click.beatInBar + 1
            let seconds = Double(click.frame) / Double(passage.grid.rate.framesPerSecond)
            let time = (seconds * 1000).rounded() / 1000
            if verbosity == .verbose {
                text += "bar \(bar) beat \(beat)  frame \(click.frame)  \(time)s\n"
            } else if beat == 1 {
                let link = linkPeers.map { "  " + PendulumStatus.linkText(peers: $0) } ?? ""
                text += "bar \(bar)  \(passage.tempo) bpm \(passage.meter)  \(time)s\(link)\n"
            }
            index += 1
        }
        pending.removeFirst(index)
        // A song chosen while paused is said at once.
        if pending.isEmpty { songs(upTo: heard) }
        return text
    }
}
