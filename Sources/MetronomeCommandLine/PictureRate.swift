import MetronomeTiming
import MetronomeSession

/// Pictures drawn per second, 1 to 240 (`--fps 30`).
struct PictureRate: OptionParsable, Equatable {
    let framesPerSecond: Int

    init(parsing text: String) throws(SessionError) {
        guard let value = Int(text.trimmingSpaces), (1...240).contains(value) else {
            throw .badRequest("fps '\(text)' is not allowed: use a whole number from 1 to 240, e.g. 60")
        }
        framesPerSecond = value
    }
}
