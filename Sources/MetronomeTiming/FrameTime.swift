/// Frames and nanoseconds, one into the other, at a sample rate.
///
/// The product of a frame count and 10⁹ (or of nanoseconds and the rate)
/// outgrows 64 bits after 53 hours at 48 kHz; the intermediate is 128 bits,
/// so any 64-bit input is exact, and a result beyond 64 bits saturates
/// instead of trapping. Quotients round toward zero.
package enum FrameTime {
    static let nanosecondsPerSecond: Int128 = 1_000_000_000

    /// `frames · 10⁹ / rate`: how long `frames` last at `rate`.
    @inline(__always)
    package static func nanoseconds(inFrames frames: Int64, at rate: Int64) -> Int64 {
        clamped(Int128(frames) * nanosecondsPerSecond / Int128(rate))
    }

    /// `nanoseconds · rate / 10⁹`: how many frames `nanoseconds` hold at `rate`.
    @inline(__always)
    package static func frames(inNanoseconds nanoseconds: Int64, at rate: Int64) -> Int64 {
        clamped(Int128(nanoseconds) * Int128(rate) / nanosecondsPerSecond)
    }

    @inline(__always)
    private static func clamped(_ value: Int128) -> Int64 {
        value > Int128(Int64.max) ? .max : value < Int128(Int64.min) ? .min : Int64(value)
    }
}
