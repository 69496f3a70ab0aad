/// Everything one run of the metronome needs, parsed and checked.
///
/// Built from the command line's text so that every value is parsed by its
/// own type and every bad value becomes one `MetronomeError` line.
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

    public init() {}

    /// Parses the raw option values; nil means the option was not given.
    public init(bpm: String? = nil, meter: String? = nil, rate: String? = nil, volume: String? = nil,
                bars: String? = nil, duration: String? = nil, output: String? = nil, format: String? = nil,
                device: String? = nil, latency: String? = nil, beatSound: String? = nil, bellSound: String? = nil,
                pendulum: Bool = true, angle: String? = nil, easing: String? = nil, clickAt: String? = nil, style: String? = nil,
                visualOffset: String? = nil, fps: String? = nil, trace: String? = nil,
                verbose: Bool = false, quiet: Bool = false, force: Bool = false, rhythm: RhythmOptions = RhythmOptions(),
                plan: PlanOptions = PlanOptions()) throws(MetronomeError) {
        if let bpm { tempo = try Tempo(parsing: bpm) }
        if let meter { self.meter = try Meter(parsing: meter) }
        let map = try plan.readMap(bpm: bpm, meter: meter, pattern: rhythm.pattern)
        // Rhythm options that count beats of a bar are checked against the map's shortest bar.
        let rhythmMeter = map.flatMap { $0.entries.map(\.meter).min { $0.beatsPerBar < $1.beatsPerBar } } ?? self.meter
        self.rhythm = try rhythm.parse(meter: rhythmMeter)
        self.plan = try plan.source(map: map, tempo: tempo, meter: self.meter)
        subdivisionSound = try rhythm.subdivisionSound.map { path throws(MetronomeError) in try Self.soundFile(path, "--subdivision-sound") }
        polyrhythmSound = try rhythm.polyrhythmSound.map { path throws(MetronomeError) in try Self.soundFile(path, "--polyrhythm-sound") }
        if let rate { self.rate = try SampleRate(parsing: rate) }
        if let volume { self.volume = try Self.parseVolume(volume) }
        switch (bars, duration) {
        case (.some, .some):
            throw .usage("--bars and --duration both set the length: give one of them")
        case (.some(let bars), nil):
            length = try TrackLength.parsingBars(bars)
        case (nil, .some(let duration)):
            let playtime = try Playtime(parsing: duration)
            guard playtime.frames(at: self.rate) > 0 else {
                throw .usage("duration '\(duration)' is shorter than one frame at \(self.rate.framesPerSecond) Hz: use e.g. 1s")
            }
            length = .playtime(playtime)
        case (nil, nil):
            break
        }
        let sampleFormat: SampleFormat = try format.map { text throws(MetronomeError) in try Self.choice(text, "format") } ?? .pcm16
        if let output {
            guard !output.isEmpty else { throw .usage("output file name is empty") }
            outputFormat = try OutputFormat(path: output, sampleFormat: sampleFormat)
            let mapEnds = if case .map(_, _, let loops) = self.plan { !loops } else { false }
            guard length != .endless || mapEnds else {
                throw .usage("--output '\(output)' needs a length: add --bars N or --duration T, e.g. --bars 16")
            }
            guard device == nil, latency == nil else {
                throw .usage("--device and --latency are for live playback; --output renders a file")
            }
        } else if format != nil {
            throw .usage("--format applies to --output files only")
        }
        self.output = output
        if let device {
            guard !device.isEmpty else { throw .usage("device name is empty: use e.g. default or hw:0") }
            self.device = device
        }
        if let latency { self.latency = try Latency(parsing: latency) }
        if let beatSound, beatSound.isEmpty { throw .usage("--beat-sound needs a file name") }
        if let bellSound, bellSound.isEmpty { throw .usage("--bell-sound needs a file name") }
        self.beatSound = beatSound
        self.bellSound = bellSound
        self.pendulum = pendulum
        if let angle {
            guard let milli = ExactDecimal.parse(angle, places: 3, in: 1_000...90_000) else {
                throw .usage("angle '\(angle)' is not allowed: use degrees from 1 to 90, e.g. 30")
            }
            swingAngle = Double(milli) / 1000
        }
        if let easing { self.easing = try Self.choice(easing, "easing") }
        if let clickAt { self.clickAt = try Self.choice(clickAt, "click-at") }
        if let style { self.style = try Self.choice(style, "style") }
        if let visualOffset {
            let text = visualOffset.trimmingSpaces
            let negative = text.hasPrefix("-")
            guard let micro = ExactDecimal.parse(String(text.dropFirst(negative ? 1 : 0)), places: 3, in: 0...2_000_000) else {
                throw .usage("visual offset '\(visualOffset)' is not allowed: use milliseconds from -2000 to 2000, e.g. 40")
            }
            visualOffsetMicroseconds = negative ? -micro : micro
        }
        if let fps {
            guard let value = Int(fps.trimmingSpaces), (1...240).contains(value) else {
                throw .usage("fps '\(fps)' is not allowed: use a whole number from 1 to 240, e.g. 60")
            }
            framesPerSecond = value
        }
        if let trace {
            guard !trace.isEmpty else { throw .usage("--trace needs a file name") }
            self.trace = trace
        }
        if force, output == nil { throw .usage("--force applies to --output files only") }
        self.force = force
        try Self.checkOutputsAreNotInputs(outputs: [("--output", output), ("--trace", self.trace)],
                                          inputs: [("--tempo-map", plan.tempoMap), ("--beat-sound", beatSound),
                                                   ("--bell-sound", bellSound), ("--subdivision-sound", subdivisionSound),
                                                   ("--polyrhythm-sound", polyrhythmSound)])
        if verbose && quiet { throw .usage("--verbose and --quiet contradict each other: give one") }
        verbosity = verbose ? .verbose : quiet ? .quiet : .normal
    }

    /// A file written (the output, the trace) must not be a file read, nor the
    /// other file written: writing it would destroy what is being read.
    static func checkOutputsAreNotInputs(outputs: [(String, String?)], inputs: [(String, String?)]) throws(MetronomeError) {
        let written = outputs.compactMap { option, path in path.map { (option, $0) } }
        let read = inputs.compactMap { option, path in path.map { (option, $0) } }.filter { $0.1 != "-" }
        for (index, (option, path)) in written.enumerated() {
            for (other, otherPath) in read + written[(index + 1)...] where FilePath.sameFile(path, otherPath) {
                throw .usage("\(option) '\(path)' is the file \(other) names: choose another file name")
            }
        }
    }

    static func soundFile(_ path: String, _ option: String) throws(MetronomeError) -> String {
        guard !path.isEmpty else { throw .usage("\(option) needs a file name") }
        return path
    }

    static func parseVolume(_ text: String) throws(MetronomeError) -> Float {
        guard let micro = ExactDecimal.parse(text, places: 6, in: 0...1_000_000) else {
            throw .usage("volume '\(text)' is not allowed: use a number from 0 to 1, e.g. 0.5")
        }
        return Float(micro) / 1_000_000
    }

    /// One of a fixed set of names (`linear`, `edge`, `pcm16`); the error lists them all.
    static func choice<Choice: RawRepresentable & CaseIterable>(_ text: String, _ option: String) throws(MetronomeError) -> Choice
        where Choice.RawValue == String {
        guard let value = Choice(rawValue: text.trimmingSpaces) else {
            let names = Choice.allCases.map(\.rawValue)
            throw .usage("\(option) '\(text)' is not known: use \(names.dropLast().joined(separator: ", ")) or \(names.last!)")
        }
        return value
    }
}
