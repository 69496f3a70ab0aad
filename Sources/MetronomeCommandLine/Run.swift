import Glibc
import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomeSession

/// What one command line asks for, built once (`MetronomeCommand.makeRun()`).
package enum Run: Sendable, Equatable {
    /// `--list-devices`: the playback devices ALSA knows, one a line.
    case listDevices
    /// A live run or a render, as the settings say.
    case session(Settings)
}

extension MetronomeCommand {
    /// The run the options ask for, built once. Every check that reads no
    /// file comes first, so that a bad option is refused before a file is
    /// read, `--list-devices` too; then the tempo map or the setlist is read,
    /// once, and the rhythm made against its bars.
    package func makeRun(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) throws -> Run {
        // Each value as its own type read it, in the order of the groups: a bad one is its line
        // before any combination of options is looked at.
        let values: [(any CheckedOption)?] = [tempo.bpm, tempo.meter, practice.subdivisionVolume, practice.countIn, practice.until, practice.whenTight,
                                              sound.volume, sound.rate, output.bars, output.duration, device.latency,
                                              picture.angle, picture.visualOffset, picture.fps]
        for value in values { try value?.check() }
        try sound.checkFileNames()
        let bpm = try tempo.bpm?.value(), givenMeter = try tempo.meter?.value()
        let start = bpm ?? Tempo(bpm: 120)!, meter = givenMeter ?? .common
        try practice.check(bpm: bpm, meter: givenMeter)
        try setlist.check(tempoMap: practice.tempoMap, bpm: bpm, meter: givenMeter,
                          trainer: practice.step != nil || practice.until != nil, startAt: practice.startAt, loop: practice.loop)
        // Without a map or a setlist the rhythm and the plan depend on the options alone: made now.
        let alone = practice.tempoMap == nil && setlist.setlist == nil
        var rhythm = alone ? try rhythm(meter: meter) : .plain
        let listening = inspector.listening.first == .inspect
        var program = alone ? try practice.program(practice.source(map: nil, tempo: start, meter: meter), inspecting: listening) : .steady
        let rate = try sound.rate?.value() ?? .standard, volume = try sound.volume?.value().level.value ?? 1
        var length = try output.length(rate: rate)
        let file = try outputFile(length: length)
        if device.device?.isEmpty == true { throw SessionError.badRequest("device name is empty: use e.g. default or hw:0") }
        let picture = try picture.settings()
        if output.trace?.isEmpty == true { throw SessionError.badRequest("--trace needs a file name") }
        let jack = try self.jack.settings(device: device, output: output, practice: practice, setlist: setlist, link: link)
        let link = try link.settings(practice: practice, output: output, setlist: setlist)
        let count = try sound.countSettings(link: link != nil, jack: self.jack)
        let inspector = try inspector.settings(output: output.output, link: link != nil)
        let osc = try self.osc.settings(output: output, tempoMap: practice.tempoMap)
        try device.checkSilent(jack: jack != nil, output: output.output, listening: inspector != nil)
        if inspector?.mode == .calibrate, length == .endless { length = .bars(4) }
        let destination: Settings.Destination = if let file {
            .file(path: file.path, format: file.format)
        } else {
            .live(Settings.Live(output: device.silent ? .silent
                                    : try jack.map(Settings.Output.jack) ?? .alsa(device: device.device, latency: try device.latency?.value()),
                                link: link, inspector: inspector, osc: osc, practiceLog: practiceLog(environment)))
        }
        let outputs = Settings.outputs(of: destination, trace: output.trace)
        try checkOutputs(outputs, listening: inspector != nil)
        let verbosity = try VerbosityFlag.verbosity(given: self.verbosity)
        if device.listDevices { return .listDevices }

        if let read = try setlist.read() {
            // Every song's file is read too: nothing written may be one of them.
            try Settings.checkOutputsAreNotInputs(outputs: outputs, inputs: read.files.map { ("--setlist's song '\($0.song)' names", $0.path) })
            let meters = read.songs.songs.flatMap { song in
                switch song.source {
                case .trainer(_, _, _, _, let meter): [meter]
                case .map(let map, _, _): map.entries.map(\.meter)
                }
            }
            rhythm = try self.rhythm(meter: Self.shortest(meters) ?? meter)
            program = .setlist(read.songs)
        } else if let map = try practice.readMap() {
            rhythm = try self.rhythm(meter: Self.shortest(map.entries.map(\.meter)) ?? meter)
            program = try practice.program(practice.source(map: map, tempo: start, meter: meter), inspecting: listening)
        }
        var settings = Settings(tempo: start, meter: meter, rate: rate, volume: volume, length: length,
                                beatSound: sound.beatSound, bellSound: sound.bellSound, subdivisionSound: sound.subdivisionSound,
                                polyrhythmSound: sound.polyrhythmSound, rhythm: rhythm, program: program, destination: destination,
                                picture: picture, trace: output.trace, force: output.force, verbosity: verbosity)
        settings.count = count
        return .session(settings)
    }

    /// Where a live run logs itself: nil with `--no-log`, or with neither `$XDG_STATE_HOME` nor `$HOME`.
    func practiceLog(_ environment: (String) -> String?) -> PracticeLogTarget? {
        guard !config.noLog, let path = PracticeLogTarget.defaultPath(environment) else { return nil }
        return PracticeLogTarget(path: path, preset: config.preset, setlist: setlist.setlist)
    }

    /// Throws the error any option's value was refused with, whatever it goes with:
    /// a config file's value is checked alone, at its line.
    func checkValues() throws {
        let values: [(any CheckedOption)?] = [tempo.bpm, tempo.meter, practice.pattern, practice.subdivide, practice.swing,
                                              practice.subdivisionVolume, practice.polyrhythm, practice.countIn, practice.gap,
                                              practice.randomMute, practice.seed, practice.step, practice.until, practice.whenTight,
                                              sound.volume, sound.rate, output.bars, output.duration, device.latency,
                                              picture.angle, picture.visualOffset, picture.fps, inspector.inputLatency]
        for value in values { try value?.check() }
    }

    /// The rhythm the options make in bars of `meter`: with a map or a setlist,
    /// its shortest bar, against which options that count beats are checked.
    func rhythm(meter: Meter) throws -> Rhythm {
        try practice.rhythm(meter: meter, subdivisionSound: sound.subdivisionSound, polyrhythmSound: sound.polyrhythmSound)
    }

    /// The meter of fewest beats a bar.
    static func shortest(_ meters: [Meter]) -> Meter? {
        meters.min { $0.beatsPerBar < $1.beatsPerBar }
    }

    /// `--output`'s file and its format, checked against the options a render
    /// does not take; nil without `--output`.
    func outputFile(length: TrackLength) throws -> (path: String, format: OutputFormat)? {
        guard let path = output.output else {
            if output.format != nil { throw SessionError.badRequest("--format applies to --output files only") }
            return nil
        }
        guard !path.isEmpty else { throw SessionError.badRequest("output file name is empty") }
        let format = try OutputFormat(path: path, sampleFormat: output.format ?? .pcm16)
        // A map that does not loop ends by itself (a setlist's song may be one: its render says).
        guard length != .endless || (practice.tempoMap != nil && !practice.loop) || setlist.setlist != nil else {
            throw SessionError.badRequest("--output '\(path)' needs a length: add --bars N or --duration T, e.g. --bars 16")
        }
        guard device.device == nil, device.latency == nil else {
            throw SessionError.badRequest("--device and --latency are for live playback; --output renders a file")
        }
        return (path, format)
    }

    /// `--force` needs a file to force, and no file written may be one the run
    /// reads (a file option, a built-in sound, the round trips a listener reads).
    func checkOutputs(_ outputs: [(String, String?)], listening: Bool) throws {
        if output.force, outputs.allSatisfy({ $0.1 == nil }), jack.transport != .master {
            throw SessionError.badRequest("--force applies to --output, --trace and --report files, and to --transport master, only")
        }
        let options = [("--tempo-map", practice.tempoMap), ("--setlist", setlist.setlist), ("--beat-sound", sound.beatSound),
                       ("--bell-sound", sound.bellSound), ("--subdivision-sound", sound.subdivisionSound),
                       ("--polyrhythm-sound", sound.polyrhythmSound)]
        // A sound not given is read from the built-in ones.
        let builtIn = [("beat", sound.beatSound, "beat.wav"), ("bell", sound.bellSound, "bell.wav"),
                       ("subdivision", sound.subdivisionSound, "sub.wav"), ("second voice", sound.polyrhythmSound, "poly.wav")]
            .map { kind, given, name in ("of the built-in \(kind) sound", given == nil ? try? SoundLibrary.builtIn(name) : nil) }
        // The listener reads the round trips --calibrate saved (and --calibrate writes them).
        let roundTrips = listening ? RoundTripStore()?.path : nil
        try Settings.checkOutputsAreNotInputs(outputs: outputs,
                                              inputs: options.map { ("\($0) names", $1) } + builtIn + [("--calibrate saves round trips in", roundTrips)])
    }
}
