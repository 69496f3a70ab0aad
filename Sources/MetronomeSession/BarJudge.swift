import MetronomeTiming
import MetronomeAudio
import MetronomeListening

/// Judges each bar the player played, for the adaptive trainer: the clicks the
/// track started are the targets (as the inspector takes them), the notes the
/// inspector matched say how far off each was, and a bar is judged once the
/// inspector has heard past the first click after it, when no note still to
/// come can be aimed at one of its clicks. Pure: no clock, no device.
struct BarJudge {
    /// A bar judged: its number (from 0), its first click and how it was played.
    struct Judgement: Equatable {
        let bar: Int64
        let firstClick: Int64
        let verdict: AdaptiveTrainer.Verdict
    }

    private struct Target {
        let frame: Int64
        let click: Int64
        let bar: Int64
        let beatInBar: Int
        /// The note's offset in frames, once one was matched.
        var offset: Int64?
    }

    let rule: AdaptiveTrainer.Rule
    let rate: SampleRate
    /// Targets not yet judged, in order of frame.
    private var targets: [Target] = []
    private var lastFrame: Int64?

    init(rule: AdaptiveTrainer.Rule, rate: SampleRate) {
        self.rule = rule
        self.rate = rate
    }

    /// Clicks the track started, as the inspector received them: each a target.
    mutating func receive(clicks: [StartedClick]) {
        for click in clicks where lastFrame.map({ click.frame > $0 }) ?? true {
            targets.append(Target(frame: click.frame, click: click.click, bar: click.bar, beatInBar: Int(click.beatInBar)))
            lastFrame = click.frame
        }
    }

    /// A note the inspector matched to the click at `match.target.frame`.
    mutating func heard(_ match: NoteMatch) {
        var low = 0, high = targets.count
        while low < high {
            let middle = (low + high) / 2
            if targets[middle].frame < match.target.frame { low = middle + 1 } else { high = middle }
        }
        guard low < targets.count, targets[low].frame == match.target.frame else { return }
        targets[low].offset = match.offsetFrames
    }

    /// The bars whose every note is in, now that every note up to output frame `through`
    /// is: those followed by a click at or before it. The count-in's bars are not judged.
    mutating func judged(through: Int64) -> [Judgement] {
        var judgements: [Judgement] = []
        var start = 0
        while start < targets.count {
            let bar = targets[start].bar
            var end = start
            while end < targets.count, targets[end].bar == bar { end += 1 }
            // The bar's last note may still come until the first click after it is heard.
            guard end < targets.count, targets[end].frame <= through else { break }
            if bar >= 0 { judgements.append(Judgement(bar: bar, firstClick: targets[start].click, verdict: verdict(targets[start..<end]))) }
            start = end
        }
        targets.removeFirst(start)
        return judgements
    }

    /// Tight when every click had a note within the tolerance; else the first that had none, or was off.
    private func verdict(_ bar: ArraySlice<Target>) -> AdaptiveTrainer.Verdict {
        var worst: Int64 = 0
        for target in bar {
            guard let offset = target.offset else { return .missed(beatInBar: target.beatInBar) }
            guard rule.isTight(offsetFrames: offset, rate: rate) else { return .off(beatInBar: target.beatInBar, offsetFrames: offset) }
            if offset.magnitude > worst.magnitude { worst = offset }
        }
        return .tight(worstFrames: worst)
    }
}
