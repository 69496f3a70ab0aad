import MetronomeTiming

/// The line through the frames heard and the Link times they were heard at.
///
/// A running linear regression over the last 512 points, as Link's
/// `HostTimeFilter` fits host time to the sample count: points jitter by up to
/// a period (devices report once a period), and the fit follows the device
/// clock's drift against Link's. Unlike Link's (sums of x² over absolute sample
/// counts, which cancel catastrophically after hours), it works relative to the
/// newest point, subtracted in integers before anything becomes a `Double`, so
/// it is as exact after ten years as after a second. The points live inline:
/// adding one allocates nothing, for the audio thread.
package struct HostTimeFilter: Sendable {
    package static let capacity = 512

    /// The nominal rate: the slope with a single point, and the centre of the slopes allowed.
    package let rate: SampleRate
    /// A point farther than this from the line (an underrun, a restart) starts the fit again from it.
    package let reanchorFrames: Int64
    /// The fitted rate stays within this share of the nominal rate (crystals are within 10⁻⁴).
    package static let maximumDrift = 1e-3

    /// Where the line passes among the points, at the fitted slope.
    package enum Offset: Sendable {
        /// Through their mean, as Link's filter does: reports that jitter both ways.
        case mean
        /// Through the earliest: reports that can only be late, as when each
        /// is stamped after a thread woke (a sound server's plugin). The
        /// least-delayed point is the truest, and one is enough.
        case earliest
    }
    package let offset: Offset

    private var frames = InlineArray<512, Int64>(repeating: 0)
    private var micros = InlineArray<512, Int64>(repeating: 0)
    private var newest = -1
    package private(set) var count = 0

    package init(rate: SampleRate, reanchorFrames: Int64 = 8_192, offset: Offset = .mean) {
        self.rate = rate
        self.offset = offset
        self.reanchorFrames = reanchorFrames
    }

    /// Frames from the oldest point to the newest: how much of the device's clock the fit has seen.
    package var spanFrames: Int64 {
        guard count > 0 else { return 0 }
        let oldest = count < Self.capacity ? 0 : (newest + 1) % Self.capacity
        return frames[newest] &- frames[oldest]
    }

    /// Forgets every point, as after a restart of the stream.
    package mutating func reset() {
        count = 0
        newest = -1
    }

    /// Adds that `frame` was heard at `time`; a point far off the line as it stands replaces all the others.
    package mutating func add(frame: Int64, heardAt time: LinkTime) {
        if let line = mapping() {
            let distance = Int128(line.firstFrame(atOrAfter: time)) - Int128(frame)
            if distance > Int128(reanchorFrames) || distance < -Int128(reanchorFrames) { reset() }
        }
        newest = (newest + 1) % Self.capacity
        frames[newest] = frame
        micros[newest] = time.micros
        count = min(count + 1, Self.capacity)
    }

    /// The fitted line, anchored at the newest point's frame; nil before the first point.
    package func mapping() -> FrameTimeMapping? {
        guard count > 0 else { return nil }
        let anchorFrame = frames[newest], anchorMicros = micros[newest]
        let n = Double(count)
        // Two passes, each coordinate relative to the newest point: means, then centred sums.
        var sumX = 0.0, sumY = 0.0
        for index in 0..<count {
            sumX += Double(frames[index] &- anchorFrame)
            sumY += Double(micros[index] &- anchorMicros)
        }
        let meanX = sumX / n, meanY = sumY / n
        var sumXX = 0.0, sumXY = 0.0
        for index in 0..<count {
            let x = Double(frames[index] &- anchorFrame) - meanX
            let y = Double(micros[index] &- anchorMicros) - meanY
            sumXX += x * x
            sumXY += x * y
        }
        // Microseconds of Link's clock per frame.
        let nominal = 1e6 / Double(rate.framesPerSecond)
        var slope = sumXX > 0 ? sumXY / sumXX : nominal
        slope = min(max(slope, nominal / (1 + Self.maximumDrift)), nominal * (1 + Self.maximumDrift))
        // The line at the anchor frame (x = 0): meanY + slope · (0 - meanX), in microseconds from the
        // anchor's; or through the earliest point, the least of y − slope · x.
        var at = meanY - slope * meanX
        if offset == .earliest {
            at = .infinity
            for index in 0..<count {
                at = min(at, Double(micros[index] &- anchorMicros) - slope * Double(frames[index] &- anchorFrame))
            }
        }
        let offsetNanos = (at * 1_000).rounded()
        return FrameTimeMapping(frame: anchorFrame, nanos: anchorMicros * 1_000 + Int64(offsetNanos),
                                nanoframesPerSecond: Int64((1e15 / slope).rounded()))
    }
}
