import CAubio

/// Finds where notes start in a stream of mono frames: aubio's onset
/// detector (`new_aubio_onset`, `aubio_onset_do`), fed a hop at a time.
///
/// The method and sizes are the ones measured best on percussive hits
/// (`kl`, a 256-frame window, a 64-frame hop). aubio places an onset
/// `aubio_onset_get_delay` frames (4.3 hops) before the frame it found it
/// at; the frame it reports is counted here in 64 bits from the first frame
/// fed (`aubio_onset_get_last` is 32-bit and wraps after a day at 48 kHz).
public final class OnsetDetector {
    /// The spectral method aubio compares frames by: Kullback-Liebler.
    public static let method = "kl"
    public static let window = 256
    public static let hop = 64

    public let rate: SampleRate
    /// How far behind the frames fed an onset is found: aubio's delay (`aubio_onset_get_delay`), in frames.
    public let delayFrames: Int64

    private let onset: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>
    /// Frames fed so far.
    public private(set) var framesFed: Int64 = 0

    /// Nil when aubio refuses the method or sizes at `rate`.
    public init?(rate: SampleRate) {
        guard let onset = new_aubio_onset(Self.method, UInt32(Self.window), UInt32(Self.hop), UInt32(rate.framesPerSecond)) else {
            return nil
        }
        guard let input = new_fvec(UInt32(Self.hop)), let output = new_fvec(1) else {
            del_aubio_onset(onset)
            return nil
        }
        // Neither adaptive whitening nor log compression: without them kl found more of the synthetic hits.
        aubio_onset_set_awhitening(onset, 0)
        aubio_onset_set_compression(onset, 0)
        self.onset = onset
        self.input = input
        self.output = output
        self.rate = rate
        delayFrames = Int64(aubio_onset_get_delay(onset))
    }

    deinit {
        del_aubio_onset(onset)
        del_fvec(input)
        del_fvec(output)
    }

    /// Feeds the next `hop` frames (`aubio_onset_do`); returns the frame,
    /// counted from the first fed, where a note found in them began, or nil.
    public func feed(_ frames: UnsafePointer<Float>) -> Int64? {
        input.pointee.data.update(from: frames, count: Self.hop)
        aubio_onset_do(onset, input, output)
        let before = framesFed
        framesFed += Int64(Self.hop)
        let found = output.pointee.data[0]
        guard found >= 1 else { return nil }
        // aubio's `t = total + round(found · hop) − delay` (`aubio_onset_get_last`), in 64 bits.
        let within = Int64((Double(found) * Double(Self.hop)).rounded())
        return max(0, before + within - delayFrames)
    }
}
