import MetronomeSession

/// How far the pendulum swings each way, 1 to 90 degrees to the thousandth (`--angle 20`).
struct SwingAngle: OptionParsable, Equatable {
    let degrees: Double

    init(parsing text: String) throws(SessionError) {
        let milli = try plainDecimal(text, places: 3, in: 1_000...90_000, or: "angle '\(text)' is not allowed: use degrees from 1 to 90, e.g. 30")
        degrees = Double(milli) / 1000
    }
}
