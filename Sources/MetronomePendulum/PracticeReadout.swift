/// What the practice inspector has heard so far, as the status line and the
/// picture show it while the player plays: the last few notes' offsets, and
/// the running mean and spread (negative: early).
package struct PracticeReadout: Sendable, Equatable {
    /// Offsets the status line shows, newest last.
    package static let shown = 3

    /// The last `shown` offsets in milliseconds, newest last.
    package private(set) var last: [Double] = []
    /// Notes matched to a click so far.
    package private(set) var notes = 0
    /// Their mean offset (ms), and the sum of squared distances from it (Welford's running form).
    package private(set) var mean = 0.0
    private var squares = 0.0

    package init() {}

    /// A note played `offsetMilliseconds` from its click.
    package mutating func add(offsetMilliseconds offset: Double) {
        notes += 1
        let before = mean
        mean += (offset - before) / Double(notes)
        squares += (offset - before) * (offset - mean)
        last.append(offset)
        if last.count > Self.shown { last.removeFirst() }
    }

    /// The standard deviation of the offsets (ms), 0 below two notes.
    package var spread: Double { notes > 1 ? (squares / Double(notes - 1)).squareRoot() : 0 }

    /// `notes -12.3 +4.1 +0.8  mean -2.5 sd 8.5 ms`; `listening` before the first note.
    package var text: String {
        guard notes > 0 else { return "listening" }
        return "notes " + last.map(Self.signedTenths).joined(separator: " ") + "  " + summaryText
    }

    /// `mean -2.5 sd 8.5 ms`, where the line is short; `listening` before the first note.
    package var summaryText: String {
        guard notes > 0 else { return "listening" }
        return "mean \(Self.signedTenths(mean)) sd \(Self.tenths(spread)) ms"
    }

    /// The picture's word on the last note: `late 4.1 ms`, `early 12.3 ms`, `on the click`; nil before the first.
    package var mark: String? {
        guard let offset = last.last else { return nil }
        let text = Self.tenths(abs(offset))
        if text == "0.0" { return "on the click" }
        return (offset < 0 ? "early " : "late ") + text + " ms"
    }

    /// One decimal, rounded half away from zero: `3.4`, `-0.7`.
    package static func tenths(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        let sign = scaled < 0 ? "-" : ""
        return "\(sign)\(abs(scaled) / 10).\(abs(scaled) % 10)"
    }

    /// One decimal with its sign, `+3.4`, `-0.7`, `0.0`.
    package static func signedTenths(_ value: Double) -> String {
        let text = tenths(value)
        return text.hasPrefix("-") || text == "0.0" ? text : "+" + text
    }
}
