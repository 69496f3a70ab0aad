/// The passages the audio thread has played or is about to play, as the
/// picture and the status line see them: where each click falls across
/// tempo changes, taps, meter changes and pauses.
package struct PassageHistory: Sendable {
    /// In the order they took over; kept short (the picture never looks far back).
    package private(set) var passages: [Passage]
    static let kept = 16

    package init(_ first: Passage) {
        passages = [first]
    }

    /// A passage from `passage.firstClick` on. It replaces the ones it
    /// overrides; a resume keeps the pause before it, so the rod can rest.
    package mutating func append(_ passage: Passage) {
        let resumed = { (old: Passage) in old.paused && !passage.paused }
        passages.removeAll { $0.firstClick > passage.firstClick || $0.firstClick == passage.firstClick && !resumed($0) }
        passages.append(passage)
        if passages.count > Self.kept { passages.removeFirst(passages.count - Self.kept) }
    }

    /// The passage playing (or paused) at `frame`.
    package func passage(atFrame frame: Int64) -> Passage {
        passages.last { $0.startFrame <= frame } ?? passages[0]
    }

    /// The passage that plays click `k` (a paused one: the click waits for the resume).
    package func passage(forClick click: Int64) -> Passage {
        passages.last { $0.firstClick <= click } ?? passages[0]
    }

    /// The frame of click `k`; while it waits in a pause, where it was due.
    package func frame(ofClick click: Int64) -> Int64 {
        passage(forClick: click).frame(ofClick: click)
    }

    /// The last click at or before `frame`; -1 before the first.
    package func lastClick(atOrBefore frame: Int64) -> Int64 {
        let passage = passage(atFrame: frame)
        if passage.paused { return passage.firstClick - 1 }
        return max(passage.firstClick(atOrAfter: frame + 1), passage.firstClick) - 1
    }

    /// Where the rod reaches the extreme of click `k`: its frame, or, after a
    /// pause, where it was due if that comes first (the rod rests until the click).
    package func arrival(ofClick click: Int64) -> Int64 {
        guard let index = passages.lastIndex(where: { $0.firstClick <= click }) else { return frame(ofClick: click) }
        let actual = passages[index].frame(ofClick: click)
        if index > 0, passages[index - 1].paused, passages[index - 1].firstClick == click {
            return min(actual, passages[index - 1].frame(ofClick: click))
        }
        return actual
    }
}
