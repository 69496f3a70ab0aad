import ArgumentParser
import Glibc
import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomeTerminal
import MetronomeSession

/// `metronome`: the command line, read top to bottom. Every option's value
/// is parsed by its own type as the line is read; `validate` checks which
/// options go together; `run` reads the files once and plays or renders.
public struct MetronomeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "metronome",
        abstract: "A sample-accurate metronome: a beat on every beat, a bell on the first beat of every bar.",
        discussion: """
            Plays through ALSA until you press q or Ctrl-C, or renders a click track to a file. \
            On a terminal it draws a pendulum that reaches its extreme exactly when each click is heard; \
            when stdout is not a terminal it prints a line per bar.

            Examples:
              metronome --bpm 90
              metronome --bpm 132.5 --meter 3/4 --volume 0.6
              metronome --bpm 160 --meter 2+2+3/8 --subdivide 2 --count-in 1
              metronome --bpm 100 --polyrhythm 3:2 --gap 3:1
              metronome --bpm 80 --step 2/4 --until 120
              metronome --tempo-map song.txt --start-at chorus --loop
              metronome --link --bpm 120
              metronome --calibrate --input-device hw:1   (once: the round trip)
              metronome --bpm 96 --inspect --input-device hw:1
              metronome --tempo-map song.txt --output song.wav
              metronome --tempo-map song.txt --output song.mid
              metronome --tempo-map daw-export.mid --start-at Chorus
              metronome --setlist tonight.txt --song Waltz   (n / p: next / previous song)
              metronome --bpm 137 --output click.wav --duration 1h
              metronome --bpm 120 --output click.flac --bars 64 --rate 44100

            Exit status: 0 done, 64 bad option, 65 malformed tempo map or setlist (a MIDI file: at its byte offset), \
            66 unreadable sound file or tempo map, 69 audio device unavailable, \
            73 output cannot be created, 74 audio device or file failed midway, \
            128+N stopped by signal N.
            """,
        version: MetronomeVersion.current
    )

    @OptionGroup(title: "Tempo")
    var tempo: TempoOptions

    @OptionGroup(title: "Practice")
    var practice: PracticeOptions

    @OptionGroup(title: "Setlist")
    var setlist: SetlistOptions

    @OptionGroup(title: "Sound")
    var sound: SoundOptions

    @OptionGroup(title: "Length and files")
    var output: OutputOptions

    @OptionGroup(title: "Device")
    var device: DeviceOptions

    @OptionGroup(title: "Picture")
    var picture: PictureOptions

    @OptionGroup(title: "Playing with others")
    var link: LinkOptions

    @OptionGroup(title: "Listening back")
    var inspector: InspectorOptions

    /// `--verbose` or `--quiet`, each as often as given: one of them a run.
    @Flag var verbosity: [VerbosityFlag] = []

    public init() {}

    public func run() throws {
        // Every check that reads no file first: a bad option is refused even with --list-devices.
        let options = try settingsWithoutFiles()
        if device.listDevices {
            for device in PlaybackDevice.all() { print(device.line) }
            return
        }
        let outcome = try Session.run(try settings(completing: options))
        // Stopped by a signal and cleaned up: die of it, so a shell loop stops too
        // (this returns only for a signal that does not kill).
        if case .stoppedBy(let signal) = outcome { TerminationSignals.end(by: signal) }
        let status = CommandFailure.status(of: outcome)
        if status != 0 { throw ExitCode(status) }
    }

    /// Everything the run needs, the tempo map read once.
    public func settings() throws -> Settings {
        try settings(completing: settingsWithoutFiles())
    }

    /// `settings` as far as the options alone say, completed by the files they name.
    func settings(completing settings: Settings) throws -> Settings {
        var settings = settings
        if let read = try setlist.read() {
            let songs = read.songs
            // Every song's file is read too: nothing written may be one of them.
            try Settings.checkOutputsAreNotInputs(outputs: settings.outputs, inputs: read.files.map { ("--setlist's song '\($0.song)' names", $0.path) })
            // Rhythm options that count beats of a bar are checked against the shortest bar of any song.
            var meters: [Meter] = []
            for song in songs.songs {
                switch song.source {
                case .trainer(_, _, _, _, let meter): meters.append(meter)
                case .map(let map, _, _): meters += map.entries.map(\.meter)
                }
            }
            let rhythmMeter = meters.min { $0.beatsPerBar < $1.beatsPerBar } ?? settings.meter
            settings.rhythm = try practice.rhythm(meter: rhythmMeter, subdivisionSound: sound.subdivisionSound,
                                                  polyrhythmSound: sound.polyrhythmSound)
            settings.songs = songs
            settings.plan = songs.songs[songs.current].source
            return settings
        }
        // Without a map the options alone made the rhythm and the plan.
        guard let map = try practice.readMap() else { return settings }
        // Rhythm options that count beats of a bar are checked against the map's shortest bar.
        let rhythmMeter = map.entries.map(\.meter).min { $0.beatsPerBar < $1.beatsPerBar } ?? settings.meter
        settings.rhythm = try practice.rhythm(meter: rhythmMeter, subdivisionSound: sound.subdivisionSound,
                                              polyrhythmSound: sound.polyrhythmSound)
        settings.plan = try practice.source(map: map, tempo: settings.tempo, meter: settings.meter)
        return settings
    }

    /// The settings as far as the options alone say, with every check that reads no file.
    func settingsWithoutFiles() throws -> Settings {
        // Each value as its own type read it, in the order of the groups: a bad one is its line
        // before any combination of options is looked at.
        let values: [(any CheckedOption)?] = [tempo.bpm, tempo.meter, practice.subdivisionVolume, practice.countIn, practice.until,
                                              sound.volume, sound.rate, output.bars, output.duration, device.latency,
                                              picture.angle, picture.visualOffset, picture.fps]
        for value in values { try value?.check() }
        var settings = Settings()
        let bpm = try tempo.bpm?.value(), meter = try tempo.meter?.value()
        if let bpm { settings.tempo = bpm }
        if let meter { settings.meter = meter }
        try practice.validate(bpm: bpm, meter: meter)
        try setlist.validate(tempoMap: practice.tempoMap, bpm: bpm, meter: meter,
                             trainer: practice.step != nil || practice.until != nil, startAt: practice.startAt, loop: practice.loop)
        if practice.tempoMap == nil, setlist.setlist == nil {
            // Without a map the rhythm depends on the options alone: check it now.
            settings.rhythm = try practice.rhythm(meter: settings.meter, subdivisionSound: sound.subdivisionSound,
                                                  polyrhythmSound: sound.polyrhythmSound)
            settings.plan = try practice.source(map: nil, tempo: settings.tempo, meter: settings.meter)
        }
        try sound.validate()
        settings.subdivisionSound = sound.subdivisionSound
        settings.polyrhythmSound = sound.polyrhythmSound
        settings.beatSound = sound.beatSound
        settings.bellSound = sound.bellSound
        if let rate = sound.rate { settings.rate = try rate.value() }
        if let volume = sound.volume { settings.volume = try volume.value().level.value }
        switch (output.bars, output.duration) {
        case (.some, .some):
            throw SessionError.badRequest("--bars and --duration both set the length: give one of them")
        case (.some(let bars), nil):
            settings.length = try bars.value()
        case (nil, .some(let duration)):
            let playtime = try duration.value()
            guard playtime.frames(at: settings.rate) > 0 else {
                throw SessionError.badRequest("duration '\(duration.text)' is shorter than one frame at \(settings.rate.framesPerSecond) Hz: use e.g. 1s")
            }
            settings.length = .playtime(playtime)
        case (nil, nil):
            break
        }
        if let path = output.output {
            guard !path.isEmpty else { throw SessionError.badRequest("output file name is empty") }
            settings.outputFormat = try OutputFormat(path: path, sampleFormat: output.format ?? .pcm16)
            // A map that does not loop ends by itself.
            // A map that does not loop ends by itself (a setlist's song may be one: its render says).
            guard settings.length != .endless || (practice.tempoMap != nil && !practice.loop) || setlist.setlist != nil else {
                throw SessionError.badRequest("--output '\(path)' needs a length: add --bars N or --duration T, e.g. --bars 16")
            }
            guard device.device == nil, device.latency == nil else {
                throw SessionError.badRequest("--device and --latency are for live playback; --output renders a file")
            }
        } else if output.format != nil {
            throw SessionError.badRequest("--format applies to --output files only")
        }
        settings.output = output.output
        if let name = device.device {
            guard !name.isEmpty else { throw SessionError.badRequest("device name is empty: use e.g. default or hw:0") }
            settings.device = name
        }
        settings.latency = try device.latency?.value()
        try picture.apply(to: &settings)
        if let trace = output.trace {
            guard !trace.isEmpty else { throw SessionError.badRequest("--trace needs a file name") }
            settings.trace = trace
        }
        settings.force = output.force
        settings.link = try link.settings(practice: practice, output: output, setlist: setlist)
        settings.inspector = try inspector.settings(output: output.output, link: settings.link != nil)
        if settings.inspector?.mode == .calibrate, settings.length == .endless { settings.length = .bars(4) }
        if output.force, settings.outputs.allSatisfy({ $0.1 == nil }) {
            throw SessionError.badRequest("--force applies to --output, --trace and --report files only")
        }
        let options = [("--tempo-map", practice.tempoMap), ("--setlist", setlist.setlist), ("--beat-sound", sound.beatSound),
                       ("--bell-sound", sound.bellSound), ("--subdivision-sound", sound.subdivisionSound),
                       ("--polyrhythm-sound", sound.polyrhythmSound)]
        // A sound not given is read from the built-in ones.
        let builtIn = [("beat", sound.beatSound, "beat.wav"), ("bell", sound.bellSound, "bell.wav"),
                       ("subdivision", sound.subdivisionSound, "sub.wav"), ("second voice", sound.polyrhythmSound, "poly.wav")]
            .map { kind, given, name in ("of the built-in \(kind) sound", given == nil ? try? SoundLibrary.builtIn(name) : nil) }
        // The listener reads the round trips --calibrate saved (and --calibrate writes them).
        let roundTrips = settings.inspector == nil ? nil : RoundTripStore()?.path
        try Settings.checkOutputsAreNotInputs(outputs: settings.outputs,
                                              inputs: options.map { ("\($0) names", $1) } + builtIn + [("--calibrate saves round trips in", roundTrips)])
        if Set(verbosity).count > 1 { throw SessionError.badRequest("--verbose and --quiet contradict each other: give one") }
        settings.verbosity = switch verbosity.first {
        case nil: .normal
        case .verbose: .verbose
        case .quiet: .quiet
        }
        return settings
    }
}
