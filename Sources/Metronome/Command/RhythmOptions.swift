/// The raw values of the rhythm options; nil means not given.
public struct RhythmOptions: Sendable {
    public var pattern: String?
    public var subdivide: String?
    public var swing: String?
    public var subdivisionVolume: String?
    public var subdivisionSound: String?
    public var polyrhythm: String?
    public var polyrhythmSound: String?
    public var countIn: String?
    public var gap: String?
    public var randomMute: String?
    public var seed: String?

    public init(pattern: String? = nil, subdivide: String? = nil, swing: String? = nil, subdivisionVolume: String? = nil,
                subdivisionSound: String? = nil, polyrhythm: String? = nil, polyrhythmSound: String? = nil,
                countIn: String? = nil, gap: String? = nil, randomMute: String? = nil, seed: String? = nil) {
        self.pattern = pattern
        self.subdivide = subdivide
        self.swing = swing
        self.subdivisionVolume = subdivisionVolume
        self.subdivisionSound = subdivisionSound
        self.polyrhythm = polyrhythm
        self.polyrhythmSound = polyrhythmSound
        self.countIn = countIn
        self.gap = gap
        self.randomMute = randomMute
        self.seed = seed
    }

    /// The rhythm these options make in bars of `meter`.
    func parse(meter: Meter) throws(MetronomeError) -> Rhythm {
        var rhythm = Rhythm()
        if let pattern { rhythm.pattern = try BeatPattern(parsing: pattern, beatsPerBar: meter.beatsPerBar) }
        rhythm.subdivision = try Subdivision(parsingClicks: subdivide, swing: swing)
        if let subdivisionVolume {
            guard let micro = ExactDecimal.parse(subdivisionVolume, places: 6, in: 0...1_000_000) else {
                throw .usage("subdivision volume '\(subdivisionVolume)' is not allowed: use a number from 0 to 1, e.g. 0.5")
            }
            rhythm.subdivisionLevel = Float(micro) / 1_000_000
        }
        if rhythm.subdivision.clicksPerBeat == 1, subdivisionVolume != nil || subdivisionSound != nil {
            throw .usage("--subdivision-volume and --subdivision-sound need --subdivide N")
        }
        if let polyrhythm { rhythm.polyrhythm = try Polyrhythm(parsing: polyrhythm, beatsPerBar: meter.beatsPerBar) }
        if rhythm.polyrhythm == nil, polyrhythmSound != nil { throw .usage("--polyrhythm-sound needs --polyrhythm A:B") }
        if let countIn {
            guard let bars = Int64(countIn.trimmingSpaces), (0...64).contains(bars) else {
                throw .usage("count-in '\(countIn)' is not allowed: use 0 to 64 bars, e.g. 1")
            }
            rhythm.countInBars = bars
        }
        if seed != nil, randomMute == nil { throw .usage("--seed chooses the beats --random-mute mutes: give --random-mute PCT too") }
        rhythm.muting = try BeatMuting(gap: gap, randomMute: randomMute, seed: seed)
        return rhythm
    }
}
