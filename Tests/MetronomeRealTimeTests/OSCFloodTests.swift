import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeOSC
import MetronomeTestSupport

/// A flood of OSC during live playback through the JACK loopback: in the
/// loopback's serialized suite, so nothing else real-time runs beside it.
extension RealTimeLoopbackTests {
    /// 100 000 messages from four sockets as fast as python-osc's packets go
    /// (pings, queries of both namespaces, refused types, bundles, malformed
    /// packets) while the metronome plays 137 bpm through ALSA's jack plugin:
    /// no underrun, every click on the exact grid, the run still answers a
    /// ping after it, and its memory the same before and after the flood.
    @Test(.enabled(if: (JackLoopback.isInstalled && OSCServerTests.available) || required))
    func aFloodOfOSCNeverMovesAClick() throws {
        try #require(JackLoopback.isInstalled && OSCServerTests.available, "jackd2, libasound2-plugins and python-osc are needed: run scripts/setup --test")
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: .standard)
        try takes(3, "a flood of OSC") { _, last in
            let loopback = try JackLoopback()
            let port = try OSCSocket(host: "127.0.0.1", port: 0).port
            let log = loopback.home.file("metronome.log")
            var sent = "", answered = false, rss: (before: Int, after: Int) = (0, 0)
            let recording = try loopback.record(seconds: 14) {
                let metronome = try loopback.launch(metronomeBinary(), ["--device", "loopback", "--bpm", "137", "--duration", "11", "--osc", String(port),
                                                                        "--no-pendulum", "--verbose", "--beat-sound", beat, "--bell-sound", bell], log: log)
                #expect(waitUntil(seconds: 10, every: .milliseconds(50)) { (try? OSCServerTests.send(port, "/klick/ping", ask: true)) != nil })
                rss.before = Self.residentKilobytes(metronome.processIdentifier)
                sent = try run("/usr/bin/python3", [OSCServerTests.probe, "flood", String(port), "100000"]).standardOutput
                answered = (try? OSCServerTests.send(port, "/klick/ping", ask: true)) != nil
                rss.after = Self.residentKilobytes(metronome.processIdentifier)
                metronome.waitUntilExit()
            }
            if !last, loopback.serverHadXrun { return false }  // the harness, not the metronome
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(!text.contains("underrun") && !text.contains("warning"), "\(text.suffix(500))")
            let messages = (try? JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: Int])?["messages"] ?? 0
            #expect(messages >= 100_000, "\(sent)")
            #expect(answered, "no pong after the flood")
            // Its own count: messages taken, malformed packets dropped.
            let counts = text.split(separator: "\n").first { $0.hasPrefix("osc: ") } ?? ""
            #expect(counts.contains(" malformed packet"), "\(text.suffix(300))")
            // Memory: the flood's buffers are the loop's, made once; allow 2 MB for the allocator's noise.
            #expect(rss.before > 0 && rss.after - rss.before < 2_048, "RSS \(rss.before) kB before, \(rss.after) kB after")
            let found = onsets(recording)
            #expect(found.count >= 24, "\(found.count) clicks")
            if let first = found.first {
                for (click, onset) in found.enumerated() {
                    #expect(onset.frame - first.frame == schedule.frame(ofClick: Int64(click)), "click \(click)")
                }
            }
            print("a flood of OSC: \(sent.trimmingCharacters(in: .newlines)), \(counts), RSS \(rss.before) → \(rss.after) kB, \(found.count) clicks on the grid")
            return true
        }
    }

    /// VmRSS of process `pid`, in kB (0 if unreadable).
    static func residentKilobytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
