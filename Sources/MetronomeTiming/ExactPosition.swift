
/// A position on the timeline in frames, held exactly: a fraction of
/// unbounded integers (its denominator the least common multiple of the
/// intervals' denominators so far), plus the real-valued length of the tempo
/// ramps played, each from its closed form.
///
/// No rounding carries from one stretch of a plan to the next. Off the audio
/// thread only: it allocates.
struct ExactPosition: Sendable {
    private(set) var numerator = LargeUInt.zero
    private(set) var denominator = LargeUInt(1)
    /// Frames of ramps (irrational lengths), added on top of the fraction.
    private(set) var real: Double = 0

    static let zero = ExactPosition()

    /// Moves on by `count` intervals of `numerator / denominator` frames:
    /// `n/d + a/Q = (n * (Q/g) + a * (d/g)) / (d * Q/g)` with `g = gcd(d, Q)`.
    mutating func advance(by count: Int64, of interval: (numerator: UInt64, denominator: UInt64)) {
        precondition(count >= 0, "positions only move on")
        let added = LargeUInt(UInt64(count)) * interval.numerator
        let common = denominator.greatestCommonDivisor(with: interval.denominator)
        let scale = interval.denominator / common
        numerator = numerator * scale + added * denominator.quotientAndRemainder(dividingBy: common).quotient
        denominator = denominator * scale
    }

    /// Moves on by a ramp's length in frames.
    mutating func advance(byRealFrames frames: Double) {
        real += frames
    }

    /// This position moved on by `frames` (a ramp's beat offset), leaving it as it is.
    func advanced(byRealFrames frames: Double) -> ExactPosition {
        var position = self
        position.real += frames
        return position
    }

    /// The whole frame at or before the position, and the fraction past it as
    /// `floor(fraction * d)` for each grid denominator `d` (see `GridPhase`).
    func origin(beat: UInt64, subdivision: UInt64, polyrhythm: UInt64, clock: UInt64 = 2) -> (frame: Int64, phase: GridPhase) {
        let (whole, remainder) = numerator.wordQuotientAndRemainder(dividingBy: denominator)
        if real == 0 {
            func phase(_ units: UInt64) -> UInt64 { (remainder * units).wordQuotientAndRemainder(dividingBy: denominator).quotient }
            return (Int64(whole), GridPhase(beat: phase(beat), subdivision: phase(subdivision), polyrhythm: phase(polyrhythm), clock: phase(clock)))
        }
        // A ramp's length is irrational: no tie can occur, and 53 bits of the fraction are plenty.
        let fraction = Double(remainder.shiftedLeft(by: 53).wordQuotientAndRemainder(dividingBy: denominator).quotient) / 0x1p53
        let realWhole = real.rounded(.down)
        let sum = fraction + (real - realWhole)
        let carry = sum.rounded(.down)
        let rest = sum - carry
        func phase(_ units: UInt64) -> UInt64 { min(UInt64((rest * Double(units)).rounded(.down)), units - 1) }
        return (Int64(whole) + Int64(realWhole) + Int64(carry),
                GridPhase(beat: phase(beat), subdivision: phase(subdivision), polyrhythm: phase(polyrhythm), clock: phase(clock)))
    }

    /// The frame nearest the position (a half rounds up), as the grid places clicks.
    var nearestFrame: Int64 {
        let (frame, phase) = origin(beat: 2, subdivision: 2, polyrhythm: 2)
        return frame + Int64(phase.beat)
    }
}
