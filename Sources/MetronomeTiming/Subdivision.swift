/// `--subdivide N` and `--swing R`: N evenly spaced clicks a beat, the ones
/// between beats played by the subdivision sound; with swing, the second of
/// two falls at R of the beat instead of half way (0.5 is straight, 0.667 a
/// triplet feel).
public struct Subdivision: Hashable, Sendable, BitwiseCopyable {
    /// Clicks a beat, the beat itself included: 1 (none) to 9.
    public let clicksPerBeat: Int
    /// Where the second of two clicks falls, in thousandths of the beat: 500 to 750.
    public let swingThousandths: Int

    public static let none = Subdivision(uncheckedClicks: 1, swing: 500)

    private init(uncheckedClicks: Int, swing: Int) {
        clicksPerBeat = uncheckedClicks
        swingThousandths = swing
    }

    /// Parses `--subdivide` and `--swing`; swing alone means two clicks a beat.
    public init(parsingClicks clicks: String?, swing: String?) throws(TimingError) {
        try self.init(clicks: clicks.map { text throws(TimingError) in try Clicks(parsing: text) },
                      swing: swing.map { text throws(TimingError) in try Swing(parsing: text) })
    }

    /// `--subdivide` and `--swing`, each read alone, together: swing alone means two clicks a beat.
    public init(clicks: Clicks?, swing: Swing?) throws(TimingError) {
        var count = clicks?.count ?? 1
        if swing != nil {
            guard count == 1 || count == 2 else {
                throw .invalid("--swing delays the second of two clicks a beat: use it with --subdivide 2 (or alone)")
            }
            count = 2
        }
        self.init(uncheckedClicks: count, swing: swing?.thousandths ?? 500)
    }

    /// `--subdivide N`: 2 to 9 clicks a beat.
    public struct Clicks: Sendable, Equatable {
        public let count: Int

        public init(parsing text: String) throws(TimingError) {
            guard let value = Int(text.trimmingSpaces), (2...9).contains(value) else {
                throw .invalid("subdivide '\(text)' is not allowed: use 2 to 9 clicks a beat, e.g. 2 for eighths under quarter notes")
            }
            count = value
        }
    }

    /// `--swing R`: where the second of two clicks falls, 0.5 (straight) to 0.75 of the beat.
    public struct Swing: Sendable, Equatable {
        /// Thousandths of the beat: 500 to 750.
        public let thousandths: Int

        public init(parsing text: String) throws(TimingError) {
            guard let value = ExactDecimal.parse(text, places: 3, in: 500...750) else {
                throw .invalid("swing '\(text)' is not allowed: use a ratio from 0.5 (straight) to 0.75, e.g. 0.667")
            }
            thousandths = Int(value)
        }
    }

    /// The beat divided into this many ticks: every click falls on a tick.
    public var ticksPerBeat: Int64 { swingThousandths == 500 ? Int64(clicksPerBeat) : 1000 }

    /// The tick of click `index` (0 is the beat) within its beat.
    @inline(__always)
    public func tick(ofClick index: Int) -> Int64 {
        swingThousandths == 500 ? Int64(index) : Int64(index) * Int64(swingThousandths)
    }

    /// The shortest time between two clicks, as a fraction of a beat (thousandths).
    public var shortestGapThousandths: Int {
        swingThousandths == 500 ? 1000 / clicksPerBeat : min(swingThousandths, 1000 - swingThousandths)
    }
}
