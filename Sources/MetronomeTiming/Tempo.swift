/// A tempo in beats per minute, held exactly as an integer count of thousandths.
package struct Tempo: Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// Beats per minute times 1000: 92.5 bpm is 92500.
    package let millibeatsPerMinute: Int64

    package static let range: ClosedRange<Int64> = 1_000...1_000_000

    /// A tempo from thousandths of a bpm; nil outside 1 to 1000 bpm.
    package init?(millibeatsPerMinute: Int64) {
        guard Self.range.contains(millibeatsPerMinute) else { return nil }
        self.millibeatsPerMinute = millibeatsPerMinute
    }

    /// A whole-number tempo; nil outside 1 to 1000 bpm.
    package init?(bpm: Int) {
        guard bpm >= 1, bpm <= 1000 else { return nil }
        self.millibeatsPerMinute = Int64(bpm) * 1000
    }

    /// Parses `90`, `92.5`, `137.125`: a decimal of at most 3 fractional digits, 1 to 1000.
    package init(parsing text: String) throws(TimingError) {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("-") {
            throw .invalid("bpm '\(text)' is negative: use a decimal from 1 to 1000, e.g. 90 or 92.5")
        }
        // Out of range however many digits it has (a 19-digit number is still a number).
        let above = ExactDecimal.isMore(Substring(trimmed), than: Self.range.upperBound / 1000)
        guard above != true else {
            throw .invalid("bpm '\(text)' is out of range: use 1 to 1000")
        }
        guard above != nil else {
            throw .invalid("bpm '\(text)' is not a number: use a decimal from 1 to 1000, e.g. 90 or 92.5")
        }
        guard let decimal = ExactDecimal(Substring(trimmed)), let milli = decimal.scaled(toPlaces: 3) else {
            throw .invalid("bpm '\(text)' has more than 3 decimal places: use e.g. 92.125")
        }
        guard let tempo = Tempo(millibeatsPerMinute: milli) else {
            throw .invalid("bpm '\(text)' is out of range: use 1 to 1000")
        }
        self = tempo
    }

    /// Thousandths of a bpm held to 1 to 1000 bpm.
    package init(clamping millibeatsPerMinute: Int64) {
        self.millibeatsPerMinute = min(max(millibeatsPerMinute, Self.range.lowerBound), Self.range.upperBound)
    }

    package static func < (lhs: Tempo, rhs: Tempo) -> Bool {
        lhs.millibeatsPerMinute < rhs.millibeatsPerMinute
    }

    /// `92.5`, `90`, `137.125`: the shortest exact decimal.
    package var description: String {
        let whole = millibeatsPerMinute / 1000
        var fraction = millibeatsPerMinute % 1000
        guard fraction != 0 else { return "\(whole)" }
        var places = 3
        while fraction % 10 == 0 { fraction /= 10; places -= 1 }
        let text = String(fraction)
        return "\(whole)." + String(repeating: "0", count: places - text.count) + text
    }
}
