import MetronomeSupport
import MetronomeTiming
import MetronomeAudio

/// The practice inspector's listening side: finds where notes start in what
/// the capture thread heard (`OnsetDetector`), places each on the output's
/// frames and matches it to the click or subdivision it was aimed at.
///
/// Run on its own thread (`LiveListener`), never the audio threads or the UI
/// loop. Input and output count frames from their own starts; each is tied to
/// the monotonic clock by its device's stamps through a `HeardClock` (the
/// least stale line through them), so an input frame maps to the output frame
/// heard at the same instant. What the devices leave out (converters, the air,
/// the cable) is the round trip `--calibrate` measures and the matcher takes off.
package final class Inspector {
    /// A note heard: where it was played (output frames, the round trip taken
    /// off), and its match (nil: an extra, aimed at no click).
    package struct Note: Equatable, Sendable, BitwiseCopyable {
        package let frame: Int64
        package let match: NoteMatch?
    }

    package let rate: SampleRate
    package let roundTripFrames: Int64
    private let log: CaptureLog
    private let detector: OnsetDetector
    /// Takes the metronome's own click out of the input (nil: the input is taken as heard, as `--calibrate` must).
    private let canceller: BleedCanceller?
    private var matcher: NoteMatcher
    private var captureLine: HeardClock
    private var outputLine: HeardClock
    /// The capture frame of each frame fed to the canceller and the detector, across the
    /// chunks the capture thread dropped.
    private var fedFrames = FedFrames()
    /// Frames waiting for a whole hop.
    private var hop: [Float]
    /// The click number of each target, by target index.
    private var beats: [Int64] = []
    /// Every note heard so far, in order.
    package private(set) var notes: [Note] = []
    /// The output frame of the last click received.
    package private(set) var lastClickFrame: Int64?

    /// Nil when aubio refuses the rate. With `played`, the clicks it holds are taken out of
    /// the input before notes are looked for (`BleedCanceller`).
    package init?(log: CaptureLog, rate: SampleRate, roundTripFrames: Int64, played: PlayedAudio? = nil) {
        guard let detector = OnsetDetector(rate: rate) else { return nil }
        self.log = log
        self.detector = detector
        canceller = played.map { BleedCanceller(played: $0, rate: rate, hop: OnsetDetector.hop) }
        self.rate = rate
        self.roundTripFrames = roundTripFrames
        matcher = NoteMatcher(rate: rate, roundTripFrames: roundTripFrames)
        captureLine = HeardClock(rate: rate)
        outputLine = HeardClock(rate: rate)
        hop = []
        hop.reserveCapacity(OnsetDetector.hop)
    }

    /// The clicks the track started (beats, subdivisions, second voice): the notes' targets.
    package func receive(clicks: [StartedClick]) {
        for click in clicks where lastClickFrame.map({ click.frame > $0 }) ?? true {
            matcher.add(.init(frame: click.frame, index: Int64(beats.count), beatOfBar: Int(click.beatInBar)))
            canceller?.expectClick(at: click.frame)
            beats.append(click.click)
            lastClickFrame = click.frame
        }
    }

    /// The click number (`beat` in the trace) a match is on.
    package func beat(of match: NoteMatch) -> Int64 { beats[Int(match.target.index)] }

    /// The most chunks one `listen` takes: 2.7 s of input at 48 kHz, far more than a
    /// frame's worth (13 chunks at 60 frames/s), so a listener held up catches up in a
    /// few calls; and an input with no clock of its own (ALSA's `null`, which hands over
    /// silence as fast as it is read) cannot keep the listener from new clicks and a stop.
    package static let chunksPerListen = 2_048

    /// Takes what was captured since the last call (`chunksPerListen` chunks at most),
    /// up to capture frame `captureFrame`: a chunk that ends after it stays in the log.
    /// `sample` is the output's audible position (`AudiblePosition.snapshot`). Returns the notes found.
    package func listen(sample: (heard: Int64, at: MonotonicInstant, written: Int64), now: MonotonicInstant,
                       through captureFrame: Int64 = .max) -> [Note] {
        if sample.at.nanoseconds != 0 { _ = outputLine.heardFrame(at: now, sample: sample) }
        var found: [Note] = []
        for _ in 0..<Self.chunksPerListen {
            guard hasInput(through: captureFrame), let chunk = log.pop() else { break }
            if chunk.stampNanoseconds != 0 {
                _ = captureLine.heardFrame(at: now, sample: (chunk.stampFrame, MonotonicInstant(nanoseconds: chunk.stampNanoseconds), .max))
            }
            fedFrames.append(chunkAt: chunk.firstFrame, count: chunk.count, keeping: rate.framesPerSecond * 10)
            for index in 0..<chunk.count {
                hop.append(chunk.samples[index])
                guard hop.count == OnsetDetector.hop else { continue }
                if let canceller {
                    // The output frame (round trip off) of the hop's first frame, less that frame.
                    let first = canceller.received
                    let offset = outputFrame(ofCaptureFrame: fedFrames.captureFrame(ofFed: first)).map { $0 - roundTripFrames - first }
                    hop.withUnsafeBufferPointer { frames in
                        canceller.push(frames.baseAddress!, offset: offset) { detect($0, into: &found) }
                    }
                } else {
                    hop.withUnsafeBufferPointer { detect($0.baseAddress!, into: &found) }
                }
                hop.removeAll(keepingCapacity: true)
            }
        }
        notes += found
        return found
    }

    /// The output frame (the round trip taken off) up to which every note played has been
    /// found: aubio finds an onset its delay and a hop after it, and the refinement may move
    /// it up to its reach earlier; nil before the two lines place the input. A note placed at
    /// or before it has been returned by a `listen` already.
    package var heardThrough: Int64? {
        let settled = detector.framesFed - detector.delayFrames - Int64(OnsetDetector.refinementReach + OnsetDetector.hop)
        guard settled > 0, let heard = outputFrame(ofCaptureFrame: fedFrames.captureFrame(ofFed: settled)) else { return nil }
        return heard - roundTripFrames
    }

    /// Whether the log holds a chunk that ends at or before capture frame `captureFrame`: one `listen` would take.
    package func hasInput(through captureFrame: Int64) -> Bool {
        guard let chunk = log.peek() else { return false }
        return chunk.firstFrame + Int64(chunk.count) <= captureFrame
    }

    /// The input has ended: the frames held back for the bleed to be measured are looked at too.
    package func finish() -> [Note] {
        var found: [Note] = []
        canceller?.flush { detect($0, into: &found) }
        notes += found
        return found
    }

    /// How loud the metronome's own click comes back in the input, as taken out; nil if it never came back alone.
    package var bleedGain: Float? { canceller?.gain }

    private func detect(_ frames: UnsafePointer<Float>, into found: inout [Note]) {
        if let onset = detector.feed(frames), let note = place(captureFrame: fedFrames.captureFrame(ofFed: onset)) { found.append(note) }
    }

    /// The output frame heard at the instant capture frame `captureFrame` was taken, by the two lines.
    package func outputFrame(ofCaptureFrame captureFrame: Int64) -> Int64? {
        guard let instant = captureLine.instant(whenHeard: captureFrame) else { return nil }
        return outputLine.frame(at: instant)
    }

    private func place(captureFrame: Int64) -> Note? {
        guard let heard = outputFrame(ofCaptureFrame: captureFrame) else { return nil }
        return Note(frame: heard - roundTripFrames, match: matcher.match(heardFrame: heard))
    }

    /// The take so far: clicks up to `frame` with no note are misses.
    package func statistics(through frame: Int64) -> TakeStatistics {
        TakeStatistics(matches: matcher.matches, misses: matcher.misses(through: frame), extras: matcher.extras)
    }

    /// The output frames from each click to its note, for `--calibrate` (run with no round trip taken off).
    package var roundTrips: [Int64] { matcher.matches.map(\.offsetFrames) }
}

/// The frames fed to the listening, counted from 0, against the capture frames they
/// were taken at: a new piece where the capture thread dropped chunks. A frame is
/// placed by the piece it was fed in, so a note aubio finds after a gap, from frames
/// fed before it, keeps its place.
struct FedFrames {
    /// Where each piece starts: its first frame fed, and the capture frame that was.
    private var pieces: [(fed: Int64, capture: Int64)] = []
    /// Frames fed so far.
    private(set) var count: Int64 = 0

    /// A chunk of `frames` taken from capture frame `captureFrame` on; pieces that ended
    /// more than `keeping` frames before it are forgotten (nothing looks that far back).
    mutating func append(chunkAt captureFrame: Int64, count frames: Int, keeping: Int64) {
        if let last = pieces.last, last.capture + (count - last.fed) == captureFrame {
            count += Int64(frames)
            return
        }
        pieces.append((fed: count, capture: captureFrame))
        count += Int64(frames)
        while pieces.count > 1, pieces[1].fed < count - keeping { pieces.removeFirst() }
    }

    /// The capture frame of frame `index` fed (before the first chunk: itself).
    func captureFrame(ofFed index: Int64) -> Int64 {
        guard let piece = pieces.last(where: { $0.fed <= index }) ?? pieces.first else { return index }
        return piece.capture + (index - piece.fed)
    }
}
