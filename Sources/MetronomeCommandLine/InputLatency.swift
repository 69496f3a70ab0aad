import MetronomeSession

/// `--input-latency MS`: the round trip from output to input, 0 to 2000 ms,
/// a plain decimal (no sign, exponent or hexadecimal) to the nanosecond.
struct InputLatency: OptionParsable, Equatable {
    let milliseconds: Double

    init(parsing text: String) throws(SessionError) {
        let nanoseconds = try plainDecimal(text, places: 6, in: 0...2_000_000_000,
                                           or: "input latency '\(text)' is not a round trip in ms from 0 to 2000: use e.g. --input-latency 23.4")
        milliseconds = Double(nanoseconds) / 1_000_000
    }
}
