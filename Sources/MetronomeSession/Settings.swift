import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomePendulum

/// Everything one run of the metronome needs, parsed and checked: built once
/// by the command line (`MetronomeCommand`), never changed after. What cannot
/// go together cannot be held: a file rendered has no device, Link session or
/// listener (`Destination`); a setlist is the plan (`Program`).
public struct Settings: Sendable, Equatable {
    public let tempo: Tempo
    public let meter: Meter
    public let rate: SampleRate
    public let volume: Float
    public let length: TrackLength
    public let beatSound: String?
    public let bellSound: String?
    public let subdivisionSound: String?
    public let polyrhythmSound: String?
    /// Accents, subdivisions, second voice, count-in and muted beats.
    public let rhythm: Rhythm
    /// What moves the tempo.
    public let program: Program
    /// Played live, or rendered to a file.
    public let destination: Destination
    /// The pendulum on the terminal.
    public let picture: Picture
    public let trace: String?
    /// Replace a read-only output file.
    public let force: Bool
    public enum Verbosity: Sendable { case normal, verbose, quiet }
    /// Set only here: a live run stopping before it could show anything shows nothing (`LiveLoop`).
    public internal(set) var verbosity: Verbosity

    /// What moves the tempo.
    public enum Program: Sendable, Equatable {
        /// One tempo (keys may change it).
        case steady
        /// A tempo map or the speed trainer.
        case plan(TempoPlan.Source)
        /// `--setlist`: the songs, the current one's plan first.
        case setlist(SongList)
    }

    /// Where the clicks go.
    public enum Destination: Sendable, Equatable {
        /// Played on a device, with what else the live run does.
        case live(Live)
        /// `--output`: rendered to the file at `path`.
        case file(path: String, format: OutputFormat)
    }

    /// A live run's device, and the Link session and the listener that only a live run has.
    public struct Live: Sendable, Equatable {
        /// nil: the `default` device, and playing on silently when it cannot be opened.
        public let device: String?
        public let latency: Latency?
        /// An Ableton Link session to play in, if any.
        public let link: LinkSettings?
        /// `--inspect` or `--calibrate`: listening to the player, if asked.
        public let inspector: InspectorSettings?

        public init(device: String? = nil, latency: Latency? = nil, link: LinkSettings? = nil, inspector: InspectorSettings? = nil) {
            self.device = device
            self.latency = latency
            self.link = link
            self.inspector = inspector
        }
    }

    /// How the pendulum swings and is drawn.
    public struct Picture: Sendable, Equatable {
        public let pendulum: Bool
        /// How far the rod swings each way, in degrees.
        public let swingAngle: Double
        public let easing: Easing
        public let clickAt: PendulumMotion.ClickPosition
        public let style: PictureStyle
        /// Positive: the picture is shown later than the sound, by this much.
        public let visualOffsetMicroseconds: Int64
        public let framesPerSecond: Int

        public init(pendulum: Bool = true, swingAngle: Double = 30, easing: Easing = .easeInOut, clickAt: PendulumMotion.ClickPosition = .edge,
                    style: PictureStyle = .ascii, visualOffsetMicroseconds: Int64 = 0, framesPerSecond: Int = 60) {
            self.pendulum = pendulum
            self.swingAngle = swingAngle
            self.easing = easing
            self.clickAt = clickAt
            self.style = style
            self.visualOffsetMicroseconds = visualOffsetMicroseconds
            self.framesPerSecond = framesPerSecond
        }
    }

    public init(tempo: Tempo = Tempo(bpm: 120)!, meter: Meter = .common, rate: SampleRate = .standard, volume: Float = 1,
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
    public var plan: TempoPlan.Source? {
        switch program {
        case .steady: nil
        case .plan(let source): source
        case .setlist(let list): list.songs[list.current].source
        }
    }

    /// `--setlist`'s songs.
    public var songs: SongList? {
        if case .setlist(let list) = program { list } else { nil }
    }

    /// `--output`: the file rendered instead of playing.
    public var output: String? {
        if case .file(let path, _) = destination { path } else { nil }
    }

    public var link: LinkSettings? {
        if case .live(let live) = destination { live.link } else { nil }
    }

    public var inspector: InspectorSettings? {
        if case .live(let live) = destination { live.inspector } else { nil }
    }

    public var pendulum: Bool { picture.pendulum }

    /// The files a run to `destination` writes, by option: `--output`, `--trace`, `--report`.
    public static func outputs(of destination: Destination, trace: String?) -> [(String, String?)] {
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
    public static func checkOutputsAreNotInputs(outputs: [(String, String?)], inputs: [(String, String?)]) throws(SessionError) {
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
public struct LinkSettings: Sendable, Equatable {
    /// Start and stop are shared with the peers that share them.
    public let startStopSync: Bool

    public init(startStopSync: Bool) {
        self.startStopSync = startStopSync
    }
}

/// What the practice inspector listens on and what it does: a take's notes
/// (`inspect`), or the round trip measured (`calibrate`), which takes no
/// round trip and writes no report.
public struct InspectorSettings: Sendable, Equatable {
    public enum Mode: Sendable, Hashable, CaseIterable {
        /// `--inspect`: every note matched to its click.
        case inspect
        /// `--calibrate`: the round trip measured and saved.
        case calibrate
    }

    public let mode: Mode
    /// `--input-device`: the ALSA capture device.
    public let inputDevice: String
    /// `--input-latency`: the round trip in milliseconds, instead of the one calibrated.
    public let inputLatencyMilliseconds: Double?
    /// `--report`: the summary as JSON.
    public let report: String?

    /// `--inspect`: the notes played on `inputDevice`, matched to their clicks.
    public static func inspect(inputDevice: String = "default", inputLatencyMilliseconds: Double? = nil, report: String? = nil) -> InspectorSettings {
        InspectorSettings(mode: .inspect, inputDevice: inputDevice, inputLatencyMilliseconds: inputLatencyMilliseconds, report: report)
    }

    /// `--calibrate`: the round trip from the output to `inputDevice`, measured.
    public static func calibrate(inputDevice: String = "default") -> InspectorSettings {
        InspectorSettings(mode: .calibrate, inputDevice: inputDevice, inputLatencyMilliseconds: nil, report: nil)
    }

    private init(mode: Mode, inputDevice: String, inputLatencyMilliseconds: Double?, report: String?) {
        self.mode = mode
        self.inputDevice = inputDevice
        self.inputLatencyMilliseconds = inputLatencyMilliseconds
        self.report = report
    }
}
