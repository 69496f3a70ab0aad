import Glibc
import MetronomeRender

/// `--report FILE.json`: the take's summary as one JSON object, written to a
/// temporary file made before the take and renamed into place whole after it.
package final class InspectorReport {
    package static func json(_ statistics: TakeStatistics) -> String {
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "null" }
        var fields = [
            "\"hits\":\(statistics.hits)", "\"misses\":\(statistics.misses)", "\"extras\":\(statistics.extras)",
            "\"meanMs\":\(number(statistics.mean))", "\"standardDeviationMs\":\(number(statistics.standardDeviation))",
            "\"withinTen\":\(number(statistics.withinTen))", "\"withinTwentyFive\":\(number(statistics.withinTwentyFive))",
            "\"driftMs\":\(number(statistics.drift))", "\"spanSeconds\":\(statistics.span)",
        ]
        let beats = statistics.byBeat.keys.sorted().map { beat in
            let entry = statistics.byBeat[beat]!
            return "{\"beat\":\(beat + 1),\"hits\":\(entry.hits),\"meanMs\":\(entry.mean),\"standardDeviationMs\":\(entry.standardDeviation)}"
        }
        fields.append("\"byBeat\":[\(beats.joined(separator: ","))]")
        let bins = zip(TakeStatistics.binEdges, statistics.histogram).map { "{\"fromMs\":\($0),\"count\":\($1)}" }
        fields.append("\"histogram\":[\(bins.joined(separator: ","))]")
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    package let path: String
    private let file: TemporaryFile

    /// Checks `path` as `--output` is checked and creates the file's temporary
    /// name, before the take: a report that cannot be written loses no take.
    package init(path: String, force: Bool) throws(RenderError) {
        try OutputTarget(path: path).checkReplaceable(force: force)
        file = try TemporaryFile(beside: path)
        self.path = path
    }

    /// Writes the summary and renames it into place.
    package func write(_ statistics: TakeStatistics) throws(RenderError) {
        try file.write(Array(Self.json(statistics).utf8), naming: path)
        try file.commit(as: path)
    }
}
