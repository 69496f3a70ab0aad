/// `--polyrhythm A:B`: a second voice of A evenly spaced clicks against every
/// B beats, counted again from the start of each bar.
package struct Polyrhythm: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    package let clicks: Int
    package let beats: Int

    /// Parses `3:2`, `5:4`: 1 to 16 clicks against 1 to the beats of a bar.
    package init(parsing text: String, beatsPerBar: Int) throws(TimingError) {
        self = try Written(parsing: text).fitted(beatsPerBar: beatsPerBar)
    }

    /// A second voice as written (`--polyrhythm`), read as far as it can be
    /// without the meter; its beats are held against a bar once the meter is
    /// known (`fitted(beatsPerBar:)`).
    package struct Written: Sendable, Equatable {
        package let text: String
        /// nil: a part is negative, which is said with the bar's beats.
        let parts: Parts?
        struct Parts: Sendable, Equatable { let clicks: Int, beats: Int }

        package init(parsing text: String) throws(TimingError) {
            self.text = text
            let parts = text.trimmingSpaces.split(separator: ":", omittingEmptySubsequences: false)
            if parts.contains(where: { $0.hasPrefix("-") }) {
                self.parts = nil
                return
            }
            guard parts.count == 2, let clicks = Int(parts[0]), let beats = Int(parts[1]) else {
                throw .invalid("polyrhythm '\(text)' is not of the form CLICKS:BEATS: use e.g. 3:2 for three against two")
            }
            guard (1...16).contains(clicks) else {
                throw .invalid("polyrhythm '\(text)' has \(clicks) clicks: use 1 to 16")
            }
            self.parts = Parts(clicks: clicks, beats: beats)
        }

        /// The second voice in a bar of `beatsPerBar` beats: it spans 1 to that many.
        package func fitted(beatsPerBar: Int) throws(TimingError) -> Polyrhythm {
            guard let parts else {
                throw .invalid("polyrhythm '\(text)' is negative: use 1 to 16 clicks against 1 to \(beatsPerBar) beats, e.g. 3:2")
            }
            guard (1...beatsPerBar).contains(parts.beats) else {
                throw .invalid("polyrhythm '\(text)' spans \(parts.beats) beats but the bar has \(beatsPerBar): use 1 to \(beatsPerBar)")
            }
            return Polyrhythm(clicks: parts.clicks, beats: parts.beats)
        }
    }

    private init(clicks: Int, beats: Int) {
        self.clicks = clicks
        self.beats = beats
    }

    /// How many of its clicks fall in a bar of `beatsPerBar` beats: `ceil(beatsPerBar * A / B)`.
    @inline(__always)
    package func clicksPerBar(beatsPerBar: Int) -> Int64 {
        (Int64(beatsPerBar) * Int64(clicks) + Int64(beats) - 1) / Int64(beats)
    }

    /// Click `u` of a bar sits `u * B / A` beats after the bar starts: tick `u * B` in ticks of `1/A` beat.
    @inline(__always)
    package func tick(ofClick index: Int64) -> Int64 { index * Int64(beats) }

    package var description: String { "\(clicks):\(beats)" }
}
