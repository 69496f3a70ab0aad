import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeLink
import MetronomeAudio
import MetronomeOSC
import MetronomeRender
import MetronomeTerminal
import MetronomeListening
import SystemPackage

/// One run of the metronome: playing live, or rendering a file.
package enum Session {
    /// Runs `settings` to the end, or until a signal stops it; what failed is thrown.
    package static func run(_ settings: Settings) throws -> RunOutcome {
        let signals = TerminationSignals()
        switch settings.destination {
        case .file(let output, let format):
            do {
                if format.container == .midi { return try renderMIDI(settings, to: output, signals: signals) }
                return try render(settings, to: output, format: format, signals: signals)
            } catch {
                // A write refused for a signal now pending (EFBIG past `ulimit -f`, with SIGXFSZ): the signal's stop.
                if let signal = signals.takeStop() { return .stoppedBy(signal: signal) }
                throw error
            }
        case .live(let live):
            return try play(settings, live: live, signals: signals)
        }
    }

    static func render(_ settings: Settings, to output: String, format: OutputFormat, signals: TerminationSignals) throws -> RunOutcome {
        let sounds = try loadSounds(settings, rate: settings.rate)
        let (track, feeder, expectedEnd) = makeTrack(settings, sounds: sounds, rate: settings.rate)
        // Only a trace reads the logs (their rings are written through when made: 2.6 MB for nothing otherwise).
        let traced = settings.trace != nil
        let clickLog = traced ? ClickLog(capacity: 1 << 16) : nil
        let passageLog = traced ? LockFreeQueue<Passage>(capacity: 1024) : nil
        track.clickLog = clickLog
        track.passageLog = passageLog
        let trace = RenderTrace(settings, track: track)
        return try outcome {
            _ = try FileRenderer(path: output, format: format, force: settings.force).render(
                track, expectedFrames: track.endFrame == nil ? expectedEnd() : nil,
                interrupted: {
                    if let clickLog, let passageLog { try trace.record(clicks: clickLog.drain(), passages: passageLog.drain()) }
                    feeder?.feed()
                    return signals.takeStop()
                }, created: trace.open)
        }
    }

    /// `--output x.mid`: the same track, its clicks as notes and its passages as the file's tempo map.
    static func renderMIDI(_ settings: Settings, to output: String, signals: TerminationSignals) throws -> RunOutcome {
        let sounds = try loadSounds(settings, rate: settings.rate)
        let (track, feeder, expectedEnd) = makeTrack(settings, sounds: sounds, rate: settings.rate)
        guard track.endFrame != nil || expectedEnd() != nil else {
            throw RenderError.badRequest("--output needs a length: add --bars N or --duration T")
        }
        let trace = RenderTrace(settings, track: track)
        return try outcome {
            _ = try MIDIRenderer(path: output, force: settings.force).render(
                track, volume: settings.volume * track.planLevel, markers: TempoMapMarkers(settings.plan),
                drained: trace.record,
                interrupted: {
                    feeder?.feed()
                    return signals.takeStop()
                }, created: trace.open)
        }
    }

    /// A render run to its end, or stopped by the signal that interrupted it.
    private static func outcome(of render: () throws -> Void) throws -> RunOutcome {
        do {
            try render()
        } catch FileRenderer.Interruption.signal(let signal) {
            return .stoppedBy(signal: signal)
        }
        return .finished
    }

    static func play(_ settings: Settings, live: Settings.Live, signals: TerminationSignals) throws -> RunOutcome {
        // Check the sounds before touching the device.
        var sounds = try loadSounds(settings, rate: settings.rate)
        // Its name checked and its file made before the take, not after it.
        let report = try live.inspector?.report.map { path throws(RenderError) in try InspectorReport(path: path, force: settings.force) }
        // The OSC port taken before the device is opened: one in use ends the run before anything plays.
        let osc = try live.osc.map {
            OSCServer(socket: try OSCSocket(host: $0.host, port: $0.port),
                      streams: $0.tcp ? try OSCStreams(host: $0.host, port: $0.port) : nil, filesAllowed: $0.filesAllowed)
        }
        let memoryLocked = RealTimeScheduling.lockMemory()
        let output = try open(live.output, settings: settings)
        if output.rate != settings.rate {
            // Load again at the device's rate: one conversion from the file, not two.
            sounds = try loadSounds(settings, rate: output.rate)
        }
        let (track, feeder, _) = makeTrack(settings, sounds: sounds, rate: output.rate)
        // A setlist, or a plan that OSC may load maps after (`--osc-allow-files`): a second plan
        // queue for the next song, and the track's word of each song it starts.
        var songs: SongSwitcher?
        if settings.switchesSongs, let feeder, let source = settings.plan {
            let plans = (feeder.queue, LockFreeQueue<Passage>(capacity: 256))
            track.songPlans = plans
            track.songLog = LockFreeQueue<SongStart>(capacity: 64)
            // The run's own plan is the first song, by its map's file name.
            let name = live.osc?.mapFile.flatMap { FilePath($0).lastComponent?.string } ?? "start"
            let list = settings.songs ?? SongList(songs: [SongList.Song(name: name, source: source)], current: 0)
            songs = SongSwitcher(list: list, feeder: feeder, plans: plans, rate: output.rate, rhythm: settings.rhythm)
        }
        // What the device granted; without a device (playing on silently) nothing was.
        if settings.verbosity == .verbose, let granted = output.granted { TerminalScreen.emit(granted + "\n") }
        let clickLog = ClickLog()
        track.clickLog = clickLog
        let passageLog = LockFreeQueue<Passage>(capacity: 256)
        track.passageLog = passageLog
        let trace = try settings.trace.map { path throws(SessionError) in try Trace(path: path, force: settings.force) }
        // Held to the end of the run: destroying it leaves the session.
        let link = try live.link.map { link throws(SessionError) in try joinLink(link, settings: settings, output: output) }
        let controller = practiceController(settings, track: track, sounds: sounds, rate: output.rate)
        // The plan is fed off the UI loop: a stopped terminal never starves the audio.
        let feeding = feeder.map { PlanFeedThread(feeder: $0) }
        feeding?.start()
        let position = AudiblePosition(rate: output.rate)
        let inspection = try live.inspector.map { inspector throws(SessionError) in
            try openInspection(inspector, settings: settings, output: output, position: position, trace: trace)
        }
        let playback: any ClickPlayer
        switch output {
        case .device(let sink):
            // A card's writer wants real time, and so does one in front of PipeWire (whose
            // own threads are real-time, above ours); not in front of JACK or PulseAudio (`SoundServer`).
            let realTime = (sink as? PCMDevice)?.wantsRealTimeWriter ?? false
            playback = LivePlayback(track: track, sink: sink, priority: realTime ? .realTime(memoryLocked: memoryLocked) : .ordinary,
                                    link: link, played: inspection?.played, position: position)
        case .jack(let client, let jack):
            let notes = jack.midiNotes ? ClickNotes(rate: client.rate, volume: settings.volume * track.planLevel) : nil
            let jackPlayback = JackPlayback(track: track, host: client, link: link, played: inspection?.played, position: position, notes: notes,
                                            clock: jack.midiClock, midiIn: jack.midiIn, followMIDIClock: jack.followMIDIClock)
            do {
                try client.activate(jackPlayback, connect: jack.connect, midiDestinations: jack.midiConnect)
            } catch {
                feeding?.stop()
                throw SessionError(error)
            }
            playback = jackPlayback
        }
        // Taken once the run may: a background job stops here until `fg`.
        let terminal = LiveTerminal(signals: signals, picture: settings.pendulum && settings.verbosity != .quiet)
        terminal.wakesOn = osc?.descriptor ?? -1
        let loop = LiveLoop(settings: settings, playback: playback, screen: terminal, input: terminal, trace: trace,
                            clickLog: clickLog, passageLog: passageLog, controller: controller, songs: songs,
                            inspection: inspection, midiMap: live.output.jackSettings.flatMap { $0.midiIn ? $0.midiMap : nil },
                            midiClockLeads: live.output.jackSettings?.followMIDIClock ?? false,
                            midiLearn: live.output.jackSettings?.midiLearn ?? false, osc: osc,
                            klickReport: osc == nil ? nil : KlickReport(settings: settings, live: live))
        let started = WallClockStamp.now()
        let outcome = loop.run()
        feeding?.stop()
        if let target = live.practiceLog, inspection?.settings.mode != .calibrate {
            let trainerStart: Tempo? = if case .trainer(let start, _, _, _, _)? = settings.plan { start } else { settings.adaptiveTrainer?.start }
            let record = PracticeRecord(start: started, end: .now(), tally: loop.tally, target: target, meter: settings.meter,
                                        trainerStart: trainerStart, take: inspection?.settings.mode == .inspect ? inspection?.statistics : nil)
            if let failure = PracticeLog.append(record.line, to: target.path) {
                StandardError.report("practice log '\(target.path)' not written: \(failure)")
            }
        }
        if let inspection, outcome == .finished || outcome == .stoppedBy(signal: SIGINT) {
            try conclude(inspection, report: report, settings: settings, output: output)
        }

        // A device that failed is the one line: the underruns before it were its going.
        if case .jack(let client, _) = output {
            do { try client.checkServer() } catch { throw SessionError(error) }
        }
        if let failure = playback.failure {
            throw SessionError(.deviceFailed, "audio device '\(playback.outputName)' failed: \(failure.message)")
        }
        if playback.underruns > 0 {
            let count = "\(playback.underruns) underrun\(playback.underruns == 1 ? "" : "s")"
            if case .jack = output {
                StandardError.report("\(count) in JACK client '\(playback.outputName)': the sound dropped out and the clicks due then were left out")
            } else {
                StandardError.report("\(count) on '\(playback.outputName)': the sound dropped out; a larger --latency may help")
            }
        }
        if outcome == .finished, let error = trace?.error {
            // Refused for a signal now pending (EFBIG past `ulimit -f`, with SIGXFSZ): the signal's stop, as a render's.
            if let signal = signals.takeStop() { return .stoppedBy(signal: signal) }
            throw error
        }
        return outcome
    }

    /// The Ableton Link session joined at `--bpm` (kept if alone, the session's adopted if not).
    static func joinLink(_ link: LinkSettings, settings: Settings, output: OpenedOutput) throws(SessionError) -> LinkConductor {
        let bpm = Double(settings.tempo.millibeatsPerMinute) / 1_000
        // Link keeps tempi within 20 to 999 bpm and clamps the rest.
        let linkRange = 20.0...999.0
        let clamped = min(max(bpm, linkRange.lowerBound), linkRange.upperBound)
        if clamped != bpm {
            StandardError.report("warning: Ableton Link keeps tempi within 20 to 999 bpm: --link plays \(Int(clamped)) bpm, not \(settings.tempo)")
        }
        do {
            let session = try LinkSession(bpm: clamped)
            if link.startStopSync { try session.setStartStopSync(true) }
            try session.enable()
            // A JACK client's frame heard is stamped at its cycle's start: no server cycle to add.
            let latency = if case .device(let sink) = output { serverCycleLatency(sink) } else { Int64(0) }
            return LinkConductor(session: session, rate: output.rate, periodFrames: output.periodFrames,
                                 beatsPerBar: settings.meter.beatsPerBar, startStopSync: link.startStopSync,
                                 latencyNanoseconds: latency,
                                 // Behind a server each stamp is taken after the writer woke, never before.
                                 fit: latency > 0 ? .earliest : .mean)
        } catch {
            throw SessionError(.linkUnavailable, "cannot join the Ableton Link session: \(error)")
        }
    }

    /// What a sound server's plugin adds to the delay it reports, in
    /// nanoseconds: the server takes a period at the start of each cycle (ALSA's
    /// jack plugin sets the period to JACK's), so the frame the delay names
    /// after a write is heard a period later. The server plugin's period,
    /// wherever it stands in the chain; 0 for a card, whose pointer moves as it plays.
    static func serverCycleLatency(_ sink: any AudioSink) -> Int64 {
        guard let device = sink as? PCMDevice, let period = device.serverPeriod else { return 0 }
        return FrameTime.nanoseconds(inFrames: period.frames, at: period.rate)
    }

    /// The keys' controller: its volume is the track's (a tempo map's level
    /// included) and its gains keep overlapping clicks below full scale.
    static func practiceController(_ settings: Settings, track: ClickTrack, sounds: ClickSounds, rate: SampleRate) -> PracticeController {
        PracticeController(tempo: track.schedule.tempo, volume: settings.volume * track.planLevel, rate: rate,
                           headroom: sounds.headroom(rhythm: settings.rhythm, meter: settings.meter))
    }

    /// The track `settings` ask for at `rate`; for a tempo map or the speed
    /// trainer, with the feeder that hands it the plan, and where a plan that
    /// ends is expected to end (for sizing a file; worked out only when asked).
    static func makeTrack(_ settings: Settings, sounds: ClickSounds, rate: SampleRate) -> (ClickTrack, PlanFeeder?, () -> Int64?) {
        guard let source = settings.plan else {
            let schedule = ClickSchedule(tempo: settings.tempo, meter: settings.meter, rate: rate)
            return (ClickTrack(schedule: schedule, sounds: sounds, volume: settings.volume, length: settings.length,
                               rhythm: settings.rhythm), nil, { nil })
        }
        // A tempo map's bars differ: the track counts beats.
        let whole = TempoPlan(source, rate: rate, rhythm: settings.rhythm)
        let beats: Int64?
        let length: TrackLength
        switch settings.length {
        case .bars(let bars):
            beats = whole.beats(inBars: bars)
            length = beats.map(TrackLength.beats) ?? .endless
        case .beats(let count):
            beats = count
            length = .beats(count)
        case .playtime:
            // The last tempo plays on to the end of the time.
            beats = nil
            length = settings.length
        case .endless:
            // A setlist's song plays on, live, until a key moves on (its last tempo after a map's end);
            // so does a plan that OSC may load maps after.
            beats = settings.switchesSongs && settings.output == nil ? nil : whole.beats(inBars: nil)
            length = beats.map(TrackLength.beats) ?? .endless
        }
        let plan = TempoPlan(source, rate: rate, rhythm: settings.rhythm, beats: beats)
        let feeder = PlanFeeder(plan)
        // A setlist's songs to come may be faster: the gain leaves room for the fastest of them all.
        let fastest = settings.songs?.songs.map { TempoPlan($0.source, rate: rate, rhythm: settings.rhythm).fastestSchedule }
            .min { $0.shortestInterval < $1.shortestInterval }
        let track = ClickTrack(plan: plan, feeder: feeder, sounds: sounds, volume: settings.volume, length: length, fastest: fastest)
        return (track, feeder, { plan.endFrame(beats: beats) })
    }

    static func loadSounds(_ settings: Settings, rate: SampleRate) throws -> ClickSounds {
        try SoundLibrary.load(beat: settings.beatSound, bell: settings.bellSound, subdivision: settings.subdivisionSound,
                              polyrhythm: settings.polyrhythmSound, rhythm: settings.rhythm, rate: rate,
                              count: settings.count.map { ($0.subdivided, $0.voice) },
                              betweenPieces: TerminationSignals.endIfAStopIsPending)
    }

    /// What the device granted, for `--verbose`: `device 'default': buffer 4096 frames (85.3 ms), periods of 1024 at 48000 Hz, into PipeWire`.
    static func grantedLatency(_ sink: any AudioSink) -> String {
        let rate = sink.rate.framesPerSecond
        let tenths = LivePlayback.latencyTenths(sink)
        let granted = "device '\(sink.name)': buffer \(sink.bufferFrames) frames (\(tenths / 10).\(tenths % 10) ms), periods of \(sink.periodFrames) at \(rate) Hz"
        guard let device = sink as? PCMDevice, let server = device.soundServer, let period = device.serverPeriod else { return granted }
        // A server behind a plugin that converts the rate moves periods of its own.
        let own = period == (Int64(sink.periodFrames), rate) ? "" : " (periods of \(period.frames) at \(period.rate) Hz)"
        return granted + ", into \(server.spokenName)" + own
    }

    /// A live run's output, opened: the ALSA device (or silence), or the JACK client with its port.
    static func open(_ output: Settings.Output, settings: Settings) throws(SessionError) -> OpenedOutput {
        switch output {
        case .alsa(let device, let latency):
            return .device(try openSink(device: device, latency: latency, rate: settings.rate))
        case .silent:
            return .device(SilentSink(rate: settings.rate, periodFrames: SilentSink.standardPeriod))
        case .jack(let jack):
            do {
                let client = try JackOutput(name: jack.name, split: jack.split, midi: jack.midiOut, midiIn: jack.midiIn) { rate in
                    switch jack.transport {
                    case .ignore: .ignore
                    case .follow: .follow
                    case .lead(let force): .lead(timebase(settings, rate: rate), force: force)
                    }
                }
                return .jack(client, client: jack)
            } catch {
                throw SessionError(error)
            }
        }
    }

    /// The BBT the run's grid gives every frame, for JACK's timebase: its tempo
    /// and meter, or its tempo map or trainer (a looping map worked out for its first day).
    static func timebase(_ settings: Settings, rate: SampleRate) -> TransportTimebase {
        guard let source = settings.plan else {
            return TransportTimebase(schedule: ClickSchedule(tempo: settings.tempo, meter: settings.meter, rate: rate))
        }
        return TransportTimebase(plan: TempoPlan(source, rate: rate, rhythm: settings.rhythm), horizon: rate.framesPerSecond * 86_400)
    }

    /// The ALSA device, or silence when the default device is missing.
    static func openSink(device: String?, latency: Latency?, rate: SampleRate) throws(SessionError) -> any AudioSink {
        let name = device ?? "default"
        // Without --latency the device chooses: a sound server needs more than a card.
        let sizes = latency?.frames(at: rate)
        do {
            return try PCMDevice(name: name, rate: rate, periodFrames: sizes?.period, bufferFrames: sizes?.buffer)
        } catch {
            if device != nil {
                throw SessionError(.deviceUnavailable, "cannot open audio device '\(name)': \(error.message)")
            }
            StandardError.report("warning: cannot open audio device '\(name)': \(error.message); running without sound")
            // No latency to keep low without a device: larger periods, fewer wakeups.
            return SilentSink(rate: rate, periodFrames: SilentSink.standardPeriod)
        }
    }
}
