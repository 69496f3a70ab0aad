import MetronomeTiming

/// What `--calibrate` makes of the round trips it heard: their median, if
/// they agree closely enough for the inspector to take it off its notes.
///
/// The spread is the farthest a round trip lies from the median. Worked in
/// doubled frames, so a median between two round trips stays whole.
package struct Calibration: Equatable, Sendable {
    /// The widest spread kept, in ms: the inspector places notes within a millisecond.
    package static let widestSpreadMilliseconds: Int64 = 1
    /// The fewest round trips a calibration is made of.
    package static let fewestClicks = 3

    package let rate: SampleRate
    /// Twice the median round trip, and twice the spread, in frames.
    package let doubledMedianFrames: Int64
    package let doubledSpreadFrames: Int64
    package let clicks: Int

    /// Nil with fewer than `fewestClicks` round trips.
    package init?(roundTrips: [Int64], rate: SampleRate) {
        guard roundTrips.count >= Self.fewestClicks else { return nil }
        let sorted = roundTrips.sorted()
        let middle = sorted.count / 2
        let doubledMedian = sorted.count % 2 == 1 ? 2 * sorted[middle] : sorted[middle - 1] + sorted[middle]
        self.rate = rate
        doubledMedianFrames = doubledMedian
        doubledSpreadFrames = sorted.map { abs(2 * $0 - doubledMedian) }.max() ?? 0
        clicks = sorted.count
    }

    package var milliseconds: Double { Double(doubledMedianFrames) * 500 / Double(rate.framesPerSecond) }
    package var spreadMilliseconds: Double { Double(doubledSpreadFrames) * 500 / Double(rate.framesPerSecond) }

    /// Whether the spread is within `widestSpreadMilliseconds`, exactly.
    package var isEven: Bool { doubledSpreadFrames * 1_000 <= 2 * Self.widestSpreadMilliseconds * rate.framesPerSecond }

    /// `0.2 ms (±0.1 ms over 16 clicks)`.
    package var figures: String {
        "\(InspectorSummary.tenths(milliseconds)) ms (±\(InspectorSummary.tenths(spreadMilliseconds)) ms over \(clicks) clicks)"
    }
}
