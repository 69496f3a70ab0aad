import MetronomeTiming

/// How far ahead of the ear the audio thread writes: the ALSA buffer.
package struct Latency: Sendable, Equatable {
    package let microseconds: Int64
    /// Frames the audio thread writes at a time unless the buffer is smaller.
    package static let standardPeriod = 256

    package init(parsing text: String) throws(TimingError) {
        guard let micro = ExactDecimal.parse(text, places: 3, in: 1_000...2_000_000) else {
            throw .invalid("latency '\(text)' is not allowed: use milliseconds from 1 to 2000, e.g. 20")
        }
        microseconds = micro
    }

    /// Period and buffer sizes: 256-frame periods (less for a tiny buffer), at least two a buffer.
    package func frames(at rate: SampleRate) -> (period: Int, buffer: Int) {
        let buffer = max(32, Int((microseconds * rate.framesPerSecond + 500_000) / 1_000_000))
        let period = min(Self.standardPeriod, max(16, buffer / 2))
        return (period, max(buffer, period * 2))
    }

    /// 256-frame periods, two of them: 10.7 ms at 48 kHz.
    package static func standardFrames() -> (period: Int, buffer: Int) {
        (standardPeriod, standardPeriod * 2)
    }
}
