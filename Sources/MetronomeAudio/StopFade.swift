import MetronomeTiming

/// Where a player's stop ends and the fade into it: at the last frame of a
/// `--duration` track, or 5 ms after a stop was asked for, whichever is
/// first. Both players' audio threads keep one; nothing here allocates.
struct StopFade {
    /// Frames over which a stop fades to silence (5 ms).
    let frames: Int64
    /// The frame the fade ends on; `.max` while no stop is due.
    private(set) var end: Int64

    init(rate: SampleRate, track: ClickTrack) {
        frames = max(1, rate.framesPerSecond / 200)
        if case .playtime = track.length, let end = track.endFrame {
            self.end = end
        } else {
            end = .max
        }
    }

    /// Ends the fade `frames` after `position`, unless it ends sooner.
    mutating func stop(at position: Int64) { end = min(end, position + frames) }

    /// Fades `block`, the track's frames from `start` on, toward `end` and
    /// cuts it there; returns how many of its `count` frames are kept.
    @inline(__always)
    func apply<Output: ClickOutput>(to block: Output, from start: Int64, count: Int) -> Int {
        guard end != .max else { return count }
        let fadeStart = end - frames
        let kept = Int(max(0, min(Int64(count), end - start)))
        var index = 0
        while index < kept {
            let frame = start + Int64(index)
            if frame >= fadeStart { block.scale(frame: index, by: Float(end - frame) / Float(frames)) }
            index += 1
        }
        return kept
    }
}
