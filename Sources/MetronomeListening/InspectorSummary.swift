import MetronomePendulum

/// The practice inspector's summary of a take as lines of text: hits and
/// misses, the mean offset (rushing or dragging), its spread, the share close
/// to the click, the drift, a line per beat of the bar, and a histogram drawn
/// with `#` (one a hit, or scaled to `histogramWidth` when a bin holds more).
package enum InspectorSummary {
    package static let histogramWidth = 40

    package static func lines(_ statistics: TakeStatistics) -> [String] {
        let clicks = statistics.hits + statistics.misses
        var lines = ["hits: \(statistics.hits) of \(clicks) clicks (\(statistics.misses) missed, \(statistics.extras) extra)"]
        guard let mean = statistics.mean, let deviation = statistics.standardDeviation,
              let ten = statistics.withinTen, let twentyFive = statistics.withinTwentyFive else {
            return lines + ["no notes heard"]
        }
        let tendency = abs(mean) < 1 ? "on the click" : mean < 0 ? "rushing" : "dragging"
        lines.append("mean offset: \(milliseconds(mean)) (\(tendency))")
        lines.append("standard deviation: \(tenths(deviation)) ms")
        lines.append("within ±10 ms: \(percent(ten)), within ±25 ms: \(percent(twentyFive))")
        if let drift = statistics.drift {
            lines.append("drift: \(milliseconds(drift)) over \(tenths(statistics.span)) s")
        }
        lines.append("by beat:")
        for beat in statistics.byBeat.keys.sorted() {
            let entry = statistics.byBeat[beat]!
            lines.append("  \(beat + 1): \(milliseconds(entry.mean)) ±\(tenths(entry.standardDeviation)) ms (\(entry.hits) hits)")
        }
        lines.append("histogram (ms, early to late):")
        let largest = statistics.histogram.max() ?? 0
        for (edge, count) in zip(TakeStatistics.binEdges, statistics.histogram) {
            let bar = largest <= histogramWidth ? count : (count * histogramWidth + largest - 1) / largest
            let label = edge == TakeStatistics.binEdges.first ? "   ≤\(edge + TakeStatistics.binWidth)"
                : edge == TakeStatistics.binEdges.last ? "   ≥\(edge)" : "\(edge)…\(edge + TakeStatistics.binWidth)"
            let padded = String(repeating: " ", count: max(0, 8 - label.count)) + label
            lines.append("\(padded) |\(String(repeating: "#", count: bar))\(count > 0 ? " \(count)" : "")")
        }
        return lines
    }

    /// `+3.4 ms`, `-0.7 ms`, `0.0 ms`.
    package static func milliseconds(_ value: Double) -> String { PracticeReadout.signedTenths(value) + " ms" }

    /// One decimal, rounded half away from zero: `3.4`, `-0.7`.
    package static func tenths(_ value: Double) -> String { PracticeReadout.tenths(value) }

    static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))%" }
}
