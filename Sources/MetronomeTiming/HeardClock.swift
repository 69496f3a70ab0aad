import MetronomeSupport

/// A smooth estimate of the frame being heard, for the picture.
///
/// Devices report their position once per period (JACK's, the USB frame's),
/// so each `snd_pcm_status` sample can be stale by up to a period, never
/// early. The estimate is a straight line at the device rate through the
/// least-stale sample seen: each new sample can only move it forward, it
/// decays slowly (200 ppm) so a device clock slower than the monotonic one is
/// followed, and a sample far off the line (an underrun, a restart)
/// re-anchors it at once.
///
/// Where each sample is exact at its instant (JACK's cycle start, from its
/// own clock filter, and the port's latency), the line goes through each
/// sample, down as well as up: a connection made after the first cycles
/// adds its latency at once rather than being taken for staleness and
/// decayed over minutes, and a device clock apart from the monotonic one
/// (jackd's, which NTP does not slew) is followed at any rate.
package struct HeardClock: Sendable {
    package let rate: SampleRate
    /// heard frame = now (in frames) + offset.
    private var offset: Double?
    private var lastSample: (heard: Int64, at: Int64)?
    private var lastUpdate: Int64 = 0
    /// Beyond this (frames) a sample is a jump, not staleness.
    package let reanchorFrames: Double
    static let decayPerFrame = 200e-6
    /// Whether samples are exact rather than stale by up to a period.
    package let exact: Bool

    package init(rate: SampleRate, reanchorFrames: Double = 8_192, exact: Bool = false) {
        self.rate = rate
        self.reanchorFrames = reanchorFrames
        self.exact = exact
    }

    /// The frame heard at `now`, given the latest published sample.
    package mutating func heardFrame(at now: MonotonicInstant, sample: (heard: Int64, at: MonotonicInstant, written: Int64)) -> Int64 {
        let framesPerNanosecond = Double(rate.framesPerSecond) / 1e9
        let nowFrames = Double(now.nanoseconds) * framesPerNanosecond
        if let current = offset {
            offset = current - Double(now.nanoseconds - lastUpdate) * framesPerNanosecond * Self.decayPerFrame
        }
        lastUpdate = now.nanoseconds
        if lastSample?.heard != sample.heard || lastSample?.at != sample.at.nanoseconds {
            lastSample = (sample.heard, sample.at.nanoseconds)
            let sampleOffset = Double(sample.heard) - Double(sample.at.nanoseconds) * framesPerNanosecond
            if !exact, let current = offset, abs(sampleOffset - current) < reanchorFrames {
                offset = max(current, sampleOffset)
            } else {
                offset = sampleOffset
            }
        }
        guard let offset else { return sample.heard }
        return min(Int64((nowFrames + offset).rounded(.down)), sample.written)
    }

    /// The frame on the line as it stands at `instant` (nil before the first sample), not capped by what was written.
    package func frame(at instant: MonotonicInstant) -> Int64? {
        guard let offset else { return nil }
        let frame = (Double(instant.nanoseconds) * Double(rate.framesPerSecond) / 1e9 + offset).rounded(.down)
        guard frame.isFinite, abs(frame) < 9e18 else { return nil }
        return Int64(frame)
    }

    /// When frame `frame` will be heard on the line as it stands (nil before the first sample):
    /// the first nanosecond at which `heardFrame` reaches it, unless a new sample moves the line.
    package func instant(whenHeard frame: Int64) -> MonotonicInstant? {
        guard let offset else { return nil }
        let nanosecondsPerFrame = 1e9 / Double(rate.framesPerSecond)
        let at = ((Double(frame) - offset) * nanosecondsPerFrame).rounded(.up)
        guard at.isFinite, abs(at) < 9e18 else { return nil }
        return MonotonicInstant(nanoseconds: Int64(at) + 1)
    }
}
