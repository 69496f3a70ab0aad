import Glibc

/// `--report FILE.json`: the take's summary as one JSON object, written to a
/// temporary file and renamed into place whole.
public enum InspectorReport {
    public static func json(_ statistics: TakeStatistics) -> String {
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

    public static func write(_ statistics: TakeStatistics, to path: String) throws(MetronomeError) {
        let bytes = Array(json(statistics).utf8)
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MetronomeError(.cannotCreate, "cannot create report '\(path)': \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let closed = close(descriptor)
        guard written == bytes.count, closed == 0, rename(temporary, path) == 0 else {
            let error = MetronomeError(.ioError, "cannot write report '\(path)': \(String(cString: strerror(errno)))")
            unlink(temporary)
            throw error
        }
    }
}
