import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomePendulum

/// Everything one run of the metronome needs, parsed and checked: built once
/// by the command line (`MetronomeCommand`), never changed after. What cannot
/// go together cannot be held: a file rendered has no device, Link session or
/// listener (`Destination`); a setlist is the plan (`Program`).
package struct Settings: Sendable, Equatable {
    package let tempo: Tempo
    package let meter: Meter
    package let rate: SampleRate
    package let volume: Float
    package let length: TrackLength
    package let beatSound: String?
    /// `--count`: the spoken count, if the beats are spoken.
    package var count: Count?
    package let bellSound: String?
    package let subdivisionSound: String?
    package let polyrhythmSound: String?
    /// Accents, subdivisions, second voice, count-in and muted beats.
    package let rhythm: Rhythm
    /// What moves the tempo.
    package let program: Program
    /// Played live, or rendered to a file.
    package let destination: Destination
    /// The pendulum on the terminal.
    package let picture: Picture
    package let trace: String?
    /// Replace a read-only output file.
    package let force: Bool
    package enum Verbosity: Sendable { case normal, verbose, quiet }
    /// Set only here: a live run stopping before it could show anything shows nothing (`LiveLoop`).
    package internal(set) var verbosity: Verbosity

    /// What moves the tempo.
    package enum Program: Sendable, Equatable {
        /// One tempo (keys may change it).
        case steady
        /// A tempo map or the speed trainer.
        case plan(TempoPlan.Source)
        /// `--setlist`: the songs, the current one's plan first.
        case setlist(SongList)
        /// `--when-tight`: the adaptive trainer, which moves the tempo as the player earns it.
        case adaptive(AdaptiveTrainer.Rule)
    }

    /// Where the clicks go.
    package enum Destination: Sendable, Equatable {
        /// Played on a device, with what else the live run does.
        case live(Live)
        /// `--output`: rendered to the file at `path`.
        case file(path: String, format: OutputFormat)
    }

    /// A live run's output, and the Link session and the listener that only a live run has.
    package struct Live: Sendable, Equatable {
        /// Where the clicks are played.
        package let output: Output
        /// An Ableton Link session to play in, if any.
        package let link: LinkSettings?
        /// `--inspect` or `--calibrate`: listening to the player, if asked.
        package let inspector: InspectorSettings?
        /// `--osc PORT`: remote control over OSC, if asked.
        package let osc: OSCSettings?
        /// The practice log the run appends its line to; nil with `--no-log`.
        package let practiceLog: PracticeLogTarget?

        package init(output: Output = .alsa(device: nil, latency: nil), link: LinkSettings? = nil, inspector: InspectorSettings? = nil,
                     osc: OSCSettings? = nil, practiceLog: PracticeLogTarget? = nil) {
            self.output = output
            self.link = link
            self.inspector = inspector
            self.osc = osc
            self.practiceLog = practiceLog
        }

        /// The ALSA device asked for; nil for `default` or a JACK client.
        package var device: String? {
            if case .alsa(let device, _) = output { device } else { nil }
        }
    }

    /// Where a live run's clicks are played.
    package enum Output: Sendable, Equatable {
        /// An ALSA device (nil: `default`, and playing on silently when it cannot be opened) and its buffer.
        case alsa(device: String?, latency: Latency?)
        /// `--jack`: a JACK client of our own.
        case jack(JackClientSettings)
        /// `--silent`: nothing played, no device and no ALSA opened; the monotonic clock stands in for the card's.
        case silent

        package var jackSettings: JackClientSettings? {
            if case .jack(let settings) = self { settings } else { nil }
        }
    }

    /// `--jack`'s client: its name, its ports and where they are connected.
    package struct JackClientSettings: Sendable, Equatable {
        /// The client's name (`--jack-name`); JACK may add a suffix if it is taken.
        package let name: String
        /// One port `out`, or a port a voice (`bell`, `beat`, `sub`, `poly`).
        package let split: Bool
        /// nil: the system's playback ports; empty: none (`--no-connect`); else these ports.
        package let connect: [String]?
        /// What the clicks do with JACK's transport (`--transport`).
        package let transport: Transport
        /// The clicks as MIDI notes on a port `midi_out` too (`--midi-notes`).
        package let midiNotes: Bool
        /// A MIDI clock on `midi_out` (`--midi-clock`).
        package let midiClock: Bool
        /// Where `midi_out` is connected (`--midi-connect`); none by default.
        package let midiConnect: [String]
        /// A MIDI input `midi_in` whose messages act as keys (`--midi-in`), by `midiMap`
        /// (nil: none do, the clock alone is followed); with `midiLearn` each printed as the map line that binds it.
        package let midiIn: Bool
        package let midiMap: MIDIMap?
        package let midiLearn: Bool
        /// The clicks where a MIDI clock on `midi_in` says (`--follow-midi-clock`).
        package let followMIDIClock: Bool
        /// Whether the client has a MIDI port `midi_out`.
        package var midiOut: Bool { midiNotes || midiClock }

        package enum Transport: Sendable, Equatable {
            case ignore
            /// The timebase master's beats.
            case follow
            /// Be the timebase master; `force`: even when another client is.
            case lead(force: Bool)
        }

        package init(name: String = "metronome", split: Bool = false, connect: [String]? = nil, transport: Transport = .ignore,
                     midiNotes: Bool = false, midiClock: Bool = false, midiConnect: [String] = [], midiIn: Bool = false,
                     midiMap: MIDIMap? = nil, midiLearn: Bool = false, followMIDIClock: Bool = false) {
            self.followMIDIClock = followMIDIClock
            self.midiIn = midiIn
            self.midiMap = midiMap
            self.midiLearn = midiLearn
            self.name = name
            self.split = split
            self.connect = connect
            self.transport = transport
            self.midiNotes = midiNotes
            self.midiClock = midiClock
            self.midiConnect = midiConnect
        }
    }

    /// How the pendulum swings and is drawn.
    package struct Picture: Sendable, Equatable {
        package let pendulum: Bool
        /// How far the rod swings each way, in degrees.
        package let swingAngle: Double
        package let easing: Easing
        package let clickAt: PendulumMotion.ClickPosition
        package let style: PictureStyle
        /// Positive: the picture is shown later than the sound, by this much.
        package let visualOffsetMicroseconds: Int64
        package let framesPerSecond: Int
        /// `--flash`: the picture in reverse video just after each bell, the status line after each other beat.
        package let flash: Bool

        package init(pendulum: Bool = true, swingAngle: Double = 30, easing: Easing = .easeInOut, clickAt: PendulumMotion.ClickPosition = .edge,
                    style: PictureStyle = .ascii, visualOffsetMicroseconds: Int64 = 0, framesPerSecond: Int = 60, flash: Bool = false) {
            self.flash = flash
            self.pendulum = pendulum
            self.swingAngle = swingAngle
            self.easing = easing
            self.clickAt = clickAt
            self.style = style
            self.visualOffsetMicroseconds = visualOffsetMicroseconds
            self.framesPerSecond = framesPerSecond
        }
    }

    /// `--count voice` (`voice-subdivided`: the clicks between beats spoken too) and `--voice`'s folder (nil: the built-in voice).
    package struct Count: Sendable, Equatable {
        package var subdivided: Bool
        package var voice: String?

        package init(subdivided: Bool, voice: String? = nil) {
            self.subdivided = subdivided
            self.voice = voice
        }
    }

    package init(tempo: Tempo = Tempo(bpm: 120)!, meter: Meter = .common, rate: SampleRate = .standard, volume: Float = 1,
                length: TrackLength = .endless, beatSound: String? = nil, bellSound: String? = nil, subdivisionSound: String? = nil,
                polyrhythmSound: String? = nil, rhythm: Rhythm = .plain, program: Program = .steady,
                destination: Destination = .live(Live()), picture: Picture = Picture(), trace: String? = nil, force: Bool = false,
                verbosity: Verbosity = .normal) {
        self.tempo = tempo
        self.meter = meter
        self.rate = rate
        self.volume = volume
        self.length = length
        self.beatSound = beatSound
        self.bellSound = bellSound
        self.subdivisionSound = subdivisionSound
        self.polyrhythmSound = polyrhythmSound
        self.rhythm = rhythm
        self.program = program
        self.destination = destination
        self.picture = picture
        self.trace = trace
        self.force = force
        self.verbosity = verbosity
    }

    /// A tempo map or the speed trainer, or the current song's; nil: one tempo.
    package var plan: TempoPlan.Source? {
        switch program {
        case .steady, .adaptive: nil
        case .plan(let source): source
        case .setlist(let list): list.songs[list.current].source
        }
    }

    /// `--when-tight`'s adaptive trainer.
    package var adaptiveTrainer: AdaptiveTrainer.Rule? {
        if case .adaptive(let rule) = program { rule } else { nil }
    }

    /// `--setlist`'s songs.
    package var songs: SongList? {
        if case .setlist(let list) = program { list } else { nil }
    }

    /// Whether the run switches songs at bar lines: a setlist's, or with `--osc-allow-files` the
    /// tempo maps `/klick/map/load_file` loads into a run that plays a plan (a map, the trainer).
    package var switchesSongs: Bool {
        guard songs == nil else { return true }
        if case .live(let live) = destination, live.osc?.filesAllowed == true, plan != nil { return true }
        return false
    }

    /// `--output`: the file rendered instead of playing.
    package var output: String? {
        if case .file(let path, _) = destination { path } else { nil }
    }

    package var link: LinkSettings? {
        if case .live(let live) = destination { live.link } else { nil }
    }

    package var inspector: InspectorSettings? {
        if case .live(let live) = destination { live.inspector } else { nil }
    }

    package var pendulum: Bool { picture.pendulum }

    /// The files a run to `destination` writes, by option: `--output`, `--trace`, `--report`.
    package static func outputs(of destination: Destination, trace: String?) -> [(String, String?)] {
        let file: String?, report: String?
        switch destination {
        case .file(let path, _): (file, report) = (path, nil)
        case .live(let live): (file, report) = (nil, live.inspector?.report)
        }
        return [("--output", file), ("--trace", trace), ("--report", report)]
    }

    /// A file written must not be a file the run reads, nor another file
    /// written: writing it would destroy what is being read. Each input is
    /// labelled by what reads it, to end "is the file …" (`--tempo-map names`).
    package static func checkOutputsAreNotInputs(outputs: [(String, String?)], inputs: [(String, String?)]) throws(SessionError) {
        let written = outputs.compactMap { option, path in path.map { (option, $0) } }
        let read = inputs.compactMap { reader, path in path.map { (reader, $0) } }.filter { $0.1 != "-" }
        for (index, (option, path)) in written.enumerated() {
            for (other, otherPath) in read + written[(index + 1)...].map({ ("\($0.0) names", $0.1) }) where FileIdentity.sameFile(path, otherPath) {
                throw .badRequest("\(option) '\(path)' is the file \(other): choose another file name")
            }
        }
    }
}

/// How the run takes part in an Ableton Link session.
package struct LinkSettings: Sendable, Equatable {
    /// Start and stop are shared with the peers that share them.
    package let startStopSync: Bool

    package init(startStopSync: Bool) {
        self.startStopSync = startStopSync
    }
}

/// What the practice inspector listens on and what it does: a take's notes
/// (`inspect`), or the round trip measured (`calibrate`), which takes no
/// round trip and writes no report.
package struct InspectorSettings: Sendable, Equatable {
    package enum Mode: Sendable, Hashable, CaseIterable {
        /// `--inspect`: every note matched to its click.
        case inspect
        /// `--calibrate`: the round trip measured and saved.
        case calibrate
    }

    package let mode: Mode
    /// `--input-device`: the ALSA capture device.
    package let inputDevice: String
    /// `--input-latency`: the round trip in milliseconds, instead of the one calibrated.
    package let inputLatencyMilliseconds: Double?
    /// `--report`: the summary as JSON.
    package let report: String?

    /// `--inspect`: the notes played on `inputDevice`, matched to their clicks.
    package static func inspect(inputDevice: String = "default", inputLatencyMilliseconds: Double? = nil, report: String? = nil) -> InspectorSettings {
        InspectorSettings(mode: .inspect, inputDevice: inputDevice, inputLatencyMilliseconds: inputLatencyMilliseconds, report: report)
    }

    /// `--calibrate`: the round trip from the output to `inputDevice`, measured.
    package static func calibrate(inputDevice: String = "default") -> InspectorSettings {
        InspectorSettings(mode: .calibrate, inputDevice: inputDevice, inputLatencyMilliseconds: nil, report: nil)
    }

    private init(mode: Mode, inputDevice: String, inputLatencyMilliseconds: Double?, report: String?) {
        self.mode = mode
        self.inputDevice = inputDevice
        self.inputLatencyMilliseconds = inputLatencyMilliseconds
        self.report = report
    }
}

/// `--osc PORT` and `--osc-host ADDR`: an OSC server over UDP on that port of that address, and over TCP too with `--osc-tcp`.
package struct OSCSettings: Sendable, Equatable {
    /// A numeric address of this machine's: 127.0.0.1 unless asked.
    package let host: String
    package let port: Int
    /// `--osc-allow-files`: messages that name a file are considered rather than refused.
    package let filesAllowed: Bool
    /// `--osc-tcp`: TCP on the same port, beside UDP.
    package let tcp: Bool
    /// The tempo map's file as given (`--tempo-map`), which klick's `/klick/map/query` reports.
    package let mapFile: String?

    package init(host: String = "127.0.0.1", port: Int, tcp: Bool = false, filesAllowed: Bool = false, mapFile: String? = nil) {
        self.host = host
        self.port = port
        self.tcp = tcp
        self.filesAllowed = filesAllowed
        self.mapFile = mapFile
    }
}
