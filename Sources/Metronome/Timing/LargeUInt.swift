/// An unsigned integer of any size: just what exact positions need (sums
/// and products, division by a word, and divisions whose quotient fits in a
/// word). Off the audio thread only: it allocates.
struct LargeUInt: Equatable, Comparable, Sendable, CustomStringConvertible {
    /// Little-endian 64-bit words, no zero word at the top; zero is empty.
    private(set) var words: [UInt64]

    static let zero = LargeUInt(0)

    init(_ value: UInt64) {
        words = value == 0 ? [] : [value]
    }

    private init(words: [UInt64]) {
        var words = words
        while words.last == 0 { words.removeLast() }
        self.words = words
    }

    var isZero: Bool { words.isEmpty }

    /// The value, if it fits in a word.
    var word: UInt64? { words.count <= 1 ? (words.first ?? 0) : nil }

    static func < (lhs: LargeUInt, rhs: LargeUInt) -> Bool {
        guard lhs.words.count == rhs.words.count else { return lhs.words.count < rhs.words.count }
        for index in lhs.words.indices.reversed() where lhs.words[index] != rhs.words[index] {
            return lhs.words[index] < rhs.words[index]
        }
        return false
    }

    static func + (lhs: LargeUInt, rhs: LargeUInt) -> LargeUInt {
        var result = [UInt64](repeating: 0, count: max(lhs.words.count, rhs.words.count) + 1)
        var carry: UInt64 = 0
        for index in 0..<result.count - 1 {
            let a = index < lhs.words.count ? lhs.words[index] : 0
            let b = index < rhs.words.count ? rhs.words[index] : 0
            let (sum, overflow1) = a.addingReportingOverflow(b)
            let (total, overflow2) = sum.addingReportingOverflow(carry)
            result[index] = total
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        result[result.count - 1] = carry
        return LargeUInt(words: result)
    }

    /// `lhs - rhs`, for `lhs >= rhs`.
    static func - (lhs: LargeUInt, rhs: LargeUInt) -> LargeUInt {
        precondition(!(lhs < rhs), "LargeUInt cannot go below zero")
        var result = lhs.words
        var borrow: UInt64 = 0
        for index in result.indices {
            let b = index < rhs.words.count ? rhs.words[index] : 0
            let (difference, overflow1) = result[index].subtractingReportingOverflow(b)
            let (total, overflow2) = difference.subtractingReportingOverflow(borrow)
            result[index] = total
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        return LargeUInt(words: result)
    }

    static func * (lhs: LargeUInt, rhs: LargeUInt) -> LargeUInt {
        guard !lhs.isZero, !rhs.isZero else { return .zero }
        var result = [UInt64](repeating: 0, count: lhs.words.count + rhs.words.count)
        for (i, a) in lhs.words.enumerated() {
            var carry: UInt64 = 0
            for (j, b) in rhs.words.enumerated() {
                let (high, low) = a.multipliedFullWidth(by: b)
                let (sum1, overflow1) = low.addingReportingOverflow(result[i + j])
                let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                result[i + j] = sum2
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            result[i + rhs.words.count] = carry
        }
        return LargeUInt(words: result)
    }

    static func * (lhs: LargeUInt, rhs: UInt64) -> LargeUInt { lhs * LargeUInt(rhs) }

    /// Division by a word: the quotient and the remainder.
    func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: LargeUInt, remainder: UInt64) {
        precondition(divisor != 0, "division by zero")
        var quotient = [UInt64](repeating: 0, count: words.count)
        var remainder: UInt64 = 0
        for index in words.indices.reversed() {
            (quotient[index], remainder) = divisor.dividingFullWidth((high: remainder, low: words[index]))
        }
        return (LargeUInt(words: quotient), remainder)
    }

    /// `self` shifted left by `bits`.
    func shiftedLeft(by bits: Int) -> LargeUInt {
        guard !isZero, bits > 0 else { return self }
        let wordShift = bits / 64, bitShift = UInt64(bits % 64)
        var result = [UInt64](repeating: 0, count: words.count + wordShift + 1)
        for (index, word) in words.enumerated() {
            result[index + wordShift] |= word << bitShift
            if bitShift > 0 { result[index + wordShift + 1] = word >> (64 - bitShift) }
        }
        return LargeUInt(words: result)
    }

    /// Division whose quotient is known to fit in a word: long division one bit at a time.
    func quotientAndRemainder(dividingBy divisor: LargeUInt) -> (quotient: UInt64, remainder: LargeUInt) {
        precondition(!divisor.isZero, "division by zero")
        var remainder = self
        var quotient: UInt64 = 0
        for bit in (0..<64).reversed() {
            let shifted = divisor.shiftedLeft(by: bit)
            if !(remainder < shifted) {
                remainder = remainder - shifted
                quotient |= 1 << UInt64(bit)
            }
        }
        precondition(remainder < divisor, "the quotient does not fit in a word")
        return (quotient, remainder)
    }

    /// The greatest common divisor with a nonzero word.
    func greatestCommonDivisor(with other: UInt64) -> UInt64 {
        var a = other, b = quotientAndRemainder(dividingBy: other).remainder
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    var description: String {
        guard !isZero else { return "0" }
        var digits: [String] = []
        var rest = self
        while !rest.isZero {
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10_000_000_000_000_000_000)
            digits.append(String(remainder))
            rest = quotient
        }
        return digits.last! + digits.dropLast().reversed().map { String(repeating: "0", count: 19 - $0.count) + $0 }.joined()
    }
}
