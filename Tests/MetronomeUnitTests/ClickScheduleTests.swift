import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// The definition, checked without the schedule's own formula: `f` is click
/// `k`'s frame exactly when `f <= k*60R/B + 1/2 < f + 1`, i.e. with
/// `B = m/1000`: `2mf <= 120000kR + m < 2m(f + 1)`, compared in 128 bits.
func isExactFrame(_ frame: Int64, click: Int64, millibpm: Int64, rate: Int64) -> Bool {
    let m = UInt64(millibpm)
    let value = UInt64(click).multipliedFullWidth(by: 120_000 * UInt64(rate))
    let (valueLow, carry) = value.low.addingReportingOverflow(m)
    let valueHigh = value.high + (carry ? 1 : 0)
    let lower = UInt64(frame).multipliedFullWidth(by: 2 * m)
    let upper = UInt64(frame + 1).multipliedFullWidth(by: 2 * m)
    let atLeastLower = (valueHigh, valueLow) >= (lower.high, lower.low)
    let belowUpper = (valueHigh, valueLow) < (upper.high, upper.low)
    return atLeastLower && belowUpper
}

@Suite struct ClickScheduleTests {
    func schedule(_ bpm: String, rate: Int64 = 48_000, meter: Meter = .common) throws -> ClickSchedule {
        ClickSchedule(tempo: try Tempo(parsing: bpm), meter: meter, rate: try #require(SampleRate(rate)))
    }

    @Test(arguments: ["96", "160", "224"])
    func clickFramesAreExactAtTieTempi(bpm: String) throws {
        // At 44.1 kHz every odd beat of these tempi falls exactly on a half frame.
        let schedule = try schedule(bpm, rate: 44_100)
        let interval2 = 2 * 60 * 44_100 / Int64(bpm)!  // twice the interval: an odd integer
        #expect(interval2 % 2 == 1)
        for click in Int64(0)..<20_000 {
            let frame = schedule.frame(ofClick: click)
            #expect(isExactFrame(frame, click: click, millibpm: schedule.tempo.millibeatsPerMinute, rate: 44_100))
            // A half frame rounds up: k*interval + 1/2 for odd k.
            #expect(frame == (click * interval2 + 1) / 2)
        }
    }

    @Test func aDoubleFormulaMissesTiesTheScheduleGetsRight() throws {
        // The reason for integer arithmetic: (k * (60/B) * R).rounded() goes
        // wrong on some ties at 224 bpm and 44.1 kHz, the exact schedule never.
        let schedule = try schedule("224", rate: 44_100)
        var doubleMisses = 0
        for click in Int64(0)..<20_000 {
            let product: Double = Double(click) * (60.0 / 224.0) * 44_100
            let double = Int64(product.rounded(.toNearestOrAwayFromZero))
            if double != schedule.frame(ofClick: click) { doubleMisses += 1 }
        }
        #expect(doubleMisses > 0)
    }

    @Test(arguments: ["92.5", "137.125", "33.333", "999.999", "1.001", "120.5"])
    func decimalTempiAreExact(bpm: String) throws {
        for rate in SampleRate.common {
            let schedule = try schedule(bpm, rate: rate)
            for click in stride(from: Int64(0), to: 5_000, by: 7) {
                #expect(isExactFrame(schedule.frame(ofClick: click), click: click,
                                     millibpm: schedule.tempo.millibeatsPerMinute, rate: rate))
            }
        }
    }

    @Test(arguments: SampleRate.common)
    func extremesOfTempoAtEveryRate(rate: Int64) throws {
        let slowest = try schedule("1", rate: rate)
        #expect(slowest.frame(ofClick: 1) == 60 * rate)
        #expect(slowest.frame(ofClick: 1_440) == 86_400 * rate)
        let fastest = try schedule("1000", rate: rate)
        // 1000 bpm is a click every 60 ms: 3/50 of a second.
        for click in Int64(0)..<2_000 {
            #expect(isExactFrame(fastest.frame(ofClick: click), click: click, millibpm: 1_000_000, rate: rate))
        }
    }

    @Test(arguments: ["1000", "137.137", "97.3", "60"])
    func twentyFourHoursLaterTheGridIsStillExact(bpm: String) throws {
        for rate in [Int64(44_100), 48_000, 192_000] {
            let schedule = try schedule(bpm, rate: rate)
            let clicksInADay = schedule.tempo.millibeatsPerMinute * 1_440 / 1_000
            let shortest = schedule.shortestInterval
            var previous = schedule.frame(ofClick: clicksInADay - 1_000)
            for click in (clicksInADay - 999)...(clicksInADay + 10) {
                let frame = schedule.frame(ofClick: click)
                #expect(isExactFrame(frame, click: click, millibpm: schedule.tempo.millibeatsPerMinute, rate: rate))
                // Intervals never drift: each is the floor or the ceiling of the exact one.
                #expect(frame - previous == shortest || frame - previous == shortest + 1)
                previous = frame
            }
        }
    }

    @Test func aDayAtSixtyBpmEndsOnTheExactSecond() throws {
        let schedule = try schedule("60", rate: 48_000)
        #expect(schedule.frame(ofClick: 86_400) == 86_400 * 48_000)
    }

    @Test(arguments: ["96", "137.125", "1000", "1"])
    func firstClickAtOrAfterAFrameMatchesAScan(bpm: String) throws {
        let schedule = try schedule(bpm, rate: 44_100)
        var click: Int64 = 0
        let frames: [Int64] = Array(-3...3) + (0..<300).map { Int64($0) * 9_973 } + [schedule.frame(ofClick: 77), schedule.frame(ofClick: 77) + 1]
        for frame in frames.sorted() {
            while schedule.frame(ofClick: click) < frame { click += 1 }
            // The scan's answer is the first click at or after the frame.
            var first = click
            while first > 0, schedule.frame(ofClick: first - 1) >= frame { first -= 1 }
            #expect(schedule.firstClick(atOrAfter: frame) == first, "frame \(frame)")
        }
    }

    @Test func theBellIsTheFirstBeatOfEachBar() throws {
        let waltz = try schedule("90", meter: Meter(parsing: "3/4"))
        #expect((0..<9).map { waltz.isBell(click: Int64($0)) } == [true, false, false, true, false, false, true, false, false])
        let common = try schedule("90")
        #expect(common.frame(ofBar: 2) == common.frame(ofClick: 8))
    }
}
