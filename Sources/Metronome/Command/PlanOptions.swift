/// The raw values of the options that plan the tempo: a tempo map, or the speed trainer.
public struct PlanOptions: Sendable {
    public var tempoMap: String?
    public var startAt: String?
    public var loop = false
    public var step: String?
    public var until: String?

    public init(tempoMap: String? = nil, startAt: String? = nil, loop: Bool = false, step: String? = nil, until: String? = nil) {
        self.tempoMap = tempoMap
        self.startAt = startAt
        self.loop = loop
        self.step = step
        self.until = until
    }

    /// The map, read and checked (exit 65 with `file:line:column:` when malformed), or nil.
    func readMap(bpm: String?, meter: String?, pattern: String?) throws(MetronomeError) -> TempoMap? {
        guard let tempoMap else {
            if startAt != nil || loop { throw .usage("--start-at and --loop are for a --tempo-map") }
            return nil
        }
        guard !tempoMap.isEmpty else { throw .usage("--tempo-map needs a file name") }
        guard bpm == nil, meter == nil, pattern == nil, step == nil, until == nil else {
            throw .usage("--tempo-map sets the tempo, meter and pattern of every bar: drop --bpm, --meter, --pattern, --step and --until")
        }
        return try TempoMap(contentsOf: tempoMap)
    }

    func source(map: TempoMap?, tempo: Tempo, meter: Meter) throws(MetronomeError) -> TempoPlan.Source? {
        if let map, let tempoMap {
            var first = 0
            if let startAt {
                guard let index = map.entry(labelled: startAt) else {
                    let labels = map.entries.compactMap(\.label)
                    // A few labels, not a line as long as the map.
                    let shown = labels.prefix(5).joined(separator: ", ")
                    let known = labels.isEmpty ? "it has no labels"
                        : labels.count <= 5 ? "its labels are " + shown
                        : "its labels are \(shown) and \(labels.count - 5) more"
                    throw .usage("--start-at '\(startAt)': no entry of '\(tempoMap)' has that label; \(known)")
                }
                first = index
            }
            return .map(map, first: first, loops: loop)
        }
        switch (step, until) {
        case (nil, nil):
            return nil
        case (.some, nil), (nil, .some):
            throw .usage("the speed trainer needs both --step S/M and --until T, e.g. --step 5/4 --until 140")
        case (.some(let step), .some(let until)):
            let parts = step.trimmingSpaces.split(separator: "/", omittingEmptySubsequences: false)
            let text = parts.first.map(String.init) ?? ""
            let negative = text.hasPrefix("-")
            guard parts.count == 2, let milli = ExactDecimal.parse(String(text.dropFirst(negative ? 1 : (text.hasPrefix("+") ? 1 : 0))),
                                                                   places: 3, in: 1...999_000),
                  let bars = Int64(parts[1]), (1...10_000).contains(bars) else {
                throw .usage("step '\(step)' is not S/M: S bpm (negative slows down) every M bars, e.g. 5/4 or -2.5/8")
            }
            let target = try Tempo(parsing: until)
            guard target != tempo else { throw .usage("--until \(until) is the starting tempo: nothing to train") }
            guard (target > tempo) != negative else {
                throw .usage("--step \(step) moves away from --until \(until): use a \(negative ? "positive" : "negative") step to go from \(tempo) to \(target)")
            }
            return .trainer(start: tempo, step: negative ? -milli : milli, barsPerStep: bars, until: target, meter: meter)
        }
    }
}
