import MetronomeSession

/// A level from 0 to 1 as typed (`--volume 0.5`), to the millionth.
struct Level: Sendable, Equatable {
    let value: Float

    /// `what` names the option in the message ("volume", "subdivision volume").
    init(parsing text: String, what: String) throws(SessionError) {
        let micro = try plainDecimal(text, places: 6, in: 0...1_000_000, or: "\(what) '\(text)' is not allowed: use a number from 0 to 1, e.g. 0.5")
        value = Float(micro) / 1_000_000
    }
}

/// `--volume`: the level of every click.
struct Volume: OptionParsable, Equatable {
    let level: Level

    init(parsing text: String) throws(SessionError) { level = try Level(parsing: text, what: "volume") }
}

/// `--subdivision-volume`: the level of the clicks between beats.
struct SubdivisionVolume: OptionParsable, Equatable {
    let level: Level

    init(parsing text: String) throws(SessionError) { level = try Level(parsing: text, what: "subdivision volume") }
}
