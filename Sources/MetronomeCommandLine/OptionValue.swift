import ArgumentParser
import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomePendulum
import MetronomeSession

/// An option's value that reads itself from the text typed: a bad one is
/// thrown as its layer's own one-line error (`TimingError`, `SessionError`).
protocol OptionParsable: Sendable {
    init(parsing text: String) throws
}

/// An option's text, read by its value's own type as swift-argument-parser
/// reads the line: the value, or the error its type refused the text with.
///
/// Reading never fails here, as the parser would wrap a thrown error in a
/// sentence of its own ("The value 'x' is invalid for '--bpm <bpm>': …"): the
/// refusal is thrown as it is, with its status, when the run asks for the value.
struct OptionValue<Value: OptionParsable>: ExpressibleByArgument, Sendable {
    /// What was typed, for messages that quote the user.
    let text: String
    private let parsed: Result<Value, any Error>

    init(argument: String) {
        text = argument
        parsed = Result { try Value(parsing: argument) }
    }

    /// The value, or the error its type refused the text with.
    func value() throws -> Value { try parsed.get() }
}

/// `text` read as a plain decimal (`ExactDecimal`: no sign, exponent or
/// hexadecimal) in units of `10^-places`, within `range`; else refused with `message`.
func plainDecimal(_ text: String, places: Int, in range: ClosedRange<Int64>, or message: @autoclosure () -> String) throws(SessionError) -> Int64 {
    guard let value = ExactDecimal.parse(text, places: places, in: range) else { throw .badRequest(message()) }
    return value
}

/// Any option's value, whatever its type: for checking a group of them in order.
protocol CheckedOption {
    /// Throws the error the value's type refused its text with, if it did.
    func check() throws
}

extension OptionValue: CheckedOption {
    func check() throws { _ = try parsed.get() }
}

// The values the layers below read themselves.
extension Tempo: OptionParsable {}
extension Meter: OptionParsable {}
extension SampleRate: OptionParsable {}
extension Playtime: OptionParsable {}
extension Latency: OptionParsable {}
extension BeatPattern.Written: OptionParsable {}
extension Subdivision.Clicks: OptionParsable {}
extension Subdivision.Swing: OptionParsable {}
extension Polyrhythm.Written: OptionParsable {}
extension BeatMuting.Gap: OptionParsable {}
extension BeatMuting.RandomMute: OptionParsable {}
extension BeatMuting.Seed: OptionParsable {}

/// `--bars N`: a length of whole bars.
extension TrackLength: OptionParsable {
    init(parsing text: String) throws(TimingError) { self = try .parsingBars(text) }
}

// The fixed choices list their values in help and completions.
extension Easing: ExpressibleByArgument {}
extension PictureStyle: ExpressibleByArgument {}
extension PendulumMotion.ClickPosition: ExpressibleByArgument {}
extension SampleFormat: ExpressibleByArgument {}
