import Foundation
import Testing
import MetronomeTestSupport

/// The adaptive trainer (`--step S/M --until T --when-tight MS --step-back`) through the
/// built binary on the JACK dummy loopback: the drummer (`Tests/Tools/jack_drummer.c`,
/// reacting to each click it hears) plays tight, then loose, then tight, and the tempo
/// must step, hold and step back as the rule says, each step at a bar line on the exact grid.
/// Part of `CaptureLoopbackTests`, on its server.
extension CaptureLoopbackTests {
    /// 3/4 from 240 bpm, 12 bpm a step every 2 tight bars, up to 288, notes within 10 ms.
    static let trainerBars = 24, trainerBeats = 3
    static let trainerStart: Int64 = 240_000, trainerStep: Int64 = 12_000, trainerUntil: Int64 = 288_000, trainerBarsPerStep = 2
    static let toleranceFrames: Int64 = 480  // 10 ms at 48 kHz

    /// What the drummer plays on each click (frames after it, or nil for none): tight (on the
    /// click) for 7 bars, then bar 8 with its third beat 25 ms late, bar 9 tight, bar 10 with its
    /// second beat missed, then tight to the end.
    static func trainerDrumming() -> [Int64?] {
        (0..<(trainerBars * trainerBeats)).map { click in
            switch click {
            case 7 * trainerBeats + 2: 1_200
            case 9 * trainerBeats + 1: nil
            default: 0
            }
        }
    }

    func theAdaptiveTrainerStepsHoldsAndStepsBackAtBarLines(_ loopback: JackLoopback) throws {
        let drummer = try Self.buildDrummer(in: loopback)
        let click = loopback.home.file("click.wav")
        try Self.writeShortClick(to: click)
        try takes(3, "the adaptive trainer through the drummer") { _, last in
            let xrunsBefore = try loopback.log().lowercased().components(separatedBy: "xrun").count
            return try trainAdaptively(loopback, drummer: drummer, click: click) {
                !last && (try? loopback.log().lowercased().components(separatedBy: "xrun").count) != xrunsBefore
            }
        }
    }

    func trainAdaptively(_ loopback: JackLoopback, drummer: String, click: String, hadXrun: () -> Bool) throws -> Bool {
        let drumming = Self.trainerDrumming()
        let drummerLog = loopback.home.file("trainer-drummer.log")
        let player = try loopback.launch(drummer, ["react:" + drumming.map { $0.map(String.init) ?? "x" }.joined(separator: ",")],
                                         log: drummerLog)
        defer { stop(player) }
        try loopback.waitForPort("jack_drummer:hits")
        let trace = loopback.home.file("trainer.jsonl")
        let result = try metronome(loopback, ["--inspect", "--input-latency", "0", "--bpm", "240", "--meter", "3/4", "--step", "12/2",
                                              "--until", "288", "--when-tight", "10", "--step-back", "--bars", "\(Self.trainerBars)",
                                              "--trace", trace, "--beat-sound", click, "--bell-sound", click, "--no-pendulum",
                                              "--device", "drummerOut", "--input-device", "drummerIn"])
        stop(player)
        #expect(result.status == 0, "\(result.standardError)")
        if hadXrun() { return false }

        // What the drummer played, by click: the verdict each bar deserves, independently of the metronome.
        var played: [Int64: Int64] = [:]
        for hit in try Self.hitsPlayed(drummerLog) { played[hit.click] = hit.offset }
        func deserved(_ bar: Int) -> (verdict: String, beat: Int?) {
            for beat in 0..<Self.trainerBeats {
                guard let offset = played[Int64(bar * Self.trainerBeats + beat)] else { return ("missed", beat + 1) }
                if abs(offset) > Self.toleranceFrames { return ("off", beat + 1) }
            }
            return ("tight", nil)
        }

        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let clicks = lines.filter { $0["type"] as? String == "click" }
            .map { (beat: Int64($0["beat"] as! Int), frame: Int64($0["frame"] as! Int), bar: $0["bar"] as! Int, beatInBar: $0["beatInBar"] as! Int) }
        let tempos = lines.filter { $0["type"] as? String == "tempo" }
            .map { (frame: Int64($0["frame"] as! Int), milli: Self.milli($0["bpm"] as! String)) }
        let judged = lines.filter { $0["type"] as? String == "judged" }
        try #require(clicks.count == Self.trainerBars * Self.trainerBeats, "\(clicks.count) clicks traced")
        try #require(judged.count >= Self.trainerBars - 2, "\(judged.count) bars judged")

        // Every tempo change at a bar line, on the grid before it; every click on its stretch's exact grid:
        // floor(k · 60 · 48000 / bpm + 1/2) frames from the stretch's first click.
        var stretch = (click: Int64(0), frame: clicks[0].frame, milli: Self.trainerStart)
        var changes: [(bar: Int, milli: Int64)] = []
        for traced in clicks {
            let expected = stretch.frame + Self.gridOffset(clicks: traced.beat - stretch.click, milli: stretch.milli)
            #expect(traced.frame == expected, "click \(traced.beat) at frame \(traced.frame), the grid says \(expected)")
            if let change = tempos.first(where: { $0.frame == traced.frame }), change.milli != stretch.milli, traced.beat > 0 {
                #expect(traced.beatInBar == 1, "the tempo changed to \(change.milli) at beat \(traced.beatInBar) of bar \(traced.bar)")
                stretch = (traced.beat, traced.frame, change.milli)
                changes.append((traced.bar - 1, change.milli))
            }
        }
        #expect(tempos.allSatisfy { tempo in clicks.contains { $0.frame == tempo.frame } }, "a tempo change off every click: \(tempos)")

        // The rule, replayed on what the drummer played: each bar counted at the tempo it was
        // played at; a step asked for after bar Q lands at a bar line after Q, within 3 bars.
        var tempo = Self.trainerStart, tight = 0
        var expectedChanges: [(after: Int, milli: Int64)] = []
        var tempoOfBar: [Int: Int64] = [:]
        var current = Self.trainerStart, next = 0
        for bar in 0..<Self.trainerBars {
            while next < changes.count, changes[next].bar <= bar { current = changes[next].milli; next += 1 }
            tempoOfBar[bar] = current
        }
        var decisions: [String] = []
        for entry in judged {
            let bar = (entry["bar"] as! Int) - 1
            let (verdict, beat) = deserved(bar)
            #expect(entry["verdict"] as? String == verdict, "bar \(bar + 1): judged \(entry), the drummer played it \(verdict)")
            if let beat { #expect(entry["beatInBar"] as? Int == beat, "bar \(bar + 1): \(entry)") }
            #expect(Self.milli(entry["bpm"] as! String) == tempoOfBar[bar], "bar \(bar + 1) judged at \(entry["bpm"]!)")
            let decision: String
            if tempoOfBar[bar] != tempo {
                decision = "passedOver"
            } else if verdict == "tight" {
                tight += 1
                if tempo != Self.trainerUntil, tight == Self.trainerBarsPerStep {
                    tight = 0
                    tempo = min(tempo + Self.trainerStep, Self.trainerUntil)
                    expectedChanges.append((bar, tempo))
                    decision = "step"
                } else {
                    decision = "counted"
                }
            } else {
                tight = 0
                if tempo > Self.trainerStart {
                    tempo = max(tempo - Self.trainerStep, Self.trainerStart)
                    expectedChanges.append((bar, tempo))
                    decision = "back"
                } else {
                    decision = "held"
                }
            }
            #expect(entry["decision"] as? String == decision, "bar \(bar + 1): \(entry), the rule says \(decision)")
            decisions.append("\(bar + 1) \(verdict) \(decision)")
        }
        // The changes the rule asked for, each landing at a bar line 1 to 3 bars after the bar that earned it
        // (the last asked may fall past the end).
        for (index, change) in changes.enumerated() {
            guard index < expectedChanges.count else {
                Issue.record("a tempo change to \(change.milli) at bar \(change.bar + 1) the rule never asked for")
                continue
            }
            let asked = expectedChanges[index]
            #expect(change.milli == asked.milli && change.bar > asked.after && change.bar <= asked.after + 3,
                    "change \(index + 1): \(change.milli) at bar \(change.bar + 1); the rule asked \(asked.milli) after bar \(asked.after + 1)")
        }
        #expect(changes.count >= expectedChanges.count - 1, "\(changes.count) changes for \(expectedChanges.count) asked")
        // Tight, then loose, then tight: the trainer went up, came back, and went up again.
        let milli = changes.map(\.milli)
        #expect(zip(milli, milli.dropFirst()).contains { $1 < $0 }, "no step back: \(milli)")
        #expect(milli.last.map { $0 > Self.trainerStart } == true, "\(milli)")
        print("adaptive trainer: changes \(changes.map { "bar \($0.bar + 1) → \(Double($0.milli) / 1000)" }.joined(separator: ", "));"
              + " bars \(decisions.joined(separator: ", "))")
        return true
    }

    /// Frames from a stretch's first click to its `clicks`th: floor(clicks · 2 880 000 000 / milli + 1/2) at 48 kHz.
    static func gridOffset(clicks: Int64, milli: Int64) -> Int64 {
        (2 * clicks * 2_880_000_000 + milli) / (2 * milli)
    }

    /// "252" or "252.5" as thousandths of a bpm.
    static func milli(_ bpm: String) -> Int64 {
        let parts = bpm.split(separator: ".")
        let fraction = parts.count > 1 ? String(parts[1]).padding(toLength: 3, withPad: "0", startingAt: 0) : "000"
        return Int64(parts[0])! * 1_000 + Int64(fraction)!
    }

    /// In a real terminal (tmux, 80x24): a drummer 10 ms late on every click, a 5 ms window: the
    /// status line says the trainer holds the tempo, and which bar and beat held it, by how much.
    func theStatusLineSaysWhyTheTrainerWaitsInARealTerminal(_ loopback: JackLoopback) throws {
        let drummer = try Self.buildDrummer(in: loopback)
        let click = loopback.home.file("click.wav")
        let player = try loopback.launch(drummer, ["react:480"], log: loopback.home.file("late-trainer.log"))
        defer { stop(player) }
        try loopback.waitForPort("jack_drummer:hits")
        let pane = try metronomeInTmux(loopback, "--inspect --input-latency 0 --bpm 240 --meter 3/4 --step 12/2 --until 288 --when-tight 5 --bars 6"
                                           + " --beat-sound \(click) --bell-sound \(click) --device drummerOut --input-device drummerIn",
                                       stderr: "tmux-trainer-stderr")
        var screen = ""
        try pane.waitUntil("the trainer holding on the status line", seconds: 15) {
            screen = try pane.capture()
            return screen.contains("holding 240: bar ")
        }
        let status = try #require(screen.split(separator: "\n").first { $0.contains("holding 240: bar ") })
        let words = status.split(separator: " ")
        let offset = try #require(words.drop { $0 != "beat" }.dropFirst(2).first.flatMap { Double($0) }, "\(status)")
        #expect(abs(offset - 10) <= 1 && status.contains("240 bpm"), "\(status)")
        let outcome = try pane.outcome(seconds: 20)
        #expect(outcome.status == 0)
        #expect(outcome.stty.contains(" icanon") && outcome.stty.contains(" echo"), "the terminal is left raw")
    }
}
