/// An unsigned integer of any size: just what exact positions need (sums
/// and products, and division). Off the audio thread only: it allocates.
struct LargeUInt: Equatable, Comparable, Sendable, CustomStringConvertible {
    /// Little-endian 64-bit words, no zero word at the top; zero is empty.
    private(set) var words: [UInt64]

    static let zero = LargeUInt(0)

    init(_ value: UInt64) {
        words = value == 0 ? [] : [value]
    }

    init(wide value: UInt128) {
        self.init(words: [UInt64(truncatingIfNeeded: value), UInt64(value >> 64)])
    }

    private init(words: [UInt64]) {
        var words = words
        while words.last == 0 { words.removeLast() }
        self.words = words
    }

    var isZero: Bool { words.isEmpty }

    /// The value, if it fits in a word.
    var word: UInt64? { words.count <= 1 ? (words.first ?? 0) : nil }

    /// The value, if it fits in 128 bits.
    var doubleWord: UInt128? {
        guard words.count <= 2 else { return nil }
        return UInt128(words.count == 2 ? words[1] : 0) << 64 | UInt128(words.first ?? 0)
    }

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
            let sum = UInt128(a) + UInt128(b) + UInt128(carry)
            result[index] = UInt64(truncatingIfNeeded: sum)
            carry = UInt64(sum >> 64)
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
                // At most (2^64 - 1)^2 + 2 (2^64 - 1) = 2^128 - 1: no overflow.
                let sum = UInt128(a) * UInt128(b) + UInt128(result[i + j]) + UInt128(carry)
                result[i + j] = UInt64(truncatingIfNeeded: sum)
                carry = UInt64(sum >> 64)
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

    /// Division: the quotient and the remainder, by Knuth's algorithm D
    /// (TAOCP vol. 2, 4.3.1) on 64-bit words. Each quotient word is estimated
    /// from the top two words of the rest and the top word of the divisor, both
    /// normalised so that word's top bit is set; the estimate is at most two
    /// too large, corrected against the divisor's second word and, rarely, by
    /// adding the divisor back. Allocates its three arrays once.
    func quotientAndRemainder(dividingBy divisor: LargeUInt) -> (quotient: LargeUInt, remainder: LargeUInt) {
        precondition(!divisor.isZero, "division by zero")
        if self < divisor { return (.zero, self) }
        if divisor.words.count == 1 {
            let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor.words[0])
            return (quotient, LargeUInt(remainder))
        }
        let n = divisor.words.count, m = words.count - n
        let shift = UInt64(divisor.words[n - 1].leadingZeroBitCount)
        // The divisor and the dividend shifted left by `shift` bits; the dividend gains a word on top.
        func shifted(_ words: [UInt64], count: Int) -> [UInt64] {
            var result = [UInt64](repeating: 0, count: count)
            for index in words.indices {
                result[index] |= words[index] << shift
                if shift > 0, index + 1 < count { result[index + 1] = words[index] >> (64 - shift) }
            }
            return result
        }
        let v = shifted(divisor.words, count: n)
        var u = shifted(words, count: words.count + 1)
        var quotient = [UInt64](repeating: 0, count: m + 1)
        let top = v[n - 1], second = v[n - 2]
        for j in (0...m).reversed() {
            // The estimate from the top two words (u[j + n] <= top holds throughout).
            var estimate: UInt64, rest: UInt64, restOverflows = false
            if u[j + n] >= top {
                estimate = .max
                (rest, restOverflows) = u[j + n - 1].addingReportingOverflow(top)
            } else {
                (estimate, rest) = top.dividingFullWidth((high: u[j + n], low: u[j + n - 1]))
            }
            // At most two too large: compare with the divisor's second word.
            while !restOverflows,
                  UInt128(estimate) * UInt128(second) > UInt128(rest) << 64 | UInt128(u[j + n - 2]) {
                estimate -= 1
                (rest, restOverflows) = rest.addingReportingOverflow(top)
            }
            // u[j...j+n] -= estimate * v.
            var carry: UInt64 = 0, borrow: UInt64 = 0
            for i in 0..<n {
                let product = UInt128(estimate) * UInt128(v[i]) + UInt128(carry)
                carry = UInt64(product >> 64)
                let (difference, overflow1) = u[i + j].subtractingReportingOverflow(UInt64(truncatingIfNeeded: product))
                let (total, overflow2) = difference.subtractingReportingOverflow(borrow)
                u[i + j] = total
                borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
            }
            let (difference, overflow1) = u[j + n].subtractingReportingOverflow(carry)
            let (total, overflow2) = difference.subtractingReportingOverflow(borrow)
            u[j + n] = total
            if overflow1 || overflow2 {
                // One too large after all (probability about 2/2^64): add the divisor back.
                estimate -= 1
                var carry: UInt64 = 0
                for i in 0..<n {
                    let (sum1, overflow1) = u[i + j].addingReportingOverflow(v[i])
                    let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                    u[i + j] = sum2
                    carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
                }
                u[j + n] &+= carry
            }
            quotient[j] = estimate
        }
        // The remainder is u[0..<n] shifted back.
        var remainder = [UInt64](repeating: 0, count: n)
        for index in 0..<n {
            remainder[index] = u[index] >> shift
            if shift > 0 { remainder[index] |= u[index + 1] << (64 - shift) }
        }
        return (LargeUInt(words: quotient), LargeUInt(words: remainder))
    }

    /// Division whose quotient is known to fit in a word.
    func wordQuotientAndRemainder(dividingBy divisor: LargeUInt) -> (quotient: UInt64, remainder: LargeUInt) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        guard let word = quotient.word else { preconditionFailure("the quotient does not fit in a word") }
        return (word, remainder)
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
