import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomePendulum

/// Everything one run of the metronome needs, parsed and checked.
///
/// The command line (`MetronomeCommand`) fills it in from typed option values.
public struct Settings: Sendable, Equatable {
    public var tempo = Tempo(bpm: 120)!
    public var meter = Meter.common
    public var rate = SampleRate.standard
    public var volume: Float = 1
    public var length = TrackLength.endless
    public var beatSound: String?
    public var bellSound: String?
    public var subdivisionSound: String?
    public var polyrhythmSound: String?
    /// Accents, subdivisions, second voice, count-in and muted beats.
    public var rhythm = Rhythm.plain
    /// A tempo map or the speed trainer; nil: one tempo (keys may change it).
    public var plan: TempoPlan.Source?
    /// `--setlist`: the songs, `plan` being the current one's.
    public var songs: SongList?
    /// Render to this file instead of playing.
    public var output: String?
    public var outputFormat: OutputFormat?
    /// nil: the `default` device, and playing on silently when it cannot be opened.
    public var device: String?
    public var latency: Latency?
    public var pendulum = true
    /// How far the rod swings each way, in degrees.
    public var swingAngle: Double = 30
    public var easing = Easing.easeInOut
    public var clickAt = PendulumMotion.ClickPosition.edge
    public var style = PictureStyle.ascii
    /// Positive: the picture is shown later than the sound, by this much.
    public var visualOffsetMicroseconds: Int64 = 0
    public var framesPerSecond = 60
    public var trace: String?
    /// Replace a read-only output file.
    public var force = false
    public enum Verbosity: Sendable { case normal, verbose, quiet }
    public var verbosity = Verbosity.normal
    /// An Ableton Link session to play in, if any.
    public var link: LinkSettings?
    /// `--inspect` or `--calibrate`: listening to the player, if asked.
    public var inspector: InspectorSettings?

    public init() {}

    /// The files the run writes, by option: `--output`, `--trace`, `--report`.
    public var outputs: [(String, String?)] {
        [("--output", output), ("--trace", trace), ("--report", inspector?.report)]
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
    public var startStopSync: Bool

    public init(startStopSync: Bool) {
        self.startStopSync = startStopSync
    }
}

/// What the practice inspector listens on and what it does.
public struct InspectorSettings: Sendable, Equatable {
    public enum Mode: Sendable, Hashable, CaseIterable {
        /// `--inspect`: every note matched to its click.
        case inspect
        /// `--calibrate`: the round trip measured and saved.
        case calibrate
    }

    public var mode: Mode
    /// `--input-device`: the ALSA capture device.
    public var inputDevice = "default"
    /// `--input-latency`: the round trip in milliseconds, instead of the one calibrated.
    public var inputLatencyMilliseconds: Double?
    /// `--report`: the summary as JSON.
    public var report: String?

    public init(mode: Mode) {
        self.mode = mode
    }
}
