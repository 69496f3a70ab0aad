@testable import Metronome
import Testing

/// A small seeded generator, so a failure repeats.
private struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func large(_ value: UInt128) -> LargeUInt {
    LargeUInt(UInt64(value >> 64)).shiftedLeft(by: 64) + LargeUInt(UInt64(truncatingIfNeeded: value))
}

@Suite struct LargeUIntTests {
    @Test func arithmeticAgreesWith128BitIntegers() {
        var random = SplitMix(state: 42)
        for _ in 0..<20_000 {
            let a = random.next() >> (random.next() % 64), b = random.next() >> (random.next() % 64)
            let c = max(1, random.next() >> (random.next() % 64))
            #expect(LargeUInt(a) + LargeUInt(b) == large(UInt128(a) + UInt128(b)))
            #expect(LargeUInt(a) * b == large(UInt128(a) * UInt128(b)))
            let wide = UInt128(a) * UInt128(b)
            let (quotient, remainder) = large(wide).quotientAndRemainder(dividingBy: c)
            #expect(quotient == large(wide / UInt128(c)) && remainder == UInt64(wide % UInt128(c)))
            if wide / UInt128(c) <= UInt128(UInt64.max) {
                let (q, r) = large(wide).quotientAndRemainder(dividingBy: LargeUInt(c))
                #expect(UInt128(q) == wide / UInt128(c) && r == LargeUInt(UInt64(wide % UInt128(c))))
            }
            #expect((LargeUInt(a) < LargeUInt(b)) == (a < b))
            if a >= b { #expect(LargeUInt(a) - LargeUInt(b) == LargeUInt(a - b)) }
        }
    }

    @Test func numbersFarBeyond128BitsComeBackExactly() {
        // The product of the primes below 300 (about 2^400), divided back out one by one.
        let primes = (2..<300).filter { n in (2..<n).allSatisfy { n % $0 != 0 } }.map(UInt64.init)
        var product = LargeUInt(1)
        for prime in primes { product = product * prime }
        #expect(product.words.count > 6)
        var rest = product
        for prime in primes.reversed() {
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: prime)
            #expect(remainder == 0)
            rest = quotient
        }
        #expect(rest == LargeUInt(1))
        #expect(product.greatestCommonDivisor(with: 97 * 101 * 1_000_003) == 97 * 101)
        // (p * x + 12345) / p = x rem 12345, with a wide divisor and a one-word quotient.
        let (quotient, remainder) = (product * 0xDEAD_BEEF + LargeUInt(12_345)).quotientAndRemainder(dividingBy: product)
        #expect(quotient == 0xDEAD_BEEF && remainder == LargeUInt(12_345))
        #expect(LargeUInt(1).shiftedLeft(by: 128).description == "340282366920938463463374607431768211456")
    }

    @Test func aPositionAfterManyTempiIsStillExact() {
        // Bars at every tempo from 60 to 200 bpm: the denominator is their least common multiple (~2^200).
        var position = ExactPosition.zero
        for bpm in UInt64(60)...200 { position.advance(by: 4, of: (60 * 48_000, bpm)) }
        // The same sum split another way: the whole frames of each term in a word, their fractions summed apart.
        var exactWhole: UInt64 = 0
        var fractionSum = ExactPosition.zero
        for bpm in UInt64(60)...200 { fractionSum.advance(by: Int64((4 * 2_880_000) % bpm), of: (1, bpm)) }
        for bpm in UInt64(60)...200 { exactWhole += (4 * 2_880_000) / bpm }
        let (wholeFrames, _) = fractionSum.origin(beat: 2, subdivision: 2, polyrhythm: 2)
        let (frame, phase) = position.origin(beat: 1 << 20, subdivision: 2, polyrhythm: 2)
        let (_, fractionPhase) = fractionSum.origin(beat: 1 << 20, subdivision: 2, polyrhythm: 2)
        #expect(frame == Int64(exactWhole) + wholeFrames)
        #expect(phase.beat == fractionPhase.beat)
    }
}
