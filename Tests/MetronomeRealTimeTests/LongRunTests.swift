import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// Runs of any length: frames and nanoseconds convert without overflow for
/// years of audio at 192 kHz, and the engine keeps its grid there.
@Suite struct LongRunTests {
    static let tenYears: Int64 = 10 * 31_557_600  // seconds, in Julian years

    /// The conversions at the extremes, against the same formulas in 128-bit arithmetic here.
    @Test func conversionsAreExactAtTheExtremes() {
        func expected(_ value: Int128) -> Int64 {
            value > Int128(Int64.max) ? .max : value < Int128(Int64.min) ? .min : Int64(value)
        }
        let counts: [Int64] = [0, 1, -1, 999_999_999, 9_223_372_037, -9_223_372_037, Self.tenYears * 192_000, Self.tenYears * 1_000_000_000,
                               Int64.max / 192_000 + 1, Int64.max / 1_000_000_000 + 1, Int64.max, Int64.min, Int64.min + 1]
        for rate in SampleRate.common {
            for count in counts {
                #expect(FrameTime.nanoseconds(inFrames: count, at: rate) == expected(Int128(count) * 1_000_000_000 / Int128(rate)),
                        "\(count) frames at \(rate)")
                #expect(FrameTime.frames(inNanoseconds: count, at: rate) == expected(Int128(count) * Int128(rate) / 1_000_000_000),
                        "\(count) ns at \(rate)")
            }
        }
    }

    /// Whole seconds convert exactly both ways, ten years in (where 64-bit products overflowed).
    @Test(arguments: SampleRate.common)
    func wholeSecondsConvertExactlyTenYearsIn(rate: Int64) {
        for seconds: Int64 in [Self.tenYears, Self.tenYears + 1, 53 * 3600, 292 * 31_557_600] {
            #expect(FrameTime.nanoseconds(inFrames: seconds * rate, at: rate) == seconds * 1_000_000_000)
            #expect(FrameTime.frames(inNanoseconds: seconds * 1_000_000_000, at: rate) == seconds * rate)
        }
        // Just short of a frame stays short of it.
        #expect(FrameTime.frames(inNanoseconds: Self.tenYears * 1_000_000_000 - 1, at: rate) == Self.tenYears * rate - 1)
    }

    /// The engine ten years into a track at 192 kHz, on a clock ten years on:
    /// every click on the exact grid, no underrun, no trap.
    @Test func tenYearsInAt192kHzClicksStayOnTheGrid() throws {
        let rate = SampleRate(192_000)!
        let clock = ManualClock()
        clock.advance(nanoseconds: Self.tenYears * 1_000_000_000)
        let device = SimulatedDevice(rate: rate, clock: clock)
        let sounds = impulseSounds(rate: rate)
        let start = Self.tenYears * rate.framesPerSecond
        let track = ClickTrack(schedule: ClickSchedule(tempo: try Tempo(parsing: "137"), rate: rate),
                               beat: sounds.beat, bell: sounds.bell,
                               length: .playtime(Playtime(seconds: Self.tenYears + 3)))
        track.skip(to: start)
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        let began = clock.now()
        playback.run()
        #expect(playback.underruns == 0)
        let schedule = track.schedule
        let first = schedule.firstClick(atOrAfter: start)
        let found = onsets(device.recording)
        #expect(found.count == 7)  // 3 s at 137 bpm
        #expect(found.map { start + $0.frame } == (0..<Int64(found.count)).map { schedule.frame(ofClick: first + $0) })
        #expect(found.map { $0.value < 0 } == (0..<Int64(found.count)).map { schedule.isBell(click: first + $0) })
        // It took the three seconds of real time (and the buffer at the end).
        let elapsed = clock.now().nanoseconds - began.nanoseconds
        #expect(abs(elapsed - 3_000_000_000) < 20_000_000)
        // The picture's position extrapolates ten years on, and any time later, without a trap.
        let sample = playback.position.snapshot()
        #expect(sample.written == (Self.tenYears + 3) * rate.framesPerSecond)
        let later = MonotonicInstant(nanoseconds: sample.at.nanoseconds + 1_000_000)
        #expect(playback.position.heardFrame(at: later) == min(sample.heard + 192, sample.written))
        #expect(playback.position.heardFrame(at: MonotonicInstant(nanoseconds: .max)) == sample.written)
    }

    /// End to end with time sped up 10,000 times (libfaketime, which fakes
    /// CLOCK_MONOTONIC too): 60 hours at 48 kHz pass the 53-hour point where
    /// frames × 10⁹ outgrew 64 bits, in about 22 s. ALSA's null device takes
    /// frames at once and the engine paces itself by the (fast) monotonic
    /// clock; it cannot render 10,000 times real time, so it skips ahead as
    /// after underruns (reported on stderr) and plays on to the end.
    /// Not under a sanitizer: libfaketime preloaded into an instrumented binary hangs it.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer does not mix with libfaketime"))
    func sixtyHoursWithTimeSpedUpEndNormally() throws {
        let faketime = "/usr/bin/faketime"
        try #require(FileManager.default.isExecutableFile(atPath: faketime), "faketime is missing: scripts/setup --test installs it")
        let process = Process()
        // At the lowest priority: it keeps a core busy for the whole run, and the
        // timing tests running beside it come first (it skips ahead all the same).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
        process.arguments = ["-n", "19", faketime, "-f", "+0 x10000", metronomeBinary(), "--bpm", "120", "--device", "null", "--duration", "60h"]
        var environment = ProcessInfo.processInfo.environment
        environment["FAKETIME_DONT_FAKE_MONOTONIC"] = nil
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        // Output to files, so no pipe fills and the wait below stays bounded.
        let directory = TemporaryDirectory()
        let outPath = directory.file("out"), errPath = directory.file("err")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        waitUntil(seconds: 120, every: .milliseconds(50)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let outData = FileManager.default.contents(atPath: outPath) ?? Data()
        let errData = FileManager.default.contents(atPath: errPath) ?? Data()
        let errors = String(decoding: errData, as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(errors)")
        // Nothing on stderr but the count of underruns.
        let lines = errors.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("metronome: ") && $0.contains("underruns on 'null'") }, "\(errors)")
        // The last bar heard was past 53 hours: "bar N  120 bpm 4/4  T.Ts".
        let last = String(decoding: outData, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        let seconds = last.split(separator: " ").last.flatMap { Double($0.dropLast()) } ?? 0
        #expect(seconds > 53 * 3600 && seconds <= 60 * 3600, "last line: \(last)")
    }
}
