import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

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

private func large(_ value: UInt128) -> LargeUInt { LargeUInt(wide: value) }

/// A number of `count` random words, shaped the ways division goes wrong:
/// plain, top word 1, all bits set, a power of two, runs of ones and zeros.
private func randomLarge(words count: Int, _ random: inout SplitMix) -> LargeUInt {
    var value = LargeUInt.zero
    let shape = random.next() % 6
    for index in 0..<count {
        var word = random.next()
        switch shape {
        case 1 where index == count - 1: word = 1
        case 2: word = .max
        case 3: word = index == count - 1 ? 1 << (random.next() % 64) : 0
        case 4: word = index % 2 == 0 ? .max : 0
        case 5 where index == count - 1: word = .max
        default: break
        }
        value = value + LargeUInt(word).shiftedLeft(by: 64 * index)
    }
    return value
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
                let (q, r) = large(wide).wordQuotientAndRemainder(dividingBy: LargeUInt(c))
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
        let (quotient, remainder) = (product * 0xDEAD_BEEF + LargeUInt(12_345)).wordQuotientAndRemainder(dividingBy: product)
        #expect(quotient == 0xDEAD_BEEF && remainder == LargeUInt(12_345))
        #expect(LargeUInt(1).shiftedLeft(by: 128).description == "340282366920938463463374607431768211456")
    }

    @Test func divisionOfManyWordsAgreesWithPythonsIntegers() throws {
        var random = SplitMix(state: 16)
        var lines: [String] = []
        for _ in 0..<3_000 {
            let n = randomLarge(words: Int(random.next() % 9) + 1, &random)
            var d = randomLarge(words: Int(random.next() % 6) + 1, &random)
            if d.isZero { d = LargeUInt(1) }
            let (q, r) = n.quotientAndRemainder(dividingBy: d)
            lines.append("\(n) \(d) \(q) \(r)")
        }
        // Knuth's add-back step (step D6), found by a model of the algorithm on 64-bit words:
        // 2^192 / (2^128 + 1) and 2^192 / (2^191 + 1), whose estimate passes the two-word test and is still one too large.
        let power192 = LargeUInt(1).shiftedLeft(by: 192)
        let addBack = [(power192, LargeUInt(1).shiftedLeft(by: 128) + LargeUInt(1)), (power192, LargeUInt(1).shiftedLeft(by: 191) + LargeUInt(1))]
        for (n, d) in addBack + [(LargeUInt(5), LargeUInt(7)), (LargeUInt(1).shiftedLeft(by: 300), LargeUInt(1).shiftedLeft(by: 300)),
                       (LargeUInt(1).shiftedLeft(by: 300), LargeUInt(1).shiftedLeft(by: 129)), (LargeUInt(1).shiftedLeft(by: 64), LargeUInt(1).shiftedLeft(by: 64) + LargeUInt(1))] {
            let (q, r) = n.quotientAndRemainder(dividingBy: d)
            lines.append("\(n) \(d) \(q) \(r)")
        }
        let directory = TemporaryDirectory()
        let path = directory.file("divisions.txt")
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let check = """
            import sys
            bad = [l for l in open(sys.argv[1]) if (lambda n, d, q, r: (n // d, n % d) != (q, r))(*map(int, l.split()))]
            print(len(bad), "wrong:", bad[:3])
            """
        let result = try run("/usr/bin/python3", ["-c", check, path])
        #expect(result.standardOutput.hasPrefix("0 wrong"), "\(result.standardOutput)\(result.standardError)")
    }

    @Test func divisionGivesBackItsDividendAndARemainderBelowTheDivisor() {
        var random = SplitMix(state: 7)
        for _ in 0..<5_000 {
            let d = randomLarge(words: Int(random.next() % 5) + 2, &random)
            let q = randomLarge(words: Int(random.next() % 5) + 1, &random)
            let r = randomLarge(words: d.words.count, &random)
            guard !d.isZero, r < d else { continue }
            let n = q * d + r
            let (quotient, remainder) = n.quotientAndRemainder(dividingBy: d)
            #expect(quotient == q && remainder == r, "\(n) / \(d)")
        }
        // A dividend below the divisor, and one equal to it.
        let d = LargeUInt(1).shiftedLeft(by: 200) + LargeUInt(3)
        #expect(d.quotientAndRemainder(dividingBy: d + LargeUInt(1)) == (.zero, d))
        #expect(d.quotientAndRemainder(dividingBy: d) == (LargeUInt(1), .zero))
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
