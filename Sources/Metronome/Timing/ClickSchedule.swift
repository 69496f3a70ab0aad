/// Where each click of a constant tempo falls, in frames, computed exactly.
///
/// Click `k` starts at frame `floor(k * 60 * R / B + 1/2)`, with `B` the tempo in
/// bpm and `R` the rate. With `B = m / 1000` (m thousandths of a bpm) that is
/// `floor((k * 120000 * R + m) / (2 * m))`: integers only, so a click that
/// falls exactly on a half frame (96 bpm at 44.1 kHz) rounds the same way
/// every time, and click one million is as exact as click one.
public struct ClickSchedule: Sendable, Equatable, BitwiseCopyable {
    public let tempo: Tempo
    public let meter: Meter
    public let rate: SampleRate

    /// `120000 * R`: twice the frames in a minute, times 1000.
    private let numeratorPerClick: UInt64
    /// `2 * m`.
    private let denominator: UInt64
    private let halfDenominator: UInt64

    public init(tempo: Tempo, meter: Meter = .common, rate: SampleRate = .standard) {
        self.tempo = tempo
        self.meter = meter
        self.rate = rate
        numeratorPerClick = 120_000 * UInt64(rate.framesPerSecond)
        denominator = 2 * UInt64(tempo.millibeatsPerMinute)
        halfDenominator = UInt64(tempo.millibeatsPerMinute)
    }

    /// The frame at which click `k` (counted from 0) starts.
    @inline(__always)
    public func frame(ofClick click: Int64) -> Int64 {
        precondition(click >= 0, "clicks are counted from 0")
        return Int64(ExactArithmetic.floorMultiplyAdd(UInt64(click), numeratorPerClick,
                                                      plus: halfDenominator, dividedBy: denominator))
    }

    /// The frame of `tick`, counted from click 0 in ticks of `1/ticksPerBeat`
    /// beat: `floor(tick * 60 * R / (B * T) + 1/2)`, so tick `k * T` is click `k`.
    @inline(__always)
    public func frame(ofTick tick: Int64, ticksPerBeat: Int64) -> Int64 {
        precondition(tick >= 0, "ticks are counted from 0")
        let perTick = halfDenominator * UInt64(ticksPerBeat)
        return Int64(ExactArithmetic.floorMultiplyAdd(UInt64(tick), numeratorPerClick, plus: perTick, dividedBy: 2 * perTick))
    }

    /// The first click that starts at or after `frame`.
    ///
    /// `frame(k) >= f` holds exactly when `k * 120000R >= (2f - 1) * m`, so the
    /// answer is `ceil((2f - 1) * m / 120000R)` for `f >= 1`, and 0 before that.
    public func firstClick(atOrAfter frame: Int64) -> Int64 {
        guard frame > 0 else { return 0 }
        let target = UInt64(2 * frame - 1)
        return Int64(ExactArithmetic.floorMultiplyAdd(target, halfDenominator,
                                                      plus: numeratorPerClick - 1, dividedBy: numeratorPerClick))
    }

    /// The beat of its bar that click `k` is, from 0; beat 0 rings the bell.
    @inline(__always)
    public func beatInBar(ofClick click: Int64) -> Int {
        Int(click % Int64(meter.beatsPerBar))
    }

    /// Whether click `k` is the first beat of a bar.
    @inline(__always)
    public func isBell(click: Int64) -> Bool { beatInBar(ofClick: click) == 0 }

    /// The frame at which bar `n` (from 0) starts; bar `n` ends where bar `n + 1` starts.
    public func frame(ofBar bar: Int64) -> Int64 {
        frame(ofClick: bar * Int64(meter.beatsPerBar))
    }

    /// The fewest frames between two consecutive clicks: `floor(60R/B)`.
    public var shortestInterval: Int64 {
        Int64(ExactArithmetic.floorMultiplyAdd(1, numeratorPerClick, plus: 0, dividedBy: denominator))
    }
}
