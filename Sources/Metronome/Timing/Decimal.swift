/// A non-negative decimal number read exactly from text: `digits / 10^scale`.
///
/// Option values (tempo, durations, volume) are parsed through this so that
/// nothing musical passes through `Double` on its way to a frame number.
struct ExactDecimal: Equatable, Sendable {
    /// All digits, the fractional ones included, as one integer.
    let digits: Int64
    /// How many of those digits are after the point.
    let scale: Int

    /// Reads `[0-9]*(.[0-9]*)?` with at least one digit; nil for anything else
    /// (signs, exponents, `nan`, `inf`, empty text) or more than 18 digits.
    init?(_ text: Substring) {
        var digits: Int64 = 0
        var scale = 0
        var seenPoint = false
        var digitCount = 0
        for character in text.utf8 {
            if character == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") else { return nil }
            digitCount += 1
            if digitCount > 18 { return nil }
            digits = digits * 10 + Int64(character - UInt8(ascii: "0"))
            if seenPoint { scale += 1 }
        }
        guard digitCount > 0 else { return nil }
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
    /// `text`, spaces around it ignored, in units of `10^-places` when it is
    /// exact at that precision and within `range`; nil otherwise.
    static func parse(_ text: String, places: Int, in range: ClosedRange<Int64>) -> Int64? {
        guard let decimal = ExactDecimal(Substring(text.trimmingSpaces)), let value = decimal.scaled(toPlaces: places),
              range.contains(value) else { return nil }
        return value
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
