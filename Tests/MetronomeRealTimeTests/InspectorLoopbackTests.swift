import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeListening
import MetronomeTestSupport

/// The inspector's parts end to end through real ALSA both ways: clicks
/// played through the jack plugin to `Tests/Tools/jack_drummer.c`, which
/// plays hits at chosen offsets into the plugin's capture side; captured
/// (`LiveCapture`), detected (`OnsetDetector`) and matched (`NoteMatcher`)
/// in this process. Part of
/// `CaptureLoopbackTests`, on its JACK server (libjack reaches one server a process).
extension CaptureLoopbackTests {
    /// Builds the drummer with the toolchain's clang; returns its path.
    static func buildDrummer(in loopback: JackLoopback) throws -> String {
        try JackLoopback.buildTool("jack_drummer", into: loopback.home.path, flags: ["-ljack", "-lm"])
    }

    /// Run by `captureThroughTheJackPlugin` on its server.
    func everyHitHeardIsMatchedToItsClickWithinAMillisecond(_ loopback: JackLoopback) throws {
        let drummer = try Self.buildDrummer(in: loopback)
        // Frames at 48 kHz (48 a millisecond), click k taking the (k mod 16)th: those on the click measure the
        // round trip, the others are early and late by up to 35 ms. Clicks 0 and 1 have none (the drummer learns the interval).
        let offsets: [Int64] = [0, 0, 0, 0, -1_680, 817, 581, -1_631, 1_680, -48, 48, 240, -480, 1_000, -1_000, 0]
        let drummerLog = loopback.home.file("drummer.log")
        let player = try loopback.launch(drummer, [offsets.map(String.init).joined(separator: ",")], log: drummerLog)
        defer { stop(player) }
        try loopback.waitForPort("jack_drummer:hits")

        let rate = SampleRate.standard
        let input = try CaptureDevice(name: "drummerIn", rate: rate, periodFrames: 1024, bufferFrames: 4096)
        let output = try PCMDevice(name: "drummerOut", rate: rate, periodFrames: 1024, bufferFrames: 2048)
        let capture = LiveCapture(device: input, logCapacity: 16_384)
        capture.start()
        defer { capture.stop(); capture.join() }

        // 200 bpm: a click every 14 400 frames, a millisecond long; 26 of them, then a second of silence.
        let interval: Int64 = 14_400, clicks: Int64 = 26
        let total = interval * clicks + 48_000
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { block.deallocate() }
        var written: Int64 = 0
        while written < total {
            for index in 0..<1024 {
                let frame = written + Int64(index)
                block[index] = frame < interval * clicks && frame % interval < 48 ? 0.8 : 0
            }
            guard case .written = output.write(block, frames: 1024) else { Issue.record("write failed"); return }
            written += 1024
        }

        // Onsets in the capture's frames.
        let detector = try #require(OnsetDetector(rate: rate))
        var onsets: [Int64] = []
        var taken: Int64 = 0
        var pending: [Float] = []
        // Polling the log, bounded by the deadline.
        waitUntil(seconds: 10, every: .milliseconds(1)) {
            while taken < written, let chunk = capture.log.pop() {
                if taken == 0 { taken = chunk.firstFrame }
                for index in 0..<chunk.count { pending.append(chunk.samples[index]) }
                taken += Int64(chunk.count)
                while pending.count >= OnsetDetector.hop {
                    if let onset = pending.withUnsafeBufferPointer({ detector.feed($0.baseAddress!) }) { onsets.append(onset) }
                    pending.removeFirst(OnsetDetector.hop)
                }
            }
            return taken >= written || capture.isFinished
        }
        #expect(capture.failure == nil && capture.overruns == 0 && capture.droppedChunks == 0)
        if loopback.serverHadXrun { return }  // the harness, not the inspector

        // What the drummer played: "hit FRAME CLICK OFFSET".
        let played = try String(contentsOfFile: drummerLog, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("hit ") }.map { $0.split(separator: " ").compactMap { Int64($0) } }
            .map { (click: $0[1], offset: $0[2]) }
        try #require(played.count >= 20, "the drummer played \(played.count) hits")
        // The onset heard for each hit: the nearest within 5 ms of where it was played (the JACK
        // graph runs output and capture in one cycle, so the two streams' frames nearly coincide).
        let heard: [Int64?] = played.map { hit in
            let truth = interval * hit.click + hit.offset
            return onsets.min(by: { abs($0 - truth) < abs($1 - truth) }).flatMap { abs($0 - truth) <= 240 ? $0 : nil }
        }
        #expect(Set(heard.compactMap { $0 }).count == onsets.count, "an onset no hit explains: \(onsets)")
        let missed: [Int64] = zip(played, heard).filter { $0.1 == nil }.map { pair in interval * pair.0.click + pair.0.offset }
        #expect(missed.isEmpty, "hits missed at frames \(missed) (phase in the hop: \(missed.map { $0 % 64 }))")

        // The round trip, as --calibrate would measure it: the hits played on the click.
        let calibration = zip(played, heard).filter { $0.0.offset == 0 }.compactMap { hit, onset in onset.map { $0 - interval * hit.click } }
        try #require(calibration.count >= 3, "too few of the hits on the click were heard")
        let roundTrip = calibration.sorted()[calibration.count / 2]
        var matcher = NoteMatcher(rate: rate, roundTripFrames: roundTrip)
        for click in 0..<clicks { matcher.add(.init(frame: interval * click, index: click, beatOfBar: Int(click % 4))) }
        var errors: [Double] = []
        // The drummer also plays on the click it predicts after the last; nothing is there to match it.
        for (hit, onset) in zip(played, heard) where hit.click < clicks {
            guard let onset else { continue }
            let found = matcher.match(heardFrame: onset)
            let match = try #require(found, "hit on click \(hit.click)")
            #expect(match.target.index == hit.click)
            let error = Double(match.offsetFrames - hit.offset) / 48
            errors.append(error)
            #expect(abs(error) <= 1, "click \(hit.click): reported \(match.offsetMilliseconds) ms, played \(Double(hit.offset) / 48) ms")
        }
        #expect(matcher.extras == 0)
        #expect(errors.count == played.filter { $0.click < clicks }.count)
        let mean = errors.reduce(0, +) / Double(errors.count)
        print("inspector loopback: round trip \(roundTrip) frames, \(errors.count) of \(played.count) hits heard, mean error \(mean) ms, worst \(errors.map(abs).max() ?? 0) ms")
    }
}
