/// `--subdivide N` and `--swing R`: N evenly spaced clicks a beat, the ones
/// between beats played by the subdivision sound; with swing, the second of
/// two falls at R of the beat instead of half way (0.5 is straight, 0.667 a
/// triplet feel).
package struct Subdivision: Hashable, Sendable, BitwiseCopyable {
    /// Clicks a beat, the beat itself included: 1 (none) to 9.
    package let clicksPerBeat: Int
    /// Where the second of two clicks falls, in thousandths of the beat: 500 to 750.
    package let swingThousandths: Int

    package static let none = Subdivision(uncheckedClicks: 1, swing: 500)

    private init(uncheckedClicks: Int, swing: Int) {
        clicksPerBeat = uncheckedClicks
        swingThousandths = swing
    }

    /// Parses `--subdivide` and `--swing`; swing alone means two clicks a beat.
    package init(parsingClicks clicks: String?, swing: String?) throws(TimingError) {
        try self.init(clicks: clicks.map { text throws(TimingError) in try Clicks(parsing: text) },
                      swing: swing.map { text throws(TimingError) in try Swing(parsing: text) })
    }

    /// `--subdivide` and `--swing`, each read alone, together: swing alone means two clicks a beat.
    package init(clicks: Clicks?, swing: Swing?) throws(TimingError) {
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
    package struct Clicks: Sendable, Equatable {
        package let count: Int

        package init(parsing text: String) throws(TimingError) {
            guard let value = Int(text.trimmingSpaces), (2...9).contains(value) else {
                throw .invalid("subdivide '\(text)' is not allowed: use 2 to 9 clicks a beat, e.g. 2 for eighths under quarter notes")
            }
            count = value
        }
    }

    /// `--swing R`: where the second of two clicks falls, 0.5 (straight) to 0.75 of the beat.
    package struct Swing: Sendable, Equatable {
        /// Thousandths of the beat: 500 to 750.
        package let thousandths: Int

        package init(parsing text: String) throws(TimingError) {
            guard let value = ExactDecimal.parse(text, places: 3, in: 500...750) else {
                throw .invalid("swing '\(text)' is not allowed: use a ratio from 0.5 (straight) to 0.75, e.g. 0.667")
            }
            thousandths = Int(value)
        }
    }

    /// The beat divided into this many ticks: every click falls on a tick.
    package var ticksPerBeat: Int64 { swingThousandths == 500 ? Int64(clicksPerBeat) : 1000 }

    /// The tick of click `index` (0 is the beat) within its beat.
    @inline(__always)
    package func tick(ofClick index: Int) -> Int64 {
        swingThousandths == 500 ? Int64(index) : Int64(index) * Int64(swingThousandths)
    }

    /// The shortest time between two clicks, as a fraction of a beat (thousandths).
    package var shortestGapThousandths: Int {
        swingThousandths == 500 ? 1000 / clicksPerBeat : min(swingThousandths, 1000 - swingThousandths)
    }
}
