import CAllocationCounter
import Testing
@testable import MetronomeTiming
@testable import MetronomeLink
import MetronomeTestSupport

@Suite struct HostTimeFilterTests {
    /// Points of a device running `ppm` fast against Link's clock: frame
    /// `start + i·1024` heard at its true time plus `jitter(i)` µs.
    func feed(_ filter: inout HostTimeFilter, count: Int, startFrame: Int64 = 0, startMicros: Int64 = 1_000_000, ppm: Double,
              jitter: (Int) -> Int64 = { _ in 0 }) {
        for i in 0..<count {
            let frame = startFrame + Int64(i) * 1_024
            filter.add(frame: frame, heardAt: LinkTime(micros: startMicros + truth(Int64(i) * 1_024, ppm: ppm) + jitter(i)))
        }
    }

    /// Microseconds of Link's clock `frames` take at 48 kHz running `ppm` fast, rounded down.
    func truth(_ frames: Int64, ppm: Double) -> Int64 {
        Int64((Double(frames) * 1e6 / (48_000 * (1 + ppm * 1e-6))).rounded(.down))
    }

    @Test func oneLinePointsFitTheirLine() throws {
        var filter = HostTimeFilter(rate: .standard)
        feed(&filter, count: 600, ppm: 80)
        let line = try #require(filter.mapping())
        #expect(filter.count == HostTimeFilter.capacity)
        // 80 ppm fast: 48003.84 frames a Link second, to a thousandth of a frame a second.
        #expect(abs(line.nanoframesPerSecond - 48_003_840_000_000) < 1_000_000)
        for frame in stride(from: Int64(500 * 1_024), through: 700 * 1_024, by: 777) {
            let expected = 1_000_000 + truth(frame, ppm: 80)
            #expect(abs(line.time(ofFrame: frame).micros - expected) <= 1, "frame \(frame)")
        }
    }

    @Test func jitteredReportsAverageOut() throws {
        // Each report is off by up to ±2 ms (a 96-frame period's worth, and more), scattered.
        var filter = HostTimeFilter(rate: .standard)
        var seed: UInt64 = 5
        feed(&filter, count: 512, ppm: -40) { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64(seed >> 33) % 4_001 - 2_000
        }
        let line = try #require(filter.mapping())
        var worst: Int64 = 0
        for i in 0..<512 {
            let frame = Int64(i) * 1_024
            worst = max(worst, abs(line.time(ofFrame: frame).micros - (1_000_000 + truth(frame, ppm: -40))))
        }
        // A single report would be 2000 µs off; the line is within a few tens.
        #expect(worst < 100)
    }

    @Test func tenYearsLaterTheFitIsTheSame() throws {
        // The same points, shifted by ten years of 192 kHz and ten years of Link's clock.
        var now = HostTimeFilter(rate: SampleRate(192_000)!), later = HostTimeFilter(rate: SampleRate(192_000)!)
        var seed: UInt64 = 9
        var jitters: [Int64] = []
        for _ in 0..<700 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            jitters.append(Int64(seed >> 33) % 301 - 150)
        }
        let frames = tenYears * 192_000, micros = tenYears * 1_000_000
        for i in 0..<700 {
            let frame = Int64(i) * 4_096, time = Int64(i) * 21_333 + jitters[i]
            now.add(frame: frame, heardAt: LinkTime(micros: 5_000_000 + time))
            later.add(frame: frames + frame, heardAt: LinkTime(micros: 5_000_000 + micros + time))
        }
        let near = try #require(now.mapping()), far = try #require(later.mapping())
        #expect(far.frame == near.frame + frames)
        #expect(far.nanos == near.nanos + micros * 1_000)
        #expect(far.nanoframesPerSecond == near.nanoframesPerSecond)
    }

    @Test func aPointFarOffTheLineStartsTheFitAgain() throws {
        var filter = HostTimeFilter(rate: .standard)
        feed(&filter, count: 100, ppm: 0)
        // The stream restarted: frame 200000 is heard a second later than the line says.
        let restart = LinkTime(micros: 1_000_000 + truth(200_000, ppm: 0) + 1_000_000)
        filter.add(frame: 200_000, heardAt: restart)
        #expect(filter.count == 1)
        let line = try #require(filter.mapping())
        #expect(line.time(ofFrame: 200_000) == restart)
        #expect(line.nanoframesPerSecond == 48_000_000_000_000)
        // A point within the re-anchoring distance (a period's jitter) is kept.
        filter.add(frame: 201_024, heardAt: LinkTime(micros: restart.micros + truth(1_024, ppm: 0) + 5_000))
        #expect(filter.count == 2)
    }

    @Test func theFitForgetsPointsOlderThanItsCapacity() throws {
        // 512 points of a clock 500 ppm slow, then 512 of one 300 ppm fast (as after re-clocking):
        // the line is the second clock's alone.
        var filter = HostTimeFilter(rate: .standard)
        feed(&filter, count: 512, ppm: -500)
        let end = 1_000_000 + truth(512 * 1_024, ppm: -500)
        feed(&filter, count: 512, startFrame: 512 * 1_024, startMicros: end, ppm: 300)
        let line = try #require(filter.mapping())
        #expect(abs(line.nanoframesPerSecond - 48_014_400_000_000) < 1_000_000)
    }

    @Test func theRateStaysWithinAThousandthOfNominal() throws {
        // Two points that say 1 % fast (no real clock is): the fit is held at 0.1 %.
        var filter = HostTimeFilter(rate: .standard)
        filter.add(frame: 0, heardAt: LinkTime(micros: 0))
        filter.add(frame: 48_480, heardAt: LinkTime(micros: 1_000_000))
        let line = try #require(filter.mapping())
        #expect(line.nanoframesPerSecond == Int64((48_000e9 * 1.001).rounded()))
    }

    @Test func onePointHasTheNominalRate() throws {
        var filter = HostTimeFilter(rate: SampleRate(44_100)!)
        #expect(filter.mapping() == nil)
        filter.add(frame: 77, heardAt: LinkTime(micros: 123_456))
        #expect(filter.mapping() == FrameTimeMapping(frame: 77, heardAt: LinkTime(micros: 123_456), rate: SampleRate(44_100)!))
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func addingAndFittingAllocateNothing() {
        // Another filter first, as every allocation test warms up: an unspecialized build makes the
        // conversions' witness tables on their first use in the process (once, not per point).
        var warm = HostTimeFilter(rate: .standard)
        for i in 0..<3 {
            warm.add(frame: Int64(i) * 256, heardAt: LinkTime(micros: Int64(i) * 5_333))
            _ = warm.mapping()
        }
        var filter = HostTimeFilter(rate: .standard)
        var last: FrameTimeMapping?
        metronome_counting_begin()
        for i in 0..<1_000 {
            filter.add(frame: Int64(i) * 256, heardAt: LinkTime(micros: Int64(i) * 5_333))
            last = filter.mapping()
        }
        let allocations = metronome_counting_end()
        #expect(allocations == 0)
        #expect(last != nil)
    }
}
