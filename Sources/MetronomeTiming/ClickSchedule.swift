/// Where each click of a constant tempo falls, in frames, computed exactly.
///
/// Click `k` starts at frame `floor(k * 60 * R / B + 1/2)`, with `B` the tempo in
/// bpm and `R` the rate. With `B = m / 1000` (m thousandths of a bpm) that is
/// `floor((k * 120000 * R + m) / (2 * m))`: integers only, so a click that
/// falls exactly on a half frame (96 bpm at 44.1 kHz) rounds the same way
/// every time, and click one million is as exact as click one.
package struct ClickSchedule: Sendable, Equatable, BitwiseCopyable {
    package let tempo: Tempo
    package let meter: Meter
    package let rate: SampleRate

    /// `2P` for clicks `P / Q` frames apart (`120000 * R` for a tempo of `m / 1000` bpm).
    private let numeratorPerClick: UInt64
    /// `2Q` (`2 * m` for a tempo of `m / 1000` bpm).
    private let denominator: UInt64
    private let halfDenominator: UInt64

    package init(tempo: Tempo, meter: Meter = .common, rate: SampleRate = .standard) {
        self.init(framesPerClick: 60_000 * UInt64(rate.framesPerSecond), over: UInt64(tempo.millibeatsPerMinute),
                  tempo: tempo, meter: meter, rate: rate)
    }

    /// A tempo map's tempo, counted in quarter notes a minute whatever the
    /// meter (as klick counts it): a beat of note value `d` is `4/d` quarters,
    /// `240000 * R / (d * q)` frames for `q` thousandths of a quarter a minute.
    package init(quarterNoteTempo: Tempo, meter: Meter, rate: SampleRate) {
        let beatTempo = Tempo(clamping: (quarterNoteTempo.millibeatsPerMinute * Int64(meter.noteValue) + 2) / 4)
        self.init(framesPerClick: 240_000 * UInt64(rate.framesPerSecond),
                  over: UInt64(meter.noteValue) * UInt64(quarterNoteTempo.millibeatsPerMinute),
                  tempo: beatTempo, meter: meter, rate: rate)
    }

    /// Clicks `numerator / denominator` frames apart; `tempo` is what the
    /// status line shows. Both parts below 2^40.
    package init(framesPerClick numerator: UInt64, over denominator: UInt64, tempo: Tempo, meter: Meter, rate: SampleRate) {
        precondition(numerator > 0 && denominator > 0 && numerator < 1 << 40 && denominator < 1 << 40)
        self.tempo = tempo
        self.meter = meter
        self.rate = rate
        numeratorPerClick = 2 * numerator
        self.denominator = 2 * denominator
        halfDenominator = denominator
    }

    /// The interval between clicks as a fraction of frames, `P / Q` (not reduced).
    package var framesPerClick: (numerator: UInt64, denominator: UInt64) { (numeratorPerClick / 2, halfDenominator) }

    /// The frame at which click `k` (counted from 0) starts, for a grid whose
    /// origin lies `phase / 2Q` of a frame after a whole frame (0 ≤ phase < 2Q).
    @inline(__always)
    package func frame(ofClick click: Int64, phase: UInt64 = 0) -> Int64 {
        precondition(click >= 0, "clicks are counted from 0")
        return Int64(ExactArithmetic.floorMultiplyAdd(UInt64(click), numeratorPerClick,
                                                      plus: halfDenominator + phase, dividedBy: denominator))
    }

    /// The frame of `tick`, counted from click 0 in ticks of `1/ticksPerBeat`
    /// beat: `floor(tick * 60 * R / (B * T) + 1/2)`, so tick `k * T` is click `k`;
    /// `phase` as for clicks, in units of `1 / 2QT` frame.
    @inline(__always)
    package func frame(ofTick tick: Int64, ticksPerBeat: Int64, phase: UInt64 = 0) -> Int64 {
        precondition(tick >= 0, "ticks are counted from 0")
        let perTick = halfDenominator * UInt64(ticksPerBeat)
        return Int64(ExactArithmetic.floorMultiplyAdd(UInt64(tick), numeratorPerClick, plus: perTick + phase, dividedBy: 2 * perTick))
    }

    /// The first click that starts at or after `frame`.
    ///
    /// `frame(k) >= f` holds exactly when `k * 2P + Q + phase >= 2Qf`, so the
    /// answer is `ceil(((2f - 1) * Q - phase) / 2P)`, or 0 when that is not positive.
    package func firstClick(atOrAfter frame: Int64, phase: UInt64 = 0) -> Int64 {
        let target = Int128(2 * frame - 1) * Int128(halfDenominator) - Int128(phase)
        guard target > 0 else { return 0 }
        return Int64((target + Int128(numeratorPerClick) - 1) / Int128(numeratorPerClick))
    }

    /// The beat of its bar that click `k` is, from 0; beat 0 rings the bell.
    @inline(__always)
    package func beatInBar(ofClick click: Int64) -> Int {
        Int(click % Int64(meter.beatsPerBar))
    }

    /// Whether click `k` is the first beat of a bar.
    @inline(__always)
    package func isBell(click: Int64) -> Bool { beatInBar(ofClick: click) == 0 }

    /// The frame at which bar `n` (from 0) starts; bar `n` ends where bar `n + 1` starts.
    package func frame(ofBar bar: Int64) -> Int64 {
        frame(ofClick: bar * Int64(meter.beatsPerBar))
    }

    /// The fewest frames between two consecutive clicks: `floor(60R/B)`.
    package var shortestInterval: Int64 {
        Int64(ExactArithmetic.floorMultiplyAdd(1, numeratorPerClick, plus: 0, dividedBy: denominator))
    }
}
