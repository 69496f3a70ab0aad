import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeLink
import MetronomeTestSupport

@Suite struct FrameTimeMappingTests {
    /// A seeded generator, so a failure repeats.
    struct Generator {
        var state: UInt64
        mutating func next(below bound: Int64) -> Int64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int64((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// The defining property, by comparisons of exact products: `frame` is heard
    /// at or after `time` and the frame before it is heard before.
    func isFirstFrame(_ frame: Int64, atOrAfter time: LinkTime, on line: FrameTimeMapping) -> Bool {
        let due = (Int128(time.micros) * 1_000 - Int128(line.nanos)) * Int128(line.nanoframesPerSecond)
        let at = Int128(frame - line.frame) * 1_000_000_000_000_000_000
        let before = Int128(frame - 1 - line.frame) * 1_000_000_000_000_000_000
        return at >= due && before < due
    }

    @Test func aNominalLineCountsFramesAtTheRate() {
        let line = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        #expect(line.firstFrame(atOrAfter: LinkTime(micros: 1_000_000)) == 0)
        // 1 µs is 0.048 frames: the first frame heard after it is frame 1.
        #expect(line.firstFrame(atOrAfter: LinkTime(micros: 1_000_001)) == 1)
        #expect(line.firstFrame(atOrAfter: LinkTime(micros: 999_999)) == 0)
        #expect(line.firstFrame(atOrAfter: LinkTime(micros: 999_979)) == -1)
        #expect(line.firstFrame(atOrAfter: LinkTime(micros: 1_500_000)) == 24_000)
        #expect(line.time(ofFrame: 48_000) == LinkTime(micros: 2_000_000))
        // Frame 1 is heard 20833.33 ns after frame 0: rounded down.
        #expect(line.nanos(ofFrame: 1) == 1_000_020_833)
        #expect(line.time(ofFrame: -1) == LinkTime(micros: 999_979))
    }

    @Test func theFirstFrameIsTheLeastHeardAtOrAfterTheTime() {
        var random = Generator(state: 17)
        for _ in 0..<20_000 {
            // Anchors anywhere in ten years, rates within 0.1 % of any playable one.
            let rate = SampleRate.range.lowerBound + random.next(below: SampleRate.range.upperBound - SampleRate.range.lowerBound + 1)
            let nanoRate = rate * 1_000_000_000 + random.next(below: rate * 2_000_000) - rate * 1_000_000
            let line = FrameTimeMapping(frame: random.next(below: tenYears * rate), nanos: random.next(below: tenYears * 1_000_000_000),
                                        nanoframesPerSecond: nanoRate)
            let time = LinkTime(micros: random.next(below: tenYears * 1_000_000))
            let frame = line.firstFrame(atOrAfter: time)
            #expect(isFirstFrame(frame, atOrAfter: time, on: line), "\(line) \(time)")
            // And the time of that frame is the time asked for or after, by less than a frame.
            let heard = line.nanos(ofFrame: frame)
            #expect(heard >= time.micros * 1_000 && heard <= time.micros * 1_000 + 1_001_000_000 / rate)
        }
    }

    @Test func tenYearsAt192kHzAreExact() {
        // Frame 0 heard at 0 µs, at 192000.123456789 Hz; ten years on, the products pass 10³¹.
        let line = FrameTimeMapping(frame: 0, nanos: 0, nanoframesPerSecond: 192_000_000_000_000 + 123_456_789)
        let time = LinkTime(micros: tenYears * 1_000_000 + 123)
        let frame = line.firstFrame(atOrAfter: time)
        #expect(isFirstFrame(frame, atOrAfter: time, on: line))
        // Ten years of 192 kHz and 0.123456789 frames a second more: ⌈t · rate⌉ by Python's Fraction.
        #expect(frame == 60_715_047_040_024)
        #expect(line.time(ofFrame: frame) >= time && line.time(ofFrame: frame - 1) < time)
    }

    @Test func latencyHearsEveryFrameLater() {
        let line = FrameTimeMapping(frame: 1_000, heardAt: LinkTime(micros: 5_000_000), rate: .standard)
        let late = line.delayed(byNanoseconds: 10_000_000)  // 10 ms: 480 frames
        #expect(late.time(ofFrame: 1_000) == LinkTime(micros: 5_010_000))
        #expect(late.firstFrame(atOrAfter: LinkTime(micros: 5_010_000)) == 1_000)
        #expect(late.firstFrame(atOrAfter: LinkTime(micros: 5_000_000)) == 520)
    }

    @Test func aMonotonicInstantCrossesToLinksClockByTheReadingTakenWithIt() {
        let stamp = MonotonicInstant(nanoseconds: 7_000_000_000)
        let link = LinkTime(micros: 3_000_000)
        // Read together 2.0006 ms after the stamp: the stamp was 2001 µs before Link's reading (nearest).
        #expect(LinkTime(stamp, monotonicNow: MonotonicInstant(nanoseconds: 7_002_000_600), linkNow: link) == LinkTime(micros: 2_997_999))
        #expect(LinkTime(stamp, monotonicNow: MonotonicInstant(nanoseconds: 7_002_000_400), linkNow: link) == LinkTime(micros: 2_998_000))
        #expect(LinkTime(stamp, monotonicNow: stamp, linkNow: link) == link)
        // A stamp after the reading (a device that reports ahead) crosses the same way.
        #expect(LinkTime(stamp, monotonicNow: MonotonicInstant(nanoseconds: 6_999_998_600), linkNow: link) == LinkTime(micros: 3_000_001))
    }
}
