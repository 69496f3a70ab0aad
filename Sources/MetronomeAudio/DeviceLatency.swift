/// The period and buffer a device is asked for when `--latency` does not say.
///
/// A card gets two 256-frame periods (10.7 ms at 48 kHz). A sound server's
/// plugin cannot keep that: PipeWire moves a quantum at a time (1024 frames at
/// 48 kHz by default) and a buffer below two quanta runs dry between cycles;
/// the pulse plugin underruns below about 60 ms. So a server gets periods of a
/// quantum and a buffer of four (85 ms), which both hold.
package struct DeviceLatency: Sendable, Equatable {
    /// Whether a sound server stands behind the device: its plugin is the device or ends its chain (`ServerPlugin`).
    package let serving: Bool

    package init(serving: Bool) { self.serving = serving }

    /// Frames at 48 kHz of a sound server's period: PipeWire's default quantum.
    package static let serverPeriodAt48k = 1024
    /// Periods in a sound server's buffer.
    package static let serverPeriods = 4

    /// Period and buffer in frames at `rate` (a server's scaled with the rate, as its quantum is).
    package func frames(at rate: Int64) -> (period: Int, buffer: Int) {
        guard serving else { return Latency.standardFrames() }
        let period = Int((Int64(Self.serverPeriodAt48k) * rate + 24_000) / 48_000)
        return (period, period * Self.serverPeriods)
    }
}
