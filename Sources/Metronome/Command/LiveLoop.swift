import Glibc

/// The main thread while the audio thread plays: draws the pendulum at a
/// steady frame rate from the audio clock, prints plain lines when stdout is
/// not a terminal, writes the trace, turns practice keys into commands for the
/// audio thread, and keys and signals into a stop.
final class LiveLoop {
    let settings: Settings
    let playback: LivePlayback
    let signals: TerminationSignals
    let trace: Trace?
    let clickLog: ClickLog
    let passageLog: LockFreeQueue<Passage>
    private var controller: PracticeController
    private var motion: PendulumMotion
    private var helpShown = false
    let clock = MonotonicClock()
    private var screen: TerminalScreen?
    private var keys: KeyInput?
    private var size = (width: 80, height: 24)
    /// Clicks started but not yet heard, for the plain lines.
    private var pending: [StartedClick] = []
    /// The picture being drawn, reused frame to frame, and the status line while it is unchanged.
    private var grid = TextGrid(width: 0, height: 0)
    private var lastStatus: PendulumStatus?
    private var statusLine = ""
    private var heardClock: HeardClock
    private var tempoChanges: TempoChanges

    init(settings: Settings, playback: LivePlayback, signals: TerminationSignals, trace: Trace?,
         clickLog: ClickLog, passageLog: LockFreeQueue<Passage>, controller: PracticeController) {
        tempoChanges = TempoChanges(after: playback.track.passage)
        self.settings = settings
        self.playback = playback
        self.signals = signals
        self.trace = trace
        self.clickLog = clickLog
        self.passageLog = passageLog
        self.controller = controller
        heardClock = HeardClock(rate: playback.sink.rate)
        motion = PendulumMotion(schedule: playback.track.schedule, amplitude: settings.swingAngle,
                                easing: settings.easing, clickAt: settings.clickAt)
    }

    /// Runs until playback ends; returns the exit status (128+N after signal N).
    func run() -> Int32 {
        if settings.pendulum, settings.verbosity != .quiet, let screen = TerminalScreen() {
            self.screen = screen
            keys = screen.keyInput
            size = TerminalScreen.size()
        } else {
            keys = KeyInput()
        }
        defer { leave() }
        trace?.tempo(playback.track.schedule.tempo, frame: 0)

        // Without a picture the loop only collects keys, signals and lines: 20 times a second will do.
        let period = 1_000_000_000 / Int64(screen != nil ? settings.framesPerSecond : 20)
        var nextFrame = clock.now().nanoseconds
        var status: Int32 = 0
        playback.start()
        if settings.verbosity == .verbose, screen == nil, let scheduling = playback.scheduling {
            StandardError.report(scheduling.description)
        }
        while !playback.isFinished {
            let now = clock.now()
            // A frame when one is due; a key or a signal in between wakes the loop without moving the frames.
            if now.nanoseconds >= nextFrame {
                collectPassages()
                collectClicks()
                if screen != nil { drawFrame(at: now) } else { printHeardClicks(at: now) }
                trace?.flush()
                if trace?.failure != nil { playback.stop() }  // a trace that cannot be written ends the run
                nextFrame += period
                if nextFrame < now.nanoseconds { nextFrame = now.nanoseconds + period }  // fell behind: skip, do not race
            }
            // Rounded up: a wait of 0 ms before the frame is due would spin.
            let timeout = Int((max(nextFrame - clock.now().nanoseconds, 0) + 999_999) / 1_000_000)
            let (signal, keyReady) = waitForInput(milliseconds: timeout)
            if let signal {
                switch signal {
                case SIGWINCH:
                    size = TerminalScreen.size()
                    screen?.invalidate()
                case SIGTSTP:
                    suspend()
                    nextFrame = clock.now().nanoseconds
                default:
                    if status == 0 { status = TerminationSignals.exitStatus(for: signal) }
                    playback.stop()
                }
            }
            // Every key waiting (a bounded piece of a paste), applied at once.
            if keyReady, let keys { press(Key.decode(keys.read())) }
        }
        playback.join()
        collectClicks()
        printHeardClicks(at: MonotonicInstant(nanoseconds: .max))
        trace?.flush()
        return status
    }

    /// Ctrl-Z: the terminal as it was, the process stopped until `fg`, then the picture back whole.
    /// The audio thread stops with the process (a suspended job is silent); on `fg` the
    /// stall watch puts the clicks back on the grid in real time.
    private func suspend() {
        screen?.suspend()
        if screen == nil { keys?.restore() }
        TerminationSignals.stopProcess()
        if let screen {
            size = TerminalScreen.size()
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
    private func waitForInput(milliseconds: Int) -> (signal: Int32?, keyReady: Bool) {
        guard let keys else { return (signals.wait(milliseconds: milliseconds), false) }
        var descriptor = pollfd(fd: keys.descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(milliseconds)) > 0 && descriptor.revents & Int16(POLLIN) != 0
        return (signals.take(), ready)
    }

    /// Practice keys become commands for the audio thread; taps are timed by the frame heard now.
    private func press(_ pressed: [Key]) {
        guard !pressed.isEmpty else { return }
        let heard = heardClock.heardFrame(at: clock.now(), sample: playback.position.snapshot())
        for key in pressed {
            switch controller.press(key, heardFrame: heard) {
            case .command(let command): playback.send(command)
            case .quit: playback.stop()
            case .toggleHelp: helpShown.toggle()
            case .nothing: break
            }
        }
    }

    /// New passages from the audio thread: the picture follows them, and the
    /// trace notes each new grid (a new tempo, a tap, a resume) at its first click.
    private func collectPassages() {
        while let passage = passageLog.pop() {
            motion.history.append(passage)
            // The tempo keys step from the tempo playing, which a plan moves.
            if !passage.paused { controller.follow(passage.tempo) }
            if let frame = tempoChanges.firstFrame(ofChangeTo: passage) { trace?.tempo(passage.tempo, frame: frame) }
        }
    }

    private func collectClicks() {
        let started = clickLog.drain()
        guard !started.isEmpty else { return }
        if let trace { for click in started { trace.click(click) } }
        if screen == nil, settings.verbosity != .quiet, settings.pendulum { pending += started.filter(\.sound.isBeat) }
    }

    /// The frame the picture shows at `now`: heard now, less the visual offset.
    private func shownFrame(at now: MonotonicInstant) -> Int64 {
        let heard = heardClock.heardFrame(at: now, sample: playback.position.snapshot())
        return heard - settings.visualOffsetMicroseconds * playback.sink.rate.framesPerSecond / 1_000_000
    }

    /// The latency the device granted, for the status line; nil when playing without a device.
    private var latencyTenths: Int64? {
        guard playback.sink is PCMDevice else { return nil }
        return Session.latencyTenths(playback.sink)
    }

    private func drawFrame(at now: MonotonicInstant) {
        let shown = shownFrame(at: now)
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
                                    underruns: playback.underruns,
                                    bell: passage.bell, paused: controller.paused, muted: controller.muted, countIn: countIn,
                                    latencyTenths: latencyTenths)
        if grid.width != size.width || grid.height != size.height {
            grid = TextGrid(width: size.width, height: size.height)
            lastStatus = nil
        }
        if status != lastStatus {
            statusLine = status.text(width: size.width)
            lastStatus = status
        }
        PendulumPicture.draw(into: &grid, angle: angle, status: status, statusLine: statusLine, style: settings.style)
        if helpShown { PendulumPicture.drawHelp(into: &grid, style: settings.style) }
        screen?.draw(grid)
        trace?.frame(time: now, audioFrame: shown, angle: angle)
    }

    /// Bars as a musician counts them, from 1; the count-in's from 1 within it.
    private func shownBar(_ bar: Int64) -> Int64 {
        bar < 0 ? settings.rhythm.countInBars + bar + 1 : bar + 1
    }

    /// Without a terminal: a line per bar as it is heard (a line per click with --verbose).
    private func printHeardClicks(at now: MonotonicInstant) {
        guard !pending.isEmpty else { return }
        let heard = now.nanoseconds == .max ? Int64.max : shownFrame(at: now)
        var text = ""
        var index = 0
        while index < pending.count, pending[index].frame <= heard {
            let click = pending[index]
            let passage = motion.history.passage(forClick: click.click)
            let bar = (click.bar < 0 ? "count-in " : "") + "\(shownBar(click.bar))", beat = click.beatInBar + 1
            let seconds = Double(click.frame) / Double(passage.grid.rate.framesPerSecond)
            let time = (seconds * 1000).rounded() / 1000
            if settings.verbosity == .verbose {
                text += "bar \(bar) beat \(beat)  frame \(click.frame)  \(time)s\n"
            } else if beat == 1 {
                text += "bar \(bar)  \(passage.tempo) bpm \(passage.meter)  \(time)s\n"
            }
            index += 1
        }
        pending.removeFirst(index)
        if !text.isEmpty { TerminalScreen.emit(text) }
    }
}
