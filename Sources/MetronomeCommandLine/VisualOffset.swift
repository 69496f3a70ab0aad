import MetronomeTiming
import MetronomeSession

/// How much later than the sound the picture is shown, -2000 to 2000 ms to
/// the microsecond (`--visual-offset 40`; negative: earlier).
struct VisualOffset: OptionParsable, Equatable {
    let microseconds: Int64

    init(parsing text: String) throws(SessionError) {
        let trimmed = text.trimmingSpaces
        let negative = trimmed.hasPrefix("-")
        let micro = try plainDecimal(String(trimmed.dropFirst(negative ? 1 : 0)), places: 3, in: 0...2_000_000,
                                     or: "visual offset '\(text)' is not allowed: use milliseconds from -2000 to 2000, e.g. 40")
        microseconds = negative ? -micro : micro
    }
}
