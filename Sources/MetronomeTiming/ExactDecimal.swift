/// A non-negative decimal number read exactly from text: `digits / 10^scale`.
///
/// Option values (tempo, durations, volume) are parsed through this so that
/// nothing musical passes through `Double` on its way to a frame number.
package struct ExactDecimal: Equatable, Sendable {
    /// All digits, the fractional ones included, as one integer.
    let digits: Int64
    /// How many of those digits are after the point.
    let scale: Int

    /// Reads `[0-9]*(.[0-9]*)?` with at least one digit; nil for anything else
    /// (signs, exponents, `nan`, `inf`, empty text) or more than 18
    /// significant digits (leading zeros and trailing fractional zeros are
    /// not counted: `0120.500` is 1205 tenths).
    init?(_ text: Substring) {
        var digits: Int64 = 0
        var scale = 0
        var seenPoint = false
        var seenDigit = false
        var significant = 0
        // Fractional zeros not yet followed by another digit.
        var pendingZeros = 0
        for character in text.utf8 {
            if character == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") else { return nil }
            seenDigit = true
            let digit = Int64(character - UInt8(ascii: "0"))
            if seenPoint, digit == 0 {
                pendingZeros += 1
                continue
            }
            for next in repeatElement(0, count: pendingZeros) + [digit] {
                if digits != 0 || next != 0 { significant += 1 }
                if significant > 18 { return nil }
                digits = digits * 10 + next
                if seenPoint { scale += 1 }
            }
            pendingZeros = 0
        }
        guard seenDigit else { return nil }
        self.digits = digits
        self.scale = scale
    }

    /// The value in units of `10^-places`, if it is exact at that many places
    /// and fits; nil when it has more fractional digits than `places`.
    func scaled(toPlaces places: Int) -> Int64? {
        guard scale <= places else {
            // Trailing zeros beyond `places` are still exact.
            var value = digits
            for _ in places..<scale {
                guard value % 10 == 0 else { return nil }
                value /= 10
            }
            return value
        }
        var value = digits
        for _ in scale..<places {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = product
        }
        return value
    }
}

extension ExactDecimal {
    /// Whether `text`, read as `init` reads it but with any number of digits,
    /// is more than `bound`; nil when it is not such a decimal. For saying
    /// "out of range" of a value too long for `Int64`, not "not a number".
    static func isMore(_ text: Substring, than bound: Int64) -> Bool? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard text.contains(where: \.isASCIIDigit),
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        let whole = parts[0].drop { $0 == "0" }
        let fraction = parts.count > 1 ? parts[1] : ""
        let boundText = String(bound)
        if whole.count != boundText.count { return whole.count > boundText.count }
        if whole != Substring(boundText) { return whole > Substring(boundText) }
        return fraction.contains { $0 != "0" }
    }

    /// `text`, spaces around it ignored, in units of `10^-places` when it is
    /// exact at that precision and within `range`; nil otherwise.
    package static func parse(_ text: String, places: Int, in range: ClosedRange<Int64>) -> Int64? {
        guard let decimal = ExactDecimal(Substring(text.trimmingSpaces)), let value = decimal.scaled(toPlaces: places),
              range.contains(value) else { return nil }
        return value
    }
}
private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
