import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeAudio
import MetronomeTerminal

/// The main thread while the audio thread plays, as thin as it can be: it
/// waits (`poll`, `sigtimedwait`) for the next frame `LiveView` asks for, a
/// key or a signal, hands them to the view, and does what it says: draws,
/// prints, writes the trace, sends commands to the audio thread, stops.
final class LiveLoop {
    let settings: Settings
    let playback: LivePlayback
    let signals: TerminationSignals
    let trace: Trace?
    let clickLog: ClickLog
    /// `--inspect` or `--calibrate`: the player heard, each wake.
    let inspection: Inspection?
    let passageLog: LockFreeQueue<Passage>
    /// A setlist's songs, moved through by `n` and `p`.
    let songs: SongSwitcher?
    /// The practice keys' state, handed to the view `run()` makes. The view itself is a local of
    /// `run()`: as a stored property of this class every access to it paid a dynamic exclusivity check.
    private let controller: PracticeController
    let clock = MonotonicClock()
    private var screen: TerminalScreen?
    private var keys: KeyInput?
    /// A song the track started that the trace has not had yet: one started later at the
    /// same frame (n pressed again while paused) replaces it, as it never played.
    private var untracedSong: (song: Int, frame: Int64)?

    init(settings: Settings, playback: LivePlayback, signals: TerminationSignals, trace: Trace?,
         clickLog: ClickLog, passageLog: LockFreeQueue<Passage>, controller: PracticeController, songs: SongSwitcher? = nil,
         inspection: Inspection? = nil) {
        self.inspection = inspection
        self.songs = songs
        self.settings = settings
        self.playback = playback
        self.signals = signals
        self.trace = trace
        self.clickLog = clickLog
        self.passageLog = passageLog
        self.controller = controller
    }

    /// Runs until playback ends: finished, or stopped by the first signal that asked.
    func run() -> RunOutcome {
        // A background job stops until `fg`; killed meanwhile, it ends without touching the terminal.
        let access = TerminationSignals.waitForTerminal()
        let terminal = access == .foreground
        if terminal, settings.pendulum, settings.verbosity != .quiet, let screen = TerminalScreen() {
            self.screen = screen
            keys = screen.keyInput
        } else if terminal {
            keys = KeyInput()
        }
        defer { leave() }
        // Locals from here on: a stored property of a class is checked for exclusive access at every use.
        let screen = self.screen, keys = self.keys
        var shown = settings
        if access == .stopping { shown.verbosity = .quiet }
        var view = Self.view(settings: shown, playback: playback, controller: controller, tracing: trace != nil,
                             picture: screen != nil, inspecting: inspection?.settings.mode == .inspect)
        if screen != nil {
            let size = TerminalScreen.size()
            view.resize(width: size.width, height: size.height, at: clock.now())
        }
        trace?.tempo(playback.track.schedule.tempo, frame: 0)
        if let songs {
            trace?.song(songs.playing + 1, of: songs.list.songs.count, name: songs.list.songs[songs.playing].name, frame: 0)
        }

        var outcome = RunOutcome.finished
        inspection?.start()
        playback.start()
        if settings.verbosity == .verbose, screen == nil, let scheduling = playback.scheduling {
            StandardError.report(scheduling.description)
        }
        while !playback.isFinished {
            let now = clock.now()
            // A frame when one is due; a key or a signal in between wakes the loop without moving the frames.
            if now >= view.nextWake {
                collectSongs(into: &view)
                collectPassages(at: now, into: &view)
                collectClicks(into: &view)
                if let heard = inspection?.listen(sample: playback.position.snapshot(), now: now) {
                    if !heard.lines.isEmpty { TerminalScreen.emit(heard.lines) }
                    view.heard(offsets: heard.offsets)
                }
                if let link = playback.link { view.link(peers: link.session.peers, transportPlays: link.isPlaying) }
                let frame = view.frame(at: now, sample: playback.position.snapshot(), underruns: playback.underruns)
                if let screen, frame.draw { screen.draw(view.grid) }
                if !frame.lines.isEmpty { TerminalScreen.emit(frame.lines) }
                if screen != nil { trace?.frame(time: now, audioFrame: frame.shownFrame, angle: frame.angle) }
                trace?.flush()
                if trace?.failure != nil { playback.stop() }  // a trace that cannot be written ends the run
            }
            // Rounded up: a wait of 0 ms before the frame is due would spin.
            let timeout = Int((max(view.nextWake.nanoseconds - clock.now().nanoseconds, 0) + 999_999) / 1_000_000)
            let (signal, keyReady) = waitForInput(milliseconds: timeout, keys: keys)
            if let signal {
                switch signal {
                case SIGWINCH:
                    let size = TerminalScreen.size()
                    view.resize(width: size.width, height: size.height, at: clock.now())
                    screen?.invalidate()
                case SIGTSTP:
                    suspend(&view)
                    view.resume(at: clock.now())
                default:
                    if outcome == .finished { outcome = .stoppedBy(signal: signal) }
                    playback.stop()
                }
            }
            // Every key waiting (a bounded piece of a paste), applied at once.
            if keyReady, let keys {
                let pressed = Key.decode(keys.read())
                for reaction in view.press(pressed, at: clock.now(), sample: playback.position.snapshot()) {
                    switch reaction {
                    case .send(let command): playback.send(command)
                    case .stop: playback.stop()
                    case .song(let step): if let command = songs?.move(by: step) { playback.send(command) }
                    }
                }
            }
        }
        playback.join()
        collectSongs(into: &view)
        collectClicks(into: &view)
        traceSong()
        if let notes = inspection?.finish(sample: { [playback] in playback.position.snapshot() }), !notes.isEmpty { TerminalScreen.emit(notes) }
        let lines = view.finish()
        if !lines.isEmpty { TerminalScreen.emit(lines) }
        trace?.flush()
        return outcome
    }

    /// The songs the track started since: the status line and the trace follow, and a song wanted since is asked for.
    private func collectSongs(into view: inout LiveView) {
        guard let songs, let log = playback.track.songLog else { return }
        while let start = log.pop() {
            guard let (song, next) = songs.started(start) else { continue }
            view.show(song: songs.list.place(of: song), from: start.frame)
            if let untraced = untracedSong, untraced.frame < start.frame { traceSong() }
            untracedSong = (song, start.frame)
            if let next { playback.send(next) }
        }
    }

    /// The song started last goes into the trace: it played, or the run ended with it.
    private func traceSong() {
        guard let untraced = untracedSong, let songs else { return }
        untracedSong = nil
        trace?.song(untraced.song + 1, of: songs.list.songs.count, name: songs.list.songs[untraced.song].name, frame: untraced.frame)
    }

    private static func view(settings: Settings, playback: LivePlayback, controller: PracticeController, tracing: Bool,
                             picture: Bool, inspecting: Bool) -> LiveView {
        LiveView(settings: settings, schedule: playback.track.schedule, firstPassage: playback.track.passage,
                 rate: playback.sink.rate, controller: controller, picture: picture,
                 printsLines: !picture && settings.verbosity != .quiet,
                 // A Link peer may change the tempo at any time, as a plan does.
                 planned: playback.track.plan != nil || playback.link != nil,
                 // The latency the device granted, for the status line; nil when playing without a device.
                 latencyTenths: playback.sink is PCMDevice ? Session.latencyTenths(playback.sink) : nil,
                 tracing: tracing, inspecting: inspecting)
    }

    /// Ctrl-Z: the terminal as it was, the process stopped until `fg`, then the picture back whole.
    /// The audio thread stops with the process (a suspended job is silent); on `fg` the
    /// stall watch puts the clicks back on the grid in real time.
    private func suspend(_ view: inout LiveView) {
        screen?.suspend()
        if screen == nil { keys?.restore() }
        TerminationSignals.stopProcess()
        // Continued in the background (`bg`, or kill's SIGCONT): the terminal stays the shell's.
        guard TerminationSignals.waitForTerminal() == .foreground else { return }
        if let screen {
            let size = TerminalScreen.size()
            view.resize(width: size.width, height: size.height, at: clock.now())
            screen.resume()
        } else {
            keys?.enter()
        }
    }

    /// Restores the terminal; safe to call more than once.
    func leave() {
        screen?.leave()
        keys?.restore()
    }

    /// Waits for a key or a signal until the timeout: the signal if one came, and whether a key is waiting.
    /// One `poll` for both where the signals have a descriptor: a wakeup is one system call.
    private func waitForInput(milliseconds: Int, keys: KeyInput?) -> (signal: Int32?, keyReady: Bool) {
        guard let keys else { return (signals.wait(milliseconds: milliseconds), false) }
        let watched = signals.descriptor >= 0 ? 2 : 1
        // On the stack: no array, no access to a stored property.
        var set = (pollfd(fd: keys.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0))
        let ready = withUnsafeMutableBytes(of: &set) {
            poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), nfds_t(watched), Int32(milliseconds))
        } > 0
        let keyReady = ready && set.0.revents & Int16(POLLIN) != 0
        let signalPending = watched == 1 || ready && set.1.revents & Int16(POLLIN) != 0
        return (signalPending ? signals.take() : nil, keyReady)
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
        guard !started.isEmpty else { return }
        // A click at or after the song's start: it plays, and no later start can share its frame.
        if let untraced = untracedSong, let last = started.last, last.frame >= untraced.frame { traceSong() }
        if let trace { for click in started { trace.click(click) } }
        inspection?.receive(clicks: started)
        view.receive(clicks: started)
    }
}
