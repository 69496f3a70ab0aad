/// How long the metronome plays or how long a rendered file is.
package enum TrackLength: Hashable, Sendable {
    /// Until stopped.
    case endless
    /// A whole number of bars, then the ring of the last sounds.
    case bars(Int64)
    /// Exactly `round(T * R)` frames.
    case playtime(Playtime)
    /// A whole number of beats (a tempo map's, whose bars differ), then the ring of the last sounds.
    case beats(Int64)

    /// Parses `--bars`: a whole number of bars, at least 1.
    package static func parsingBars(_ text: String) throws(TimingError) -> TrackLength {
        guard let bars = Int64(text.trimmingSpaces), bars >= 1, bars <= 100_000_000 else {
            throw .invalid("bars '\(text)' is not allowed: use a whole number of bars from 1, e.g. 16")
        }
        return .bars(bars)
    }
}
