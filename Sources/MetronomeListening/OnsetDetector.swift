import CAubio
import MetronomeTiming

/// Finds where notes start in a stream of mono frames: aubio's onset
/// detector (`new_aubio_onset`, `aubio_onset_do`), fed a hop at a time,
/// through `AubioLibrary` (loaded on first use). Allocates nothing while feeding.
///
/// `kl` with a 256-frame window and a 64-frame hop measured best on percussive
/// hits. aubio places an onset `aubio_onset_get_delay` frames (4.3 hops) before
/// where it found it; the frame is counted here in 64 bits
/// (`aubio_onset_get_last` is 32-bit and wraps after a day at 48 kHz).
///
/// aubio's frame is only as good as its hop and its peak (up to 1.7 ms late for
/// a hit rising over 2 ms), so it is refined on the samples (`refined`). aubio
/// also reports a note wherever its input starts above −70 dB, steady noise
/// and all: a note must also rise `rise` times above its noise floor and
/// reach `silence`.
package final class OnsetDetector {
    /// The spectral method aubio compares frames by: Kullback-Leibler.
    package static let method = "kl"
    package static let window = 256
    package static let hop = 64
    /// How far either side of aubio's frame the start is looked for.
    package static let refinementReach = 256
    /// The share of the loudest sample near aubio's frame the first sample of the note reaches.
    package static let refinementShare: Float = 0.15
    /// How much louder than the noise floor a note's loudest sample is.
    package static let rise: Float = 2
    /// The frames before a note's start whose loudest sample is its noise floor (2.7 ms at 48 kHz).
    package static let floorFrames = 128
    /// The fewest frames before a note's start, at the input's start, that tell its floor (⅓ ms at 48 kHz).
    package static let shortestFloor: Int64 = 16
    /// The quietest a note's loudest sample may be: aubio's silence threshold, −70 dBFS.
    package static let silence: Float = 0.000_316
    /// The silence aubio hears before the first frame fed.
    static let warmUpFrames = 4_096
    /// The recent frames kept for the refinement (a power of two, more than the delay, the reach and the floor).
    static let historyFrames = 1_024

    package let rate: SampleRate
    /// How far behind the frames fed an onset is found: aubio's delay (`aubio_onset_get_delay`), in frames.
    package let delayFrames: Int64

    private let aubio: AubioLibrary
    private let onset: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>
    /// The last `historyFrames` frames fed, frame `f` at `f mod historyFrames`.
    private let history: UnsafeMutablePointer<Float>
    /// Frames fed so far.
    package private(set) var framesFed: Int64 = 0

    /// Whether aubio can be loaded, and if not why (`AubioLibrary`): the inspector asks before it opens anything.
    package static var unavailable: AubioLibraryError? {
        if case .failure(let error) = AubioLibrary.shared { return error }
        return nil
    }

    /// Nil when aubio cannot be loaded (`unavailable` says why) or refuses the method or sizes at `rate`.
    package init?(rate: SampleRate) {
        guard case .success(let aubio) = AubioLibrary.shared,
              let onset = aubio.newOnset(Self.method, UInt32(Self.window), UInt32(Self.hop), UInt32(rate.framesPerSecond)) else {
            return nil
        }
        guard let input = aubio.newVector(UInt32(Self.hop)), let output = aubio.newVector(1) else {
            aubio.deleteOnset(onset)
            return nil
        }
        // Neither adaptive whitening nor log compression: without them kl finds more of the synthetic hits.
        _ = aubio.setAdaptiveWhitening(onset, 0)
        _ = aubio.setCompression(onset, 0)
        self.aubio = aubio
        self.onset = onset
        self.input = input
        self.output = output
        history = .allocate(capacity: Self.historyFrames)
        history.initialize(repeating: 0, count: Self.historyFrames)
        self.rate = rate
        delayFrames = Int64(aubio.delay(onset))
        // aubio reports nothing for its first 2 000 to 3 000 frames but a note at the very start:
        // it hears `warmUpFrames` of silence first, so a note early in the input is found.
        input.pointee.data.update(repeating: 0, count: Self.hop)
        for _ in 0..<(Self.warmUpFrames / Self.hop) { aubio.detect(onset, input, output) }
    }

    deinit {
        aubio.deleteOnset(onset)
        aubio.deleteVector(input)
        aubio.deleteVector(output)
        history.deallocate()
    }

    /// Feeds the next `hop` frames (`aubio_onset_do`); returns the frame,
    /// counted from the first fed, where a note found in them began, or nil.
    package func feed(_ frames: UnsafePointer<Float>) -> Int64? {
        input.pointee.data.update(from: frames, count: Self.hop)
        (history + Int(framesFed % Int64(Self.historyFrames))).update(from: frames, count: Self.hop)
        aubio.detect(onset, input, output)
        let before = framesFed
        framesFed += Int64(Self.hop)
        // aubio's peak picker gives where in the hop the peak fell, a fraction of a hop that is 0 only
        // when nothing was found: a note whose peak fell in the first hop of its frame is below 1.
        let found = output.pointee.data[0]
        guard found > 0 else { return nil }
        // aubio's `t = total + round(found · hop) − delay` (`aubio_onset_get_last`), in 64 bits.
        let within = Int64((Double(found) * Double(Self.hop)).rounded())
        return refined(max(0, before + within - delayFrames))
    }

    /// The first frame within `refinementReach` of aubio's `frame` whose level
    /// reaches `refinementShare` of the loudest there, among the frames kept;
    /// nil unless the loudest reaches `silence` and `rise` times the loudest of
    /// the `floorFrames` before the start (at the input's start, at least `shortestFloor`).
    func refined(_ frame: Int64) -> Int64? {
        let kept = Int64(Self.historyFrames)
        let first = max(0, framesFed - kept, frame - Int64(Self.refinementReach))
        let end = min(framesFed, frame + Int64(Self.refinementReach))
        guard first < end else { return nil }
        let loudest = self.loudest(from: first, to: end)
        guard loudest >= Self.silence else { return nil }
        let level = loudest * Self.refinementShare
        guard let start = (first..<end).first(where: { abs(history[Int($0 % kept)]) >= level }) else { return nil }
        // At the input's start the floor is the frames there are, if there are enough to tell a rise from noise.
        let floorStart = max(0, start - Int64(Self.floorFrames))
        guard start - floorStart >= Self.shortestFloor, floorStart >= framesFed - kept,
              loudest >= Self.rise * self.loudest(from: floorStart, to: start) else { return nil }
        return start
    }

    /// The loudest sample (absolute) of the kept frames `first..<end`.
    private func loudest(from first: Int64, to end: Int64) -> Float {
        let kept = Int64(Self.historyFrames)
        var loudest: Float = 0
        for index in first..<end { loudest = max(loudest, abs(history[Int(index % kept)])) }
        return loudest
    }
}
