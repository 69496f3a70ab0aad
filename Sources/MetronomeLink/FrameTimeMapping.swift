import MetronomeTiming

/// A straight line between the device's frames and Link's clock: which Link
/// time a frame is heard at, and which frame is the first heard at or after a
/// Link time, in integers.
///
/// The line is an anchor (a frame and the Link time it is heard at, in
/// nanoseconds) and a rate in nanoframes per Link second, so every answer is
/// exact given the line: `firstFrame(atOrAfter:)` is the least frame `f` with
/// `anchor time + (f - anchor frame) · 10¹⁸ / rate ≥ t`. Products go through
/// `Int128`: ten years at 192 kHz is 6·10¹³ frames and 3·10¹⁷ ns, and a
/// rate of 1.92·10¹⁴ nanoframes a second makes products of 10³².
package struct FrameTimeMapping: Equatable, Sendable {
    /// The anchor frame.
    package let frame: Int64
    /// The Link time the anchor frame is heard at, in nanoseconds (Link's microseconds × 1000).
    package let nanos: Int64
    /// Frames per second of Link's clock, × 10⁹.
    package let nanoframesPerSecond: Int64

    static let nanosPerSecond: Int128 = 1_000_000_000
    static let scale: Int128 = 1_000_000_000 * 1_000_000_000

    package init(frame: Int64, nanos: Int64, nanoframesPerSecond: Int64) {
        precondition(nanoframesPerSecond > 0, "a mapping needs a positive rate")
        self.frame = frame
        self.nanos = nanos
        self.nanoframesPerSecond = nanoframesPerSecond
    }

    /// `frame` heard at `time`, at exactly `rate` frames a second of Link's clock.
    package init(frame: Int64, heardAt time: LinkTime, rate: SampleRate) {
        self.init(frame: frame, nanos: time.micros * 1_000, nanoframesPerSecond: rate.framesPerSecond * 1_000_000_000)
    }

    /// The same line with every frame heard `nanoseconds` later: output latency the device's delay does not report.
    package func delayed(byNanoseconds nanoseconds: Int64) -> FrameTimeMapping {
        FrameTimeMapping(frame: frame, nanos: nanos + nanoseconds, nanoframesPerSecond: nanoframesPerSecond)
    }

    /// The Link time `frame` is heard at, in nanoseconds, rounded down.
    package func nanos(ofFrame other: Int64) -> Int64 {
        let offset = Int128(other - frame) * Self.scale
        return nanos + Int64(Self.floorDivide(offset, Int128(nanoframesPerSecond)))
    }

    /// The Link time `frame` is heard at, rounded down to Link's microsecond.
    package func time(ofFrame other: Int64) -> LinkTime {
        LinkTime(micros: Int64(Self.floorDivide(Int128(nanos(ofFrame: other)), 1_000)))
    }

    /// The first frame heard at or after `time`: where a beat due at `time` starts.
    package func firstFrame(atOrAfter time: LinkTime) -> Int64 {
        let since = Int128(time.micros) * 1_000 - Int128(nanos)
        return frame + Int64(-Self.floorDivide(-since * Int128(nanoframesPerSecond), Self.scale))
    }

    /// Where `time` falls on the line, in billionths of a frame, rounded up:
    /// `firstFrame(atOrAfter:)` is this rounded up to a whole frame.
    package func nanoframe(at time: LinkTime) -> Int128 {
        let since = Int128(time.micros) * 1_000 - Int128(nanos)
        return Int128(frame) * Self.nanosPerSecond - Self.floorDivide(-since * Int128(nanoframesPerSecond), Self.nanosPerSecond)
    }

    /// The first whole frame at or after a position in billionths of a frame.
    package static func firstFrame(atOrAfterNanoframe position: Int128) -> Int64 {
        Int64(-floorDivide(-position, nanosPerSecond))
    }

    /// ⌊a / b⌋ for b > 0 (Swift's `/` truncates toward zero).
    static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
