import MetronomeTiming
import MetronomeAudio

/// Takes the metronome's own click out of what the input hears, before notes
/// are looked for in it: a microphone by the speaker hears every click come
/// back (bleed), and a click is not a note.
///
/// What was played (`PlayedAudio`) and roughly where each input frame lies on
/// the output's frames (the devices' lines) are known; how loud a click comes
/// back and the last few frames of its delay are measured on the clicks that
/// come back alone: those whose best lag within `reach` explains at least
/// `cleanShare` of what was heard (no note over them). The bleed is what was played, on the line through where the
/// last few came back (the devices' lines wander by a few frames), at the
/// median of their gains. Frames are held back `holdFrames`, so a click is
/// measured before its frames reach the detector; until one has come back
/// alone, frames go on as heard.
///
/// Run on the listening thread (`LiveListener`), never the audio threads.
package final class BleedCanceller {
    /// The line through the last few (input frame, offset) pairs where clicks came back: least squares.
    struct ReturnLine {
        let capacity: Int
        private(set) var points: [(frame: Int64, offset: Int64)] = []

        init(capacity: Int) { self.capacity = capacity }

        mutating func add(frame: Int64, offset: Int64) {
            points.append((frame, offset))
            if points.count > capacity { points.removeFirst() }
        }

        mutating func removeAll() { points.removeAll(keepingCapacity: true) }

        /// The offset at `frame`; with one point, that point's; nil with none.
        func line(at frame: Int64) -> Double? {
            guard let last = points.last else { return nil }
            let count = Double(points.count)
            // Frames and offsets about the last point's, so the sums stay small.
            var sumX = 0.0, sumY = 0.0, sumXX = 0.0, sumXY = 0.0
            for point in points {
                let x = Double(point.frame - last.frame), y = Double(point.offset - last.offset)
                sumX += x
                sumY += y
                sumXX += x * x
                sumXY += x * y
            }
            let spread = sumXX - sumX * sumX / count
            let meanX = sumX / count, meanY = sumY / count
            // Two clocks a few hundred parts per million apart at most: a steeper slope is noise.
            let slope = spread > 0 ? max(-1e-3, min(1e-3, (sumXY - sumX * sumY / count) / spread)) : 0
            return Double(last.offset) + meanY + slope * (Double(frame - last.frame) - meanX)
        }
    }

    package let rate: SampleRate
    /// The frames of each hop pushed and released.
    package let hop: Int
    /// The frames after a click's start it is measured over.
    package let window: Int
    /// How far either side of where the click is predicted it is looked for.
    package let reach: Int
    /// How far behind the newest frame the frames given out are.
    package let holdFrames: Int
    /// The share of what the input heard around a click that the played click must explain for the click to be measured.
    package static let cleanShare: Float = 0.6
    /// The clicks whose lags and gains the bleed is the median of.
    static let remembered = 9

    private let played: PlayedAudio
    /// The input frames (raw), frame `n` at `n mod ringFrames`.
    private var raw: [Float]
    /// The output frame of an input frame less that frame, smoothed over the hops (nil: not known yet).
    private var smoothedOffset: Double?
    private let ringFrames: Int
    /// Frames pushed, and frames given out.
    package private(set) var received: Int64 = 0
    package private(set) var released: Int64 = 0
    /// Output frames of clicks not yet measured, in order.
    private var pending: [Int64] = []
    private var nextPending = 0
    /// Where the last clicks that came back alone were found.
    private var returns = ReturnLine(capacity: remembered)
    private var gains: [Float] = []
    /// How loud the clicks come back (the median of the last few measured); nil until one came back alone.
    package private(set) var gain: Float?
    /// Clicks that came back alone and were measured.
    package private(set) var measuredClicks = 0
    private var reference: [Float]
    private var out: [Float]

    package init(played: PlayedAudio, rate: SampleRate, hop: Int) {
        self.played = played
        self.rate = rate
        self.hop = hop
        let perMillisecond = Double(rate.framesPerSecond) / 1_000
        window = Int((perMillisecond * 32 / 3).rounded())  // 512 frames at 48 kHz
        reach = Int((perMillisecond * 8 / 3).rounded())  // 128 frames at 48 kHz
        let needed = window + 2 * reach + 2 * hop
        holdFrames = (needed + hop - 1) / hop * hop
        var ring = hop
        while ring < 4 * (holdFrames + window + 2 * reach) { ring <<= 1 }
        ringFrames = ring
        raw = Array(repeating: 0, count: ring)
        reference = Array(repeating: 0, count: max(window + 4 * reach, hop))
        out = Array(repeating: 0, count: hop)
    }

    /// A click's sound starts at output frame `frame`: its bleed is measured when it comes back.
    package func expectClick(at frame: Int64) {
        pending.append(frame)
    }

    /// Takes the next hop the input heard, whose frame `n` lies at output frame `n + offset`
    /// (the round trip taken off; nil when the lines are not known yet), and gives
    /// `release` each hop now old enough, the bleed taken out.
    package func push(_ frames: UnsafePointer<Float>, offset: Int64?, release: (UnsafePointer<Float>) -> Void) {
        let start = Int(received & Int64(ringFrames - 1))
        for index in 0..<hop { raw[start + index] = frames[index] }
        if let offset { follow(offset) }
        received += Int64(hop)
        measureReadyClicks(final: false)
        while received - released > Int64(holdFrames) { releaseHop(release) }
    }

    /// Gives out every frame held (the input has ended).
    package func flush(release: (UnsafePointer<Float>) -> Void) {
        measureReadyClicks(final: true)
        while released < received { releaseHop(release) }
    }

    /// The two devices' lines place each hop within a few frames (their reports are stale by up to a
    /// period, and each line wanders as it is corrected): followed slowly, this is where a click is looked for.
    private func follow(_ offset: Int64) {
        guard let smoothed = smoothedOffset, abs(Double(offset) - smoothed) < Double(reach) else {
            smoothedOffset = Double(offset)
            return
        }
        smoothedOffset = smoothed + (Double(offset) - smoothed) / 256
    }

    /// The output frame of input frame `frame` less `frame`: on the line through where the last
    /// clicks that came back alone were found, else by the devices' lines; nil before either.
    private func offset(at frame: Int64) -> Int64? {
        guard let line = returns.line(at: frame) else { return smoothedOffset.map { Int64($0.rounded()) } }
        return Int64(line.rounded())
    }

    private func measureReadyClicks(final: Bool) {
        guard let latest = offset(at: received) else { return }
        while nextPending < pending.count {
            let click = pending[nextPending]
            let predicted = click - latest
            if predicted + Int64(window + reach) > received, !final { break }
            nextPending += 1
            // Frames before the input's first are silence, and stay there.
            guard max(0, predicted - Int64(reach)) >= released, predicted + Int64(window + reach) <= received else {
                continue
            }
            if let found = find(click: click, predicted: predicted) {
                remember(found, at: predicted)
            } else if let lines = smoothedOffset.map({ Int64($0.rounded()) }), abs(lines - latest) > Int64(reach / 4),
                      max(0, click - lines - Int64(reach)) >= released,
                      let found = find(click: click, predicted: click - lines) {
                // The devices' lines have moved away from where clicks came back (a restart): start again from them.
                returns.removeAll()
                remember(found, at: click - lines)
            }
        }
        if nextPending > 1_024 {
            pending.removeFirst(nextPending)
            nextPending = 0
        }
    }

    private func remember(_ found: (offset: Int64, gain: Float), at frame: Int64) {
        measuredClicks += 1
        returns.add(frame: frame, offset: found.offset)
        gains.append(found.gain)
        if gains.count > Self.remembered { gains.removeFirst() }
        gain = gains.sorted()[gains.count / 2]
    }

    /// Where around input frame `predicted` the click played from output frame `click` came back, and
    /// how loud, if it came back alone: the lag at which it explains the most of what was heard, if that is most of it.
    private func find(click: Int64, predicted: Int64) -> (offset: Int64, gain: Float)? {
        let first = predicted - Int64(reach)
        let end = predicted + Int64(window + reach)
        // What was played from 2 reaches before the click on: every lag falls in it.
        let referenceStart = click - Int64(2 * reach)
        let copied = reference.withUnsafeMutableBufferPointer { played.copy(from: referenceStart, count: $0.count, into: $0.baseAddress!) }
        guard copied else { return nil }
        var heardEnergy: Float = 0
        for frame in first..<end {
            let sample = heard(frame)
            heardEnergy += sample * sample
        }
        guard heardEnergy > 0 else { return nil }
        // Input frame n heard output frame n + offset; the lag moves it.
        let offset = click - predicted
        var best: (share: Float, lag: Int64, gain: Float)?
        for lag in Int64(-reach)...Int64(reach) {
            var product: Float = 0, playedEnergy: Float = 0
            for frame in first..<end {
                let at = Int(frame + offset - lag - referenceStart)
                let playedSample = at >= 0 && at < reference.count ? reference[at] : 0
                product += heard(frame) * playedSample
                playedEnergy += playedSample * playedSample
            }
            guard playedEnergy > 0, product > 0 else { continue }
            let share = product * product / (heardEnergy * playedEnergy)
            if share > (best?.share ?? 0) { best = (share, lag, product / playedEnergy) }
        }
        guard let best, best.share >= Self.cleanShare else { return nil }
        return (offset - best.lag, best.gain)
    }

    /// Input frame `frame` as heard (held in the ring); before the first, silence.
    @inline(__always)
    private func heard(_ frame: Int64) -> Float { frame < 0 ? 0 : raw[Int(frame & Int64(ringFrames - 1))] }

    private func releaseHop(_ release: (UnsafePointer<Float>) -> Void) {
        let start = Int(released & Int64(ringFrames - 1))
        for index in 0..<hop { out[index] = raw[start + index] }
        if let gain, let offset = offset(at: released) {
            let from = released + offset
            let subtracted = reference.withUnsafeMutableBufferPointer { scratch in
                played.copy(from: from, count: hop, into: scratch.baseAddress!)
            }
            if subtracted {
                for index in 0..<hop { out[index] -= gain * reference[index] }
            }
        }
        released += Int64(hop)
        out.withUnsafeBufferPointer { release($0.baseAddress!) }
    }
}

