/// A run of beats of one exact length: `count` beats of `microseconds`
/// (a fraction, reduced) each, as a MIDI file's ticks and tempos make them.
package struct ExactBeats: Sendable, Equatable {
    package var count: Int64
    package var microseconds: (numerator: UInt64, denominator: UInt64)

    package init(count: Int64, microseconds numerator: UInt64, per denominator: UInt64) {
        var (a, b) = (numerator, denominator)
        while b != 0 { (a, b) = (b, a % b) }
        self.count = count
        microseconds = (numerator / a, denominator / a)
    }

    package static func == (lhs: ExactBeats, rhs: ExactBeats) -> Bool {
        lhs.count == rhs.count && lhs.microseconds == rhs.microseconds
    }

    /// The beat's tempo as the status line shows it: beats a minute, to a thousandth.
    package var tempo: Tempo {
        Tempo(clamping: Int64((Int128(60_000_000_000) * Int128(microseconds.denominator) * 2 + Int128(microseconds.numerator))
                                / (2 * Int128(microseconds.numerator))))
    }

    /// Frames a beat at `rate`, `µs * R / 10^6`, reduced: (numerator, denominator).
    func frames(at rate: SampleRate) -> (numerator: UInt64, denominator: UInt64) {
        var numerator = Int128(microseconds.numerator) * Int128(rate.framesPerSecond)
        var denominator = Int128(microseconds.denominator) * 1_000_000
        var (a, b) = (numerator, denominator)
        while b != 0 { (a, b) = (b, a % b) }
        numerator /= a
        denominator /= a
        return (UInt64(numerator), UInt64(denominator))
    }

    /// Seconds a beat, for the map's length.
    var seconds: Double { Double(microseconds.numerator) / Double(microseconds.denominator) / 1_000_000 }
}
