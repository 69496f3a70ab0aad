import Foundation
import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The real ALSA path on ALSA's `null` device, which every alsa-lib has: it
/// swallows frames instantly, so it also shows the engine pacing itself.
@Suite struct NullDeviceTests {
    @Test func theAudioLoopAllocatesNothingAndKeepsRealTimeOnAFastDevice() throws {
        let device = try PCMDevice(name: "null", rate: .standard, periodFrames: 256, bufferFrames: 512)
        let sounds = try SoundLibrary.load(beat: nil, bell: nil, rate: device.rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 300)!, rate: device.rate),
                               beat: sounds.beat, bell: sounds.bell, length: .playtime(Playtime(nanoseconds: 1_000_000_000)!))
        let playback = LivePlayback(track: track, sink: device)
        let clock = MonotonicClock()
        let start = clock.now()
        metronome_counting_begin()
        playback.run()
        let allocations = metronome_counting_end()
        let elapsed = clock.now().nanoseconds - start.nanoseconds
        #expect(allocations == 0)
        #expect(track.position == 48_000)
        // Paced by the monotonic clock: a second of audio took (nearly) a second, not a moment.
        #expect(elapsed >= 950_000_000)
        #expect(playback.underruns == 0 && playback.failure == nil)
    }
}

/// Devices that do not keep time, through the built binary: ALSA `null` and
/// the `file` plugin take audio at once; the run still lasts its real time at normal CPU.
@Suite(.serialized) struct FastDeviceTests {
    @Test(arguments: ["null", "tofile"])
    func aDeviceThatDoesNotKeepTimeIsPacedByTheClockAtLowCPU(device: String) throws {
        let home = TemporaryDirectory()
        let captured = home.file("captured.raw")
        try """
            pcm.tofile {
                type file
                slave.pcm null
                file "\(captured)"
                format raw
            }
            """.write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)
        let rate = SampleRate.standard
        let (beat, bell) = try writeImpulseSoundFiles(in: home)
        var usage = rusage()
        let clock = MonotonicClock()
        let start = clock.now()
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        let status = spawnAndWait(metronomeBinary(), ["--device", device, "--bpm", "240", "--duration", "3", "--no-pendulum", "--quiet",
                                                      "--beat-sound", beat, "--bell-sound", bell], environment: environment, usage: &usage)
        let wall = Double(clock.now().nanoseconds - start.nanoseconds) / 1e9
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        #expect(status == 0)
        #expect(wall >= 2.9, "3 s of audio took \(wall) s")
        // Start-up (loading sounds, opening ALSA) included: well under a tenth of a core.
        // (A sanitized build, which runs several times slower, is held to its timing only.)
        if metronome_counting_available() != 0 { #expect(cpu / wall < 0.1, "CPU \(cpu) s over \(wall) s") }
        guard device == "tofile" else { return }
        // The file holds what was played: 3 s of float samples with every click on its frame.
        let data = try #require(FileManager.default.contents(atPath: captured))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count >= 3 * 48_000)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 240)!, rate: rate)
        #expect(onsets(samples).map(\.frame) == (0..<12).map { schedule.frame(ofClick: $0) })
    }
}
