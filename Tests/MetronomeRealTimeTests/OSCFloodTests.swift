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
    /// packets) while the metronome plays 137 bpm through ALSA's jack plugin
    /// and draws its picture in a terminal (tmux): no underrun, every click on
    /// the exact grid, the picture drawn at its rate throughout the flood
    /// (its frames, from the trace), the run still answers a ping after it,
    /// and its memory the same before and after.
    @Test(.enabled(if: (JackLoopback.isInstalled && OSCServerTests.available && TerminalTests.tmuxInstalled) || required))
    func aFloodOfOSCNeverMovesAClickNorSlowsThePicture() throws {
        try #require(JackLoopback.isInstalled && OSCServerTests.available && TerminalTests.tmuxInstalled,
                     "jackd2, libasound2-plugins, python-osc and tmux are needed: run scripts/setup --test")
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: .standard)
        // It keeps both cores busy on purpose: the server runs in real time, as a studio's does (at
        // normal priority, beside the JACK client's tests, its cycles were starved in every take of
        // two CI runs in five).
        try takes(3, "a flood of OSC") { _, last in
            let loopback = try JackLoopback(realTime: true)
            let port = try OSCSocket(host: "127.0.0.1", port: 0).port
            let log = loopback.home.file("metronome.log"), trace = loopback.home.file("trace.jsonl")
            var sent: [String] = [], answered = false, rss: (before: Int, after: Int) = (0, 0), flood: (from: Double, to: Double) = (0, 0)
            var screen = ""
            let recording = try loopback.record(seconds: 14) {
                let environment = loopback.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
                let pane = try TmuxPane(command: "env \(environment) \(metronomeBinary()) --device loopback --bpm 137 --duration 11 --osc \(port) "
                                            + "--verbose --trace \(trace) --beat-sound \(beat) --bell-sound \(bell) 2>\(log)", width: 400)
                #expect(waitUntil(seconds: 10, every: .milliseconds(50)) { (try? OSCServerTests.send(port, "/klick/ping", ask: true)) != nil })
                let pid = try pane.programPID(named: "metronome") ?? 0
                rss.before = Self.residentKilobytes(pid)
                flood.from = Self.monotonicSeconds()
                // 100 000 messages go in half a second: floods one after another for two seconds, so the picture is timed over many frames.
                repeat {
                    sent.append(try run("/usr/bin/python3", [OSCServerTests.probe, "flood", String(port), "100000"]).standardOutput)
                    flood.to = Self.monotonicSeconds()
                } while flood.to - flood.from < 2
                answered = (try? OSCServerTests.send(port, "/klick/ping", ask: true)) != nil
                rss.after = Self.residentKilobytes(pid)
                _ = try pane.outcome(seconds: 20)
                // With a picture, the counts at the end are printed on the terminal.
                screen = try pane.capture()
            }
            if !last, loopback.serverHadXrun { return false }  // the harness, not the metronome
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(!text.contains("underrun") && !text.contains("warning"), "\(text.suffix(500))")
            let messages = sent.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Int])?["messages"] ?? 0 }.reduce(0, +)
            #expect(messages >= 100_000 * sent.count, "\(sent)")
            #expect(answered, "no pong after the flood")
            // Its own count: messages taken, malformed packets dropped.
            let counts = screen.split(separator: "\n").first { $0.hasPrefix("osc: ") } ?? ""
            #expect(counts.contains(" malformed packet"), "\(screen.suffix(600))")
            // Memory: the flood's buffers are the loop's, made once; allow 2 MB for the allocator's noise.
            #expect(rss.before > 0 && rss.after - rss.before < 2_048, "RSS \(rss.before) kB before, \(rss.after) kB after")
            let found = onsets(recording)
            #expect(found.count >= 24, "\(found.count) clicks")
            if let first = found.first {
                for (click, onset) in found.enumerated() {
                    #expect(onset.frame - first.frame == schedule.frame(ofClick: Int64(click)), "click \(click)")
                }
            }
            // The picture during the flood: its frames' times from the trace (CLOCK_MONOTONIC, as ours here).
            let times = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line -> Double? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["type"] as? String == "frame" else { return nil }
                return (object["time"] as? NSNumber)?.doubleValue
            }.filter { $0 >= flood.from && $0 <= flood.to }
            let seconds = flood.to - flood.from
            let rate = Double(times.count) / seconds
            let longest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .infinity
            #expect(seconds > 0.5 && rate >= 50, "\(times.count) frames in \(seconds) s of flood")
            #expect(longest < 0.05, "a frame \(Int(longest * 1000)) ms after the one before it")
            print("a flood of OSC: \(messages) messages in \(String(format: "%.2f", seconds)) s, \(counts), "
                  + "RSS \(rss.before) → \(rss.after) kB, \(found.count) clicks on the grid, the picture at "
                  + "\(String(format: "%.1f", rate)) frames a second, none more than \(Int(longest * 1000)) ms after the last")
            return true
        }
    }

    /// CLOCK_MONOTONIC now, in seconds: the clock of the trace's times.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The beat feed against the sound: the metronome plays 200 bpm in 3/4 as a
    /// JACK client into `jack_thru`, whose output a recorder takes with each
    /// cycle's instant on CLOCK_MONOTONIC (`Tests/Tools/jack_clocked_rec.c`:
    /// jackd's clock is not CLOCK_MONOTONIC, and here it drifts from it by
    /// hundreds of ppm while NTP slews). A recorded click is heard when its
    /// frame passes there plus the port's playback latency as JACK reports it
    /// (the system output's, 2048 frames on the dummy driver). python-osc reads
    /// each bundle's timetag: within 1 ms of that, bar, beat and bell as recorded.
    @Test(.enabled(if: (JackLoopback.isInstalled && JackLoopback.canBuildRecorder && OSCServerTests.available) || required))
    func theBeatFeedsTimetagsAreWhenTheRecordedClicksAreHeard() throws {
        try #require(JackLoopback.isInstalled && JackLoopback.canBuildRecorder && OSCServerTests.available,
                     "jackd2, libjack-jackd2-dev, clang and python-osc are needed: run scripts/setup --test")
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let rate = Double(SampleRate.standard.framesPerSecond)
        try takes(3, "the beat feed against a recording") { _, last in
            let loopback = try JackLoopback()
            let recorder = try JackLoopback.buildTool("jack_clocked_rec", into: loopback.home.path, flags: ["-ljack"])
            let file = loopback.home.file("clocked.f32"), times = loopback.home.file("times.txt")
            let recording = try loopback.launch(recorder, ["jack_thru:output_1", "16", file, times], log: loopback.home.file("recorder.log"))
            try loopback.waitForPort("jack_thru:output_1", connectedTo: "clocked:in")
            let port = try OSCSocket(host: "127.0.0.1", port: 0).port
            let log = loopback.home.file("metronome.log")
            let metronome = try loopback.launch(metronomeBinary(), ["--jack", "--connect", "jack_thru:input_1", "--bpm", "200", "--meter", "3/4",
                                                                    "--duration", "12", "--osc", String(port), "--no-pendulum", "--quiet",
                                                                    "--beat-sound", beat, "--bell-sound", bell], log: log)
            #expect(waitUntil(seconds: 10, every: .milliseconds(50)) { (try? OSCServerTests.send(port, "/klick/ping", ask: true)) != nil })
            // The latency from the recorded port to the ear, as JACK reports it.
            let listing = try JackLoopback.listPorts(["-l", "jack_thru:output_1"], environment: loopback.environment)
            let fed = try run("/usr/bin/python3", [OSCServerTests.probe, "feed", String(port), "12"])
            metronome.waitUntilExit()
            recording.waitUntilExit()
            if !last, loopback.serverHadXrun { return false }  // the harness, not the metronome
            #expect(fed.status == 0, "\(fed.standardOutput)")
            // `port playback latency = [ MIN MAX ] frames`: the largest, as the metronome takes it.
            let latencyLine = listing.split(separator: "\n").first { $0.contains("playback latency") } ?? ""
            let range = latencyLine.split(separator: "[").last?.split(separator: "]").first?.split(separator: " ").compactMap { Double($0) } ?? []
            let latency = try #require(range.max(), "no playback latency in: \(listing)")
            #expect(latency > 0, "\(listing)")

            // The recording's frames on CLOCK_MONOTONIC, cycle by cycle.
            let cycles = try String(contentsOfFile: times, encoding: .utf8).split(separator: "\n").map { line in
                line.split(separator: " ").compactMap { Int64($0) }
            }.filter { $0.count == 4 }
            func heard(_ frame: Int64) -> Double? {
                guard let cycle = cycles.last(where: { $0[0] <= frame }), let index = cycles.firstIndex(of: cycle), index + 1 < cycles.count else { return nil }
                let framesInCycle = Double(cycles[index + 1][0] - cycle[0])
                let passes = Double(cycle[1]) + Double(frame - cycle[0]) * Double(cycle[2] - cycle[1]) / framesInCycle
                return passes / 1e6 + Double(cycle[3]) / 1e9 + latency / rate
            }
            let samples = try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let clicks = onsets(samples)
            #expect(clicks.count >= 18, "\(clicks.count) clicks recorded")

            // Each bundle: its timetag on the monotonic clock by the wall clock's offset read as it came.
            let lines = fed.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any] }
            var deviations: [Double] = []
            for line in lines.dropFirst() {
                guard line.count == 5, let wall = line[0] as? Double, let values = line[2] as? [NSNumber], values.count == 4,
                      let offset = line[4] as? Double else { continue }
                let bar = values[0].intValue, inBar = values[1].intValue
                let index = (bar - 1) * 3 + inBar - 1
                guard index < clicks.count, let truth = heard(clicks[index].frame) else {
                    Issue.record("bar \(bar) beat \(inBar): not in the recording")
                    continue
                }
                #expect((values[3].intValue == 1) == (clicks[index].value < 0), "bar \(bar) beat \(inBar): the bell")
                let deviation = wall - offset - truth
                #expect(abs(deviation) < 0.001, "bar \(bar) beat \(inBar): timetag \(Int(deviation * 1e6)) µs from the recorded click heard")
                deviations.append(deviation)
            }
            #expect(deviations.count == 12, "\(fed.standardOutput)")
            print("beat feed against the recording: \(deviations.count) beats, timetags \(Int((deviations.min() ?? 0) * 1e6)) to "
                  + "\(Int((deviations.max() ?? 0) * 1e6)) µs from the recorded clicks heard (latency \(Int(latency)) frames)")
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
