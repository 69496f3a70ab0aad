import MetronomeTiming
import MetronomeSession

/// Bars of count-in before bar 1, 0 to 64 (`--count-in 1`).
struct CountIn: OptionParsable, Equatable {
    let bars: Int64

    init(parsing text: String) throws(SessionError) {
        guard let bars = Int64(text.trimmingSpaces), (0...64).contains(bars) else {
            throw .badRequest("count-in '\(text)' is not allowed: use 0 to 64 bars, e.g. 1")
        }
        self.bars = bars
    }
}
