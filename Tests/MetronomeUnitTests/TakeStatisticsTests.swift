import Testing
@testable import MetronomeTiming
@testable import MetronomeListening
import MetronomeTestSupport

@Suite struct TakeStatisticsTests {
    let rate = SampleRate.standard

    /// Hits a second apart on beats 0, 1, 2, 3, … off by `offsets` (ms, whole milliseconds: 48 frames each).
    func take(_ offsets: [Int64], meter: Int = 4) -> [NoteMatch] {
        offsets.enumerated().map { index, offset in
            NoteMatch(target: .init(frame: Int64(index) * 48_000, index: Int64(index), beatOfBar: index % meter),
                      offsetFrames: offset * 48, rate: rate)
        }
    }

    @Test func meanSpreadAndSharesOfAKnownTake() throws {
        let statistics = TakeStatistics(matches: take([-10, 0, 10, 20]), misses: 2, extras: 1)
        #expect(statistics.hits == 4 && statistics.misses == 2 && statistics.extras == 1)
        #expect(statistics.mean == 5)
        // Deviations −15, −5, 5, 15: variance 500 / 4.
        #expect(abs(try #require(statistics.standardDeviation) - 125.0.squareRoot()) < 1e-12)
        #expect(statistics.withinTen == 0.75 && statistics.withinTwentyFive == 1)
        // 10 ms later every second, over 3 s.
        #expect(abs(try #require(statistics.drift) - 30) < 1e-9)
        #expect(statistics.span == 3)
    }

    @Test func aSteadyTakeHasNoDrift() throws {
        let statistics = TakeStatistics(matches: take([4, -4, -4, 4, 4, -4, -4, 4]), misses: 0, extras: 0)
        #expect(abs(try #require(statistics.drift)) < 1e-9)
        #expect(statistics.mean == 0 && statistics.standardDeviation == 4)
    }

    @Test func theBreakdownIsByBeatOfTheBar() throws {
        // Beat 1 late by 6 and 8, beat 2 early by 2 and 4, in 2/4.
        let statistics = TakeStatistics(matches: take([6, -2, 8, -4], meter: 2), misses: 0, extras: 0)
        #expect(statistics.byBeat[0] == .init(hits: 2, mean: 7, standardDeviation: 1))
        #expect(statistics.byBeat[1] == .init(hits: 2, mean: -3, standardDeviation: 1))
    }

    @Test func theHistogramCountsFiveMillisecondBinsWithTheOuterOnesOpen() throws {
        let statistics = TakeStatistics(matches: take([-80, -50, -10, -1, 0, 4, 10, 49, 50, 90]), misses: 0, extras: 0)
        var expected = [Int](repeating: 0, count: 20)
        expected[0] = 2   // −80 and −50: −50 and below
        expected[8] = 1   // −10
        expected[9] = 1   // −1
        expected[10] = 2  // 0 and 4
        expected[12] = 1  // 10
        expected[19] = 3  // 49, 50 and 90: 45 and beyond
        #expect(statistics.histogram == expected)
    }

    @Test func noHitsHaveNoFigures() {
        let statistics = TakeStatistics(matches: [], misses: 8, extras: 0)
        #expect(statistics.mean == nil && statistics.standardDeviation == nil && statistics.drift == nil)
        #expect(statistics.histogram.allSatisfy { $0 == 0 })
    }
}
