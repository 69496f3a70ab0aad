import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeListening
import MetronomeTestSupport

/// Every chunk popped from `capture`'s log until `frames` were taken or 10 s passed.
private func collect(_ capture: LiveCapture, frames: Int64) -> [CapturedChunk] {
    var chunks: [CapturedChunk] = []
    var taken: Int64 = 0
    // Polling the log, not synchronising: the deadline bounds it.
    waitUntil(seconds: 10, every: .milliseconds(1)) {
        while taken < frames, let chunk = capture.log.pop() {
            chunks.append(chunk)
            taken += Int64(chunk.count)
        }
        return taken >= frames || capture.isFinished
    }
    return chunks
}

@Suite struct CaptureDeviceTests {
    /// ALSA's `null` counts every frame read and writes none of them: they are silence, whatever the buffer held.
    @Test func framesADeviceNeverWroteAreSilence() throws {
        let device = try CaptureDevice(name: "null", rate: .standard, periodFrames: 1024)
        try #require(device.start() == nil)
        let mono = UnsafeMutablePointer<Float>.allocate(capacity: device.periodFrames)
        defer { mono.deallocate() }
        for _ in 0..<8 {
            mono.initialize(repeating: .nan, count: device.periodFrames)
            guard case .read(let frames) = device.read(into: mono, frames: device.periodFrames) else {
                Issue.record("the null device did not read")
                return
            }
            #expect((0..<frames).allSatisfy { mono[$0] == 0 })
        }
    }

    @Test func aMissingCaptureDeviceIsAnALSAErrorWhileOpening() {
        #expect {
            _ = try CaptureDevice(name: "no-such-capture-device", rate: .standard)
        } throws: { error in
            (error as? ALSAError)?.call == "snd_pcm_open"
        }
    }

    /// ALSA's `null` device gives silence as fast as it is read: a second of it
    /// through the capture loop, on this thread, counted for allocations.
    @Test func theCaptureLoopAllocatesNothingAndNumbersEveryFrame() throws {
        let device = try CaptureDevice(name: "null", rate: .standard, periodFrames: 256, bufferFrames: 1024)
        #expect(device.rate == .standard)
        let capture = LiveCapture(device: device, logCapacity: 1_024)
        metronome_counting_begin()
        capture.run(limit: 48_000)
        let allocations = metronome_counting_end()
        #expect(metronome_counting_available() == 0 || allocations == 0)
        #expect(capture.failure == nil && capture.overruns == 0 && capture.droppedChunks == 0)
        #expect(capture.framesRead == 48_000)
        let chunks = capture.log.drain()
        var next: Int64 = 0
        for chunk in chunks {
            #expect(chunk.firstFrame == next)
            #expect(chunk.count > 0 && chunk.count <= CapturedChunk.capacity)
            next += Int64(chunk.count)
        }
        #expect(next == 48_000)
    }

    @Test func aFullLogDropsChunksInsteadOfWaiting() throws {
        let device = try CaptureDevice(name: "null", rate: .standard, periodFrames: 256, bufferFrames: 1024)
        let capture = LiveCapture(device: device, logCapacity: 8)
        capture.run(limit: 2_560)
        // 40 chunks read, 7 fit in a ring of 8.
        #expect(capture.log.drain().count == 7)
        #expect(capture.droppedChunks == 33)
    }
}

/// The real ALSA capture path: the jack plugin's `capture_ports` on
/// `jack_thru`'s output, fed by a `PCMDevice` on its input, in this process.
/// Run by `RealTimeLoopbackTests` (serialized), not as a suite of its own: every `JackLoopback`
/// of a process names its server after the process, so loopbacks must not overlap.
struct CaptureLoopbackTests {
    /// ALSA devices on the JACK server `server`, for this process: `inspectorOut` and
    /// `inspectorIn` on jack_thru, `drummerOut` and `drummerIn` on the drummer's ports. One file
    /// for the whole run: alsa-lib keeps its configuration once read, and a changed path fails to open.
    static func useTestDevices(server: String) {
        setenv("JACK_DEFAULT_SERVER", server, 1)
        setenv("JACK_NO_AUDIO_RESERVATION", "1", 1)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:\(configuration)", 1)
    }

    static let configuration: String = {
        let path = NSTemporaryDirectory() + "metronome-capture-devices-\(getpid()).conf"
        try? """
            pcm.inspectorOut { type jack
                playback_ports { 0 jack_thru:input_1 } }
            pcm.inspectorIn { type jack
                capture_ports { 0 jack_thru:output_1 } }
            pcm.drummerOut { type jack
                playback_ports { 0 jack_drummer:clicks } }
            pcm.drummerIn { type jack
                capture_ports { 0 jack_drummer:hits } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    /// One JACK server for both checks: libjack serves one server a process (its shared memory
    /// registry is named after the first), so a second server in this process cannot be reached.
    func captureThroughTheJackPlugin() throws {
        try #require(JackLoopback.isInstalled && JackLoopback.canBuildRecorder && TerminalTests.tmuxInstalled,
                     "jackd2, libasound2-plugins, JACK's headers, clang and tmux are needed: run scripts/setup --test")
        let loopback = try JackLoopback()
        Self.useTestDevices(server: loopback.server)
        try whatIsPlayedIsCapturedOnTheExactFramesWithStampsInRealTime(loopback)
        try everyHitHeardIsMatchedToItsClickWithinAMillisecond(loopback)
        try theCommandCalibratesAndInspectsWithinAMillisecond(loopback)
        try theStatusLineShowsTheNotesInARealTerminal(loopback)
        try theAdaptiveTrainerStepsHoldsAndStepsBackAtBarLines(loopback)
        try theStatusLineSaysWhyTheTrainerWaitsInARealTerminal(loopback)
    }

    func whatIsPlayedIsCapturedOnTheExactFramesWithStampsInRealTime(_ loopback: JackLoopback) throws {

        let rate = SampleRate.standard
        let input = try CaptureDevice(name: "inspectorIn", rate: rate, periodFrames: 1024, bufferFrames: 4096)
        let output = try PCMDevice(name: "inspectorOut", rate: rate, periodFrames: 1024, bufferFrames: 2048)
        let capture = LiveCapture(device: input)
        capture.start()
        defer { capture.stop(); capture.join() }

        // Impulses 12 345 frames apart (not a multiple of a period or a chunk), two seconds of them.
        let spacing = 12_345
        let total = 8 * spacing
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { block.deallocate() }
        var written = 0
        while written < total + 48_000 {
            for index in 0..<1024 {
                let frame = written + index
                block[index] = frame < total && frame % spacing == 100 ? 0.5 : 0
            }
            guard case .written = output.write(block, frames: 1024) else { Issue.record("write failed"); return }
            written += 1024
        }
        let chunks = collect(capture, frames: Int64(written))
        #expect(capture.failure == nil)
        if loopback.serverHadXrun { return }  // the harness, not the capture
        var impulses: [(frame: Int64, instant: MonotonicInstant?)] = []
        var expected: Int64 = chunks.first?.firstFrame ?? 0
        for chunk in chunks {
            #expect(chunk.firstFrame == expected)
            expected = chunk.firstFrame + Int64(chunk.count)
            for index in 0..<chunk.count where chunk.samples[index] > 0.25 {
                let frame = chunk.firstFrame + Int64(index)
                impulses.append((frame, chunk.instant(ofFrame: frame, rate: rate)))
            }
        }
        try #require(impulses.count == 8, "\(impulses.map(\.frame))")
        for (previous, next) in zip(impulses, impulses.dropFirst()) {
            // Every frame played comes back on its frame.
            #expect(next.frame - previous.frame == Int64(spacing))
            // And the stamps place it in real time, within one of the server's periods (1024
            // frames): the jack plugin stamps the status call, its delay counts whole periods.
            let first = try #require(previous.instant), second = try #require(next.instant)
            let nanoseconds = second.nanoseconds - first.nanoseconds
            let expectedNanoseconds = FrameTime.nanoseconds(inFrames: Int64(spacing), at: rate.framesPerSecond)
            #expect(abs(nanoseconds - expectedNanoseconds) < FrameTime.nanoseconds(inFrames: 1024, at: rate.framesPerSecond), "\(nanoseconds)")
        }
    }
}
