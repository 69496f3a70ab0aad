/// What a take came to: hits and misses, how early or late on average and
/// how steady, the share close to the click, the drift, by beat of the bar,
/// and the offsets counted into bins for a histogram.
package struct TakeStatistics: Equatable, Sendable {
    package let hits: Int
    /// Clicks no note was matched to.
    package let misses: Int
    /// Notes matched to no click.
    package let extras: Int
    /// Mean offset in ms (negative: rushing); nil without hits.
    package let mean: Double?
    /// Standard deviation of the offsets in ms (of the population); nil without hits.
    package let standardDeviation: Double?
    /// Shares of the hits within ±10 ms and ±25 ms, 0…1; nil without hits.
    package let withinTen: Double?
    package let withinTwentyFive: Double?
    /// How far the offsets moved over the take, in ms: the least-squares line's
    /// change from the first hit to the last; nil with fewer than two hits at different frames.
    package let drift: Double?
    /// Seconds from the first hit's click to the last's.
    package let span: Double
    /// By beat of the bar (0 the downbeat): hits, mean and standard deviation.
    package let byBeat: [Int: BeatStatistics]
    /// Hits counted into 5 ms bins from −50 to +50 ms; the outer bins hold everything beyond.
    package let histogram: [Int]

    package struct BeatStatistics: Equatable, Sendable {
        package let hits: Int
        package let mean: Double
        package let standardDeviation: Double
    }

    /// The width of a histogram bin in ms, and the bins' lower edges: −50 (and below), −45, … +45 (to +50 and beyond).
    package static let binWidth = 5
    package static let binEdges = Array(stride(from: -50, to: 50, by: binWidth))

    package init(matches: [NoteMatch], misses: Int, extras: Int) {
        hits = matches.count
        self.misses = misses
        self.extras = extras
        let offsets = matches.map(\.offsetMilliseconds)
        let (mean, deviation) = Self.meanAndDeviation(offsets)
        self.mean = mean
        standardDeviation = deviation
        withinTen = offsets.isEmpty ? nil : Double(offsets.filter { abs($0) <= 10 }.count) / Double(offsets.count)
        withinTwentyFive = offsets.isEmpty ? nil : Double(offsets.filter { abs($0) <= 25 }.count) / Double(offsets.count)
        let seconds = matches.map { Double($0.target.frame) / Double($0.rate.framesPerSecond) }
        let span = (seconds.max() ?? 0) - (seconds.min() ?? 0)
        self.span = span
        drift = Self.slope(x: seconds, y: offsets).map { $0 * span }
        var beats: [Int: BeatStatistics] = [:]
        for (beat, group) in Dictionary(grouping: matches, by: \.target.beatOfBar) {
            let (mean, deviation) = Self.meanAndDeviation(group.map(\.offsetMilliseconds))
            beats[beat] = BeatStatistics(hits: group.count, mean: mean ?? 0, standardDeviation: deviation ?? 0)
        }
        byBeat = beats
        var bins = [Int](repeating: 0, count: Self.binEdges.count)
        for offset in offsets {
            let bin = Int(((offset + 50) / Double(Self.binWidth)).rounded(.down))
            bins[min(max(bin, 0), bins.count - 1)] += 1
        }
        histogram = bins
    }

    private static func meanAndDeviation(_ values: [Double]) -> (Double?, Double?) {
        guard !values.isEmpty else { return (nil, nil) }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
        return (mean, variance.squareRoot())
    }

    /// The least-squares slope of `y` over `x`; nil when `x` does not vary.
    private static func slope(x: [Double], y: [Double]) -> Double? {
        guard x.count >= 2 else { return nil }
        let meanX = x.reduce(0, +) / Double(x.count), meanY = y.reduce(0, +) / Double(y.count)
        let covariance = zip(x, y).map { ($0 - meanX) * ($1 - meanY) }.reduce(0, +)
        let variance = x.map { ($0 - meanX) * ($0 - meanX) }.reduce(0, +)
        return variance > 0 ? covariance / variance : nil
    }
}
