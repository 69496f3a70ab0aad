import MetronomeTiming
import MetronomeSession

/// The speed trainer's step (`--step S/M`): S bpm, to the thousandth, every
/// M bars; negative slows down. Which way it must go is known with `--until`.
struct TrainerStep: OptionParsable, Equatable {
    /// Thousandths of a bpm a step, negative when it slows down: ±1 to ±999000.
    let millibeatsPerMinute: Int64
    /// Bars a step: 1 to 10000.
    let bars: Int64

    init(parsing text: String) throws(SessionError) {
        let parts = text.trimmingSpaces.split(separator: "/", omittingEmptySubsequences: false)
        let size = parts.first.map(String.init) ?? ""
        let negative = size.hasPrefix("-")
        guard parts.count == 2, let milli = ExactDecimal.parse(String(size.dropFirst(negative ? 1 : (size.hasPrefix("+") ? 1 : 0))),
                                                               places: 3, in: 1...999_000),
              let bars = Int64(parts[1]), (1...10_000).contains(bars) else {
            throw .badRequest("step '\(text)' is not S/M: S bpm (negative slows down) every M bars, e.g. 5/4 or -2.5/8")
        }
        millibeatsPerMinute = negative ? -milli : milli
        self.bars = bars
    }
}

/// `--when-tight MS`: how far from its click a note may lie in a bar the adaptive trainer
/// counts as tight, 0.1 to 500 ms, a plain decimal to the microsecond.
struct TightWindow: OptionParsable, Equatable {
    let microseconds: Int64

    init(parsing text: String) throws(SessionError) {
        microseconds = try plainDecimal(text, places: 3, in: 100...500_000,
                                        or: "--when-tight '\(text)' is not a window in ms from 0.1 to 500: use e.g. --when-tight 15")
    }
}
