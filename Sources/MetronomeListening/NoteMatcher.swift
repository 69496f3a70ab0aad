import MetronomeTiming

/// Matches the notes a player played to the clicks (and subdivisions) they
/// were aiming at: each note to the nearest target, if it lies within half
/// the interval to the neighbouring target on its side; the offset in
/// frames, less the round trip from output to input, is how early
/// (negative) or late it was. A target takes one note; a second is an extra.
package struct NoteMatcher: Sendable {
    /// A click or subdivision a note may be aimed at, in the output's frames.
    package struct Target: Equatable, Sendable, BitwiseCopyable {
        package let frame: Int64
        /// Which click of the take (0 first).
        package let index: Int64
        /// Its place in the bar, 0 for the downbeat.
        package let beatOfBar: Int

        package init(frame: Int64, index: Int64, beatOfBar: Int) {
            self.frame = frame
            self.index = index
            self.beatOfBar = beatOfBar
        }
    }

    package let rate: SampleRate
    /// The frames from a click leaving the output to it coming back through the input.
    package let roundTripFrames: Int64
    /// The targets so far, in order of frame.
    package private(set) var targets: [Target] = []
    /// The notes matched so far, in the order they were played.
    package private(set) var matches: [NoteMatch] = []
    /// Notes that matched no target, or a target already taken.
    package private(set) var extras = 0
    private var taken: Set<Int64> = []

    package init(rate: SampleRate, roundTripFrames: Int64) {
        self.rate = rate
        self.roundTripFrames = roundTripFrames
    }

    /// Adds the next target; targets come in order of frame.
    package mutating func add(_ target: Target) {
        precondition(targets.last.map { $0.frame < target.frame } ?? true, "targets come in order")
        targets.append(target)
    }

    /// Matches a note heard at `heardFrame` (the output's frames, before the
    /// round trip is taken off); returns its match, or nil for an extra.
    @discardableResult
    package mutating func match(heardFrame: Int64) -> NoteMatch? {
        let played = heardFrame - roundTripFrames
        // The first target at or after the note, then the nearer of it and the one before.
        var low = 0, high = targets.count
        while low < high {
            let middle = (low + high) / 2
            if targets[middle].frame < played { low = middle + 1 } else { high = middle }
        }
        // Half the interval to the neighbour on the note's side; at either end of the targets, to the one on the other side.
        func halfInterval(_ index: Int, towards side: Int) -> Int64 {
            let neighbour = targets.indices.contains(index + side) ? index + side : index - side
            guard targets.indices.contains(neighbour) else { return .max }
            return abs(targets[index].frame - targets[neighbour].frame) / 2
        }
        // The earlier first: a note exactly between two clicks is late on the first.
        var candidates: [(target: Target, halfInterval: Int64)] = []
        if low > 0 { candidates.append((targets[low - 1], halfInterval(low - 1, towards: 1))) }
        if low < targets.count { candidates.append((targets[low], halfInterval(low, towards: -1))) }
        guard let best = candidates.min(by: { abs(played - $0.target.frame) < abs(played - $1.target.frame) }),
              abs(played - best.target.frame) <= best.halfInterval,
              !taken.contains(best.target.index) else {
            extras += 1
            return nil
        }
        taken.insert(best.target.index)
        let match = NoteMatch(target: best.target, offsetFrames: played - best.target.frame, rate: rate)
        matches.append(match)
        return match
    }

    /// Targets up to `frame` that no note took: the misses so far.
    package func misses(through frame: Int64) -> Int {
        targets.lazy.filter { $0.frame <= frame && !taken.contains($0.index) }.count
    }
}

/// A note matched to its target, and how far off it was.
package struct NoteMatch: Equatable, Sendable, BitwiseCopyable {
    package let target: NoteMatcher.Target
    /// Frames after the target (negative: early), the round trip taken off.
    package let offsetFrames: Int64
    package let rate: SampleRate

    package init(target: NoteMatcher.Target, offsetFrames: Int64, rate: SampleRate) {
        self.target = target
        self.offsetFrames = offsetFrames
        self.rate = rate
    }

    /// The offset in milliseconds (negative: early).
    package var offsetMilliseconds: Double { Double(offsetFrames) * 1_000 / Double(rate.framesPerSecond) }
}
