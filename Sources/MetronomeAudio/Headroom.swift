import MetronomeTiming

/// The gain that keeps the sum of overlapping clicks at or below full scale.
///
/// At any instant the j-th most recent click (j = 0, 1, …) started at least
/// `j * d` frames ago (`d` the shortest interval between the main voice's
/// clicks, subdivisions included), and a sound that started `a` frames ago adds
/// at most its largest absolute sample from `a` on (its decay envelope). The
/// loudest envelope summed at `0, d, 2d, …` bounds the mix's peak whatever the
/// clicks' phase; the gain scales that bound to 1. It changes only with the
/// tempo or the volume, so it never pumps, and is 1 at ordinary tempi. A
/// polyrhythm's second voice can sound with any click, so its bound is added.
package struct Headroom: Sendable {
    /// Each sound's decay envelope, made once.
    private let envelopes: [[Float]]
    private let polyrhythmEnvelope: [Float]?
    private let rhythm: Rhythm

    /// `sounds`: the main voice's (beat, bell, subdivision).
    package init(sounds: [[Float]], rhythm: Rhythm = .plain, polyrhythmSound: [Float]? = nil) {
        envelopes = sounds.map(Self.decayEnvelope)
        polyrhythmEnvelope = rhythm.polyrhythm == nil ? nil : polyrhythmSound.map(Self.decayEnvelope)
        self.rhythm = rhythm
    }

    /// The gain for every click at the tempo of `schedule`: `volume / max(1, bound)`.
    package func gain(for schedule: ClickSchedule, volume: Float) -> Float {
        let beat = schedule.shortestInterval
        let mainGap = beat * Int64(rhythm.subdivision.shortestGapThousandths) / 1000
        var bound = Self.peakBound(envelopes, shortestInterval: mainGap)
        if let polyrhythm = rhythm.polyrhythm, let polyrhythmEnvelope {
            let gap = beat * Int64(polyrhythm.beats) / Int64(polyrhythm.clicks)
            bound += Self.peakBound([polyrhythmEnvelope], shortestInterval: gap)
        }
        return bound > 1 ? volume / bound : volume
    }

    /// `volume / max(1, bound)`.
    package static func gain(for sounds: [[Float]], shortestInterval: Int64, volume: Float) -> Float {
        Headroom(sounds: sounds).gain(shortestInterval: shortestInterval, volume: volume)
    }

    /// The largest sum of overlapping clicks, as described above.
    package static func peakBound(for sounds: [[Float]], shortestInterval: Int64) -> Float {
        Headroom(sounds: sounds).peakBound(shortestInterval: shortestInterval)
    }

    /// `volume / max(1, bound)` for clicks at least `shortestInterval` frames apart.
    package func gain(shortestInterval: Int64, volume: Float) -> Float {
        let bound = peakBound(shortestInterval: shortestInterval)
        return bound > 1 ? volume / bound : volume
    }

    package func peakBound(shortestInterval: Int64) -> Float {
        Self.peakBound(envelopes, shortestInterval: shortestInterval)
    }

    private static func peakBound(_ envelopes: [[Float]], shortestInterval: Int64) -> Float {
        let step = max(Int(shortestInterval), 1)
        let longest = envelopes.map(\.count).max() ?? 0
        var bound: Float = 0
        var age = 0
        while age < longest {
            var loudest: Float = 0
            for envelope in envelopes where age < envelope.count {
                loudest = max(loudest, envelope[age])
            }
            bound += loudest
            age += step
        }
        return bound
    }

    /// `envelope[a]` is the largest absolute sample at or after `a`.
    static func decayEnvelope(_ samples: [Float]) -> [Float] {
        var envelope = [Float](repeating: 0, count: samples.count)
        var running: Float = 0
        for index in samples.indices.reversed() {
            running = max(running, abs(samples[index]))
            envelope[index] = running
        }
        return envelope
    }
}
