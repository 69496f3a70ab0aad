import MetronomeTiming

/// The labels of a tempo map's entries, at the bars (from 0) of a run where
/// each entry starts: what an exported MIDI file marks (FF 06).
package struct TempoMapMarkers: Sendable {
    /// Each labelled entry's first bar, counted from the run's first entry, in order.
    private let starts: [(bar: Int64, label: String)]
    /// The bars of one pass through the entries.
    private let length: Int64
    private let loops: Bool

    package static let none = TempoMapMarkers(starts: [], length: 0, loops: false)

    private init(starts: [(bar: Int64, label: String)], length: Int64, loops: Bool) {
        self.starts = starts
        self.length = length
        self.loops = loops
    }

    /// The markers of a run of `source`; none for the speed trainer or one tempo.
    package init(_ source: TempoPlan.Source?) {
        guard case .map(let map, let first, let loops) = source else {
            self = .none
            return
        }
        var starts: [(Int64, String)] = []
        var bar: Int64 = 0
        for entry in map.entries[first...] {
            if let label = entry.label { starts.append((bar, label)) }
            bar += entry.bars
        }
        self.init(starts: starts, length: bar, loops: loops)
    }

    /// The label of the entry that starts at `bar`, if one does and it has one.
    package func label(atBar bar: Int64) -> String? {
        guard bar >= 0, length > 0, bar < length || loops else { return nil }
        let inPass = bar % length
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle].bar < inPass { low = middle + 1 } else { high = middle }
        }
        return low < starts.count && starts[low].bar == inPass ? starts[low].label : nil
    }
}
