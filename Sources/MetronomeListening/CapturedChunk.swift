import MetronomeSupport
import MetronomeTiming

/// Up to 64 mono frames the capture thread read, with where they lie: the
/// capture frame of the first, and the device's last word on time ("capture
/// frame `stampFrame` was taken at `stampNanoseconds`", from `snd_pcm_status`).
/// Plain values, so a `LockFreeQueue` hands them from the capture thread
/// to the thread that listens without allocating.
package struct CapturedChunk: BitwiseCopyable, Sendable {
    /// Frames a chunk holds at most: aubio's hop.
    package static let capacity = 64

    /// The capture frame of `samples[0]`: frames read since the device started.
    package var firstFrame: Int64
    /// How many of `samples` hold frames.
    package var count: Int
    /// A capture frame and the monotonic instant it was taken at (0 when the device gave no timestamp).
    package var stampFrame: Int64
    package var stampNanoseconds: Int64
    package var samples: SIMD64<Float>

    package init(firstFrame: Int64 = 0, count: Int = 0, stampFrame: Int64 = 0, stampNanoseconds: Int64 = 0) {
        self.firstFrame = firstFrame
        self.count = count
        self.stampFrame = stampFrame
        self.stampNanoseconds = stampNanoseconds
        samples = SIMD64<Float>()
    }

    /// The instant capture frame `frame` was taken at, by the stamp and the rate; nil without a stamp.
    package func instant(ofFrame frame: Int64, rate: SampleRate) -> MonotonicInstant? {
        guard stampNanoseconds != 0 else { return nil }
        let nanoseconds = FrameTime.nanoseconds(inFrames: frame - stampFrame, at: rate.framesPerSecond)
        return MonotonicInstant(nanoseconds: stampNanoseconds + nanoseconds)
    }
}

/// The chunks the capture thread read, oldest first.
package typealias CaptureLog = LockFreeQueue<CapturedChunk>
