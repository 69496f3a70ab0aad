import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeAudio
import MetronomeOSC
import MetronomeTerminal
import SystemPackage

/// The main thread while the audio thread plays: it waits for the next frame
/// `LiveView` asks for, a key or a signal, hands them to the view and does
/// what it says (draw, print, trace, send, stop). Its clock, screen and input
/// are given: `LiveTerminal` and the system's clock in a run, a manual clock
/// and recorders in a test.
final class LiveLoop {
    let settings: Settings
    let playback: any ClickPlayer
    let screen: any LiveScreen
    let input: any LiveInput
    let clock: any Timekeeper
    let trace: Trace?
    let clickLog: ClickLog
    /// `--inspect` or `--calibrate`: the clicks handed to the listening thread and what it heard taken, each wake.
    let inspection: Inspection?
    let passageLog: LockFreeQueue<Passage>
    /// A setlist's songs, moved through by `n` and `p`.
    let songs: SongSwitcher?
    /// The practice keys' state, handed to the view `run()` makes. The view is a local of `run()`:
    /// as a stored property of this class every access to it would pay a dynamic exclusivity check.
    private let controller: PracticeController
    private var songTrace = SongTrace()
    /// `--midi-in`: what each message does, and with `--midi-learn` each printed as a map line.
    private let midiMap: MIDIMap?
    private let midiLearn: Bool
    /// `--follow-midi-clock`: its source starts and stops the clicks, not Space.
    private let midiClockLeads: Bool
    private var controllerValues: [UInt8] = []
    /// `--osc PORT`: klick's namespace over UDP, its packets taken each wake, and what its queries report.
    private let osc: OSCServer?
    /// What klick's queries report; a map loaded over OSC changes it.
    private var klickReport: KlickReport?
    /// What the run played, for the practice log: read once `run()` returns.
    private(set) var tally = PracticeTally()

    init(settings: Settings, playback: any ClickPlayer, screen: any LiveScreen, input: any LiveInput,
         clock: any Timekeeper = MonotonicClock(), trace: Trace?, clickLog: ClickLog, passageLog: LockFreeQueue<Passage>,
         controller: PracticeController, songs: SongSwitcher? = nil, inspection: Inspection? = nil, midiMap: MIDIMap? = nil,
         midiClockLeads: Bool = false, midiLearn: Bool = false, osc: OSCServer? = nil, klickReport: KlickReport? = nil) {
        self.osc = osc
        self.klickReport = klickReport
        self.midiClockLeads = midiClockLeads
        self.midiMap = midiMap
        self.midiLearn = midiLearn
        self.inspection = inspection
        self.songs = songs
        self.settings = settings
        self.playback = playback
        self.screen = screen
        self.input = input
        self.clock = clock
        self.trace = trace
        self.clickLog = clickLog
        self.passageLog = passageLog
        self.controller = controller
    }

    /// Runs until playback ends: finished, or stopped by the first signal that asked.
    func run() -> RunOutcome {
        var shown = settings
        if screen.showsNothing { shown.verbosity = .quiet }
        var view = Self.view(settings: shown, playback: playback, controller: controller, tracing: trace != nil,
                             picture: screen.showsPicture, inspecting: inspection?.settings.mode == .inspect)
        if screen.showsPicture { resize(&view) }
        trace?.begin(tempo: playback.track.schedule.tempo, songs: songs?.list)

        var outcome = RunOutcome.finished
        inspection?.start()
        playback.start()
        if settings.verbosity == .verbose, !screen.showsPicture, let scheduling = playback.scheduling {
            StandardError.report(scheduling.description)
        }
        while !playback.isFinished {
            let now = clock.now()
            tally.wake(at: now, playing: view.plays)
            // A frame when one is due; a key or a signal in between wakes the loop without moving the frames.
            if now >= view.nextWake { frame(at: now, &view) }
            // MIDI in and OSC are taken each wake: at least every 10 ms while a port may bring them.
            var wait = view.waitMilliseconds(at: clock.now())
            if playback.receivedMIDI != nil || osc != nil { wait = min(wait, 10) }
            let (signal, keyReady) = input.wait(milliseconds: wait)
            takeMIDI(&view)
            takeOSC(&view)
            // The beat feed: clicks sent as soon as the audio thread has started them, not at the next frame.
            if let osc, !osc.subscribers.isEmpty {
                collectSongs(into: &view)
                collectPassages(at: clock.now(), into: &view)
                collectClicks(into: &view)
            }
            if let signal {
                switch signal {
                case SIGWINCH:
                    resize(&view)
                    screen.invalidate()
                case SIGTSTP:
                    if screen.suspend(), screen.showsPicture { resize(&view) }
                    view.resume(at: clock.now())
                default:
                    if outcome == .finished { outcome = .stoppedBy(signal: signal) }
                    playback.stop()
                }
            }
            // Every key waiting (a bounded piece of a paste), applied at once.
            if keyReady {
                // Following a MIDI clock, its source starts and stops the clicks: Space does nothing.
                let keys = Key.decode(input.readKeys()).filter { !midiClockLeads || $0 != .character(UInt8(ascii: " ")) }
                for reaction in view.press(keys, at: clock.now(), sample: playback.position.snapshot()) {
                    act(on: reaction)
                }
            }
        }
        playback.join()
        tally.wake(at: clock.now(), playing: false)
        collectSongs(into: &view)
        collectClicks(into: &view)
        if let song = songTrace.finish() { traceSong(song) }
        // What is printed at the end goes to the terminal's own screen: on the picture's
        // alternate screen it would be gone with it (`--verbose`'s OSC counts were).
        screen.leave()
        if let notes = inspection?.finish(clock: clock), !notes.isEmpty { screen.emit(notes) }
        var lines = view.finish()
        if let osc, settings.verbosity == .verbose { lines += osc.summary + "\n" }
        if !lines.isEmpty { screen.emit(lines) }
        trace?.flush()
        return outcome
    }

    /// A frame due at `now`: what the audio thread and the listening thread logged since, handed
    /// to the view, then the frame drawn, printed and traced.
    private func frame(at now: MonotonicInstant, _ view: inout LiveView) {
        // Read before the clicks are collected: every click whose sound the input may hold by then is among them.
        let captured = inspection?.captured
        collectSongs(into: &view)
        collectPassages(at: now, into: &view)
        collectClicks(into: &view)
        if let inspection, let captured {
            let heard = inspection.listen(through: captured)
            if !heard.lines.isEmpty { screen.emit(heard.lines) }
            view.heard(offsets: heard.offsets)
            let trained = view.judge(heard.matches, through: heard.through)
            if !trained.lines.isEmpty { screen.emit(trained.lines) }
            for judged in trained.judged {
                let judgement = judged.judgement
                trace?.judged(bar: judgement.bar, firstClick: judgement.firstClick, playedAt: judged.playedAt,
                              verdict: judgement.verdict, decision: judged.decision, rate: playback.rate)
            }
            for reaction in trained.reactions { act(on: reaction) }
        }
        if let link = playback.link { view.link(peers: link.session.peers, transportPlays: link.isPlaying) }
        view.midiClock(plays: playback.midiClockPlays)
        let frame = view.frame(at: now, sample: playback.position.snapshot(), underruns: playback.underruns)
        if frame.draw { screen.draw(view.grid) }
        if !frame.lines.isEmpty { screen.emit(frame.lines) }
        if frame.traced { trace?.frame(time: now, audioFrame: frame.shownFrame, angle: frame.angle, flash: frame.flash?.rawValue) }
        trace?.flush()
        if trace?.failure != nil { playback.stop() }  // a trace that cannot be written ends the run
    }

    /// The MIDI messages that came in since (`--midi-in`): each bound one acted on as its key, a tap
    /// at the frame heard when it came; with `--midi-learn` each printed as the map line that binds it.
    private func takeMIDI(_ view: inout LiveView) {
        guard let queue = playback.receivedMIDI else { return }
        while let received = queue.pop() {
            let message = received.message
            if midiLearn, let line = MIDIMap.learnLine(message.status, message.data1, message.data2) { screen.emit(line + "\n") }
            guard let midiMap,
                  let response = midiMap.response(to: message.status, message.data1, message.data2, lastValues: &controllerValues) else { continue }
            if midiClockLeads, case .action(let action) = response, action == .startStop || action == .start || action == .stop { continue }
            for reaction in view.respond(to: response, heardFrame: received.heardFrame, at: clock.now()) { act(on: reaction) }
        }
    }

    /// The OSC packets waiting (`--osc`), a bounded number a wake (`OSCServer`): each message of
    /// klick's namespace acted on as its key would be, queries answered from the view as it is then;
    /// then the registered clients told what changed, by whatever means, since they last were.
    private func takeOSC(_ view: inout LiveView) {
        guard let osc, let report = klickReport else { return }
        let playback = self.playback, clock = self.clock
        osc.takeWaiting(state: { view.klickState(self.klickReport ?? report, at: clock.now(), sample: playback.position.snapshot()) },
                        status: { view.status(at: clock.now(), sample: playback.position.snapshot(), underruns: playback.underruns) }) { request, sender in
            switch request {
            case .quit:
                playback.stop()
            case .control(let response):
                if midiClockLeads, case .action(let action) = response, action == .start || action == .stop || action == .startStop { return }
                for reaction in view.respond(to: response, at: clock.now(), sample: playback.position.snapshot()) { act(on: reaction) }
            case .volume(let percent):
                for reaction in view.set(volumePercent: percent, at: clock.now()) { act(on: reaction) }
            case .meter(let beats, let noteValue):
                let meter = view.heardPassage(at: clock.now(), sample: playback.position.snapshot()).meter
                guard noteValue == nil || noteValue == meter.noteValue else {
                    osc.refuse("/klick/simple/set_meter", because: "the note value stays \(meter.noteValue): only the beats per bar change while playing", to: sender)
                    return
                }
                for reaction in view.set(beatsPerBar: beats, at: clock.now()) { act(on: reaction) }
            case .song(let choice):
                guard let songs else {
                    osc.refuse("/metronome/song", because: "this run plays no setlist (--setlist FILE)", to: sender)
                    return
                }
                let index: Int?
                switch choice {
                case .named(let name): index = songs.list.index(named: name)
                case .numbered(let number): index = songs.list.songs.indices.contains(number - 1) ? number - 1 : nil
                }
                guard let index else {
                    let count = songs.list.songs.count
                    let reason = switch choice {
                    case .named(let name): "no song of the setlist is named '\(name)'"
                    case .numbered(let number): "the setlist has songs 1 to \(count), not \(number)"
                    }
                    osc.refuse("/metronome/song", because: reason, to: sender)
                    return
                }
                if let command = songs.choose(index) { playback.send(command) }
            case .loadMap(let file):
                switch loadMap(file) {
                case .success(let command):
                    self.klickReport?.loaded(mapFile: file)
                    if let command { playback.send(command) }
                case .failure(let failure):
                    osc.refuse("/klick/map/load_file", because: failure.message, to: sender)
                }
            default:
                return
            }
        }
        osc.notify(view.klickState(klickReport ?? report, at: clock.now(), sample: playback.position.snapshot()),
                   view.status(at: clock.now(), sample: playback.position.snapshot(), underruns: playback.underruns))
    }

    /// `/klick/map/load_file`: the map in `file` (a klick tempo map or a MIDI file, relative to the
    /// working directory) as the songs' last, and the command that switches to it at the next bar line
    /// (nil while another switch is under way: it follows). Only a regular file is read: a FIFO or a
    /// device would hold up the loop. Fails with the reason the peer is told.
    private func loadMap(_ file: String) -> Result<PracticeCommand?, MapLoadFailure> {
        guard let songs else {
            return .failure(MapLoadFailure(message: "a map loads into a run that plays one: start with --tempo-map FILE, --setlist FILE or the trainer"))
        }
        guard songs.hasRoom else { return .failure(MapLoadFailure(message: "\(SongSwitcher.mostSongs) maps are loaded already")) }
        var status = stat()
        guard stat(file, &status) == 0 else { return .failure(MapLoadFailure(message: "cannot read '\(file)': \(Errno(rawValue: errno))")) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(MapLoadFailure(message: "'\(file)' is not a regular file")) }
        let map: TempoMap
        do {
            let contents = try FileContents.read(file)
            map = MIDIFile.isMIDIFile(contents, name: file)
                ? try TempoMap(midi: try MIDIFile(parsing: contents, name: file), name: file)
                : try TempoMap(parsing: contents, name: file)
        } catch let error as FileContents.ReadError {
            return .failure(MapLoadFailure(message: "cannot read '\(file)': \(error.message)"))
        } catch let error as TimingError {
            return .failure(MapLoadFailure(message: error.message))
        } catch {
            return .failure(MapLoadFailure(message: "cannot read '\(file)': \(error)"))
        }
        let name = FilePath(file).lastComponent?.string ?? file
        return .success(songs.load(SongList.Song(name: name, source: .map(map, first: 0, loops: false))))
    }

    struct MapLoadFailure: Error { let message: String }

    /// What a key asks of the audio thread: a command, a stop, or a setlist's song (a command once a switch starts).
    private func act(on reaction: LiveView.Reaction) {
        switch reaction {
        case .send(let command): playback.send(command)
        case .stop: playback.stop()
        case .song(let step): if let command = songs?.move(by: step) { playback.send(command) }
        }
    }

    /// The terminal's size now, for the view.
    private func resize(_ view: inout LiveView) {
        let size = screen.size()
        view.resize(width: size.width, height: size.height, at: clock.now())
    }

    /// The songs the track started since: the status line and the trace follow, and a song wanted since is asked for.
    private func collectSongs(into view: inout LiveView) {
        guard let songs, let log = playback.track.songLog else { return }
        while let start = log.pop() {
            guard let (song, next) = songs.started(start) else { continue }
            view.show(song: songs.list.place(of: song), from: start.frame)
            if let played = songTrace.started(song, at: start.frame) { traceSong(played) }
            if let next { playback.send(next) }
        }
    }

    private func traceSong(_ song: (song: Int, frame: Int64)) {
        guard let songs else { return }
        trace?.song(song.song, in: songs.list, frame: song.frame)
        if songs.list.songs.indices.contains(song.song) { tally.started(song: songs.list.songs[song.song].name) }
    }

    private static func view(settings: Settings, playback: any ClickPlayer, controller: PracticeController, tracing: Bool,
                             picture: Bool, inspecting: Bool) -> LiveView {
        LiveView(settings: settings, schedule: playback.track.schedule, firstPassage: playback.track.passage,
                 rate: playback.rate, controller: controller, picture: picture,
                 printsLines: !picture && settings.verbosity != .quiet,
                 // A Link peer may change the tempo at any time, as a plan does.
                 planned: playback.track.plan != nil || playback.link != nil || playback.followsTransport,
                 // The latency the device granted, for the status line; nil when playing without a device.
                 latencyTenths: playback.latencyTenths,
                 tracing: tracing, inspecting: inspecting, exactPositions: playback.publishesExactPositions)
    }

    /// New passages from the audio thread for the view; the trace notes each new grid at its first click.
    private func collectPassages(at now: MonotonicInstant, into view: inout LiveView) {
        var passages: [Passage] = []
        while let passage = passageLog.pop() { passages.append(passage) }
        guard !passages.isEmpty else { return }
        for change in view.receive(passages: passages, at: now) { trace?.tempo(change.tempo, frame: change.frame) }
    }

    private func collectClicks(into view: inout LiveView) {
        let started = clickLog.drain()
        guard let last = started.last else { return }
        if let song = songTrace.clicks(through: last.frame) { traceSong(song) }
        if let trace { for click in started { trace.click(click) } }
        inspection?.receive(clicks: started)
        view.receive(clicks: started)
        for click in started where click.index == 0 && click.sound.isBeat { tally.beat(at: view.tempo(ofClick: click.click), in: view.meter(ofClick: click.click)) }
        if let osc, !osc.subscribers.isEmpty { feed(started, view: view, to: osc) }
    }

    /// The beat feed (`/metronome/subscribe`): each beat a bundle timetagged with when it will
    /// be heard, `/metronome/beat ,iifi` bar (from 1; the count-in's 0 and below), beat (from 1),
    /// tempo and 1 on the bell. Subdivisions and a second voice are not fed.
    private func feed(_ clicks: [StartedClick], view: LiveView, to osc: OSCServer) {
        for click in clicks where click.index == 0 && click.sound.isBeat {
            guard let heard = view.instant(whenHeard: click.frame) else { continue }
            let tempo = Float(view.tempo(ofClick: click.click).millibeatsPerMinute) / 1_000
            osc.feed(OSCMessage("/metronome/beat", [.int32(Int32(clamping: click.bar + 1)), .int32(click.beatInBar + 1), .float(tempo),
                                                    .int32(click.sound == .bell ? 1 : 0)]), heard: heard)
        }
    }
}
