import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// The practice keys in a real terminal (tmux), read back through `--trace`.
@Suite(.serialized) struct PracticeKeysTests {
    static let enabled = TerminalTests.tmuxInstalled || RealTimeLoopbackTests.required

    struct Click { let frame: Int64, beat: Int64, bar: Int64, beatInBar: Int64, bell: Bool }
    struct TempoEvent { let bpm: String, frame: Int64 }

    static func read(_ path: String) -> (clicks: [Click], tempi: [TempoEvent]) {
        var clicks: [Click] = [], tempi: [TempoEvent] = []
        for object in traceObjects(path) {
            let number = { (key: String) in traceNumber(object, key) }
            switch object["type"] as? String {
            case "click":
                clicks.append(Click(frame: number("frame"), beat: number("beat"), bar: number("bar"),
                                    beatInBar: number("beatInBar"), bell: object["sound"] as? String == "bell"))
            case "tempo":
                tempi.append(TempoEvent(bpm: object["bpm"] as? String ?? "", frame: number("frame")))
            default: break
            }
        }
        return (clicks, tempi)
    }

    /// A metronome with no sound card (paced by the clock, 48 kHz) in a tmux pane, tracing.
    static func start(_ arguments: String) throws -> (pane: TmuxPane, trace: String, directory: TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let trace = directory.file("trace.jsonl")
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) \(arguments) --trace \(trace) 2>/dev/null")
        try pane.waitUntil("the first clicks") { read(trace).clicks.count >= 2 }
        return (pane, trace, directory)
    }

    /// Every click from the one at `frame` on sits at frame + floor(j * 60 * 48000 / B + 1/2), j counting from 0.
    static func expectGrid(_ clicks: [Click], from frame: Int64, tempo: Tempo) {
        let schedule = ClickSchedule(tempo: tempo, rate: .standard)
        let following = clicks.filter { $0.frame >= frame }
        #expect(following.count >= 6)
        for (j, click) in following.enumerated() {
            #expect(click.frame == frame + schedule.frame(ofClick: Int64(j)), "click \(click.beat)")
        }
    }

    @Test(.enabled(if: enabled))
    func fiveUpsAt120GiveA125GridFromTheTempoEvent() throws {
        let (pane, trace, directory) = try Self.start("--bpm 120")
        try Self.expectFiveUpsGiveA125Grid(pane, trace: trace)
        _ = directory
    }

    /// Five Up keys at 120 bpm: a tempo event at 125 on a beat of the 120
    /// grid, and from it the 125 grid exactly, none doubled or skipped.
    static func expectFiveUpsGiveA125Grid(_ pane: TmuxPane, trace: String) throws {
        for _ in 0..<5 { try pane.send("Up") }
        var change: TempoEvent?
        try pane.waitUntil("a tempo event at 125 and clicks after it") {
            let (clicks, tempi) = Self.read(trace)
            change = tempi.first { $0.bpm == "125" }
            return change.map { event in clicks.filter { $0.frame >= event.frame }.count >= 8 } ?? false
        }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        let (clicks, tempi) = Self.read(trace)
        let event = try #require(change)
        #expect(tempi.first?.bpm == "120" && tempi.last?.bpm == "125")
        // The first click at 125 is a beat of the 120 grid; from it, the 125 grid exactly. None doubled or skipped.
        let before = clicks.filter { $0.frame < event.frame }
        for click in before { #expect(click.frame == click.beat * 24_000) }
        #expect(event.frame % 24_000 == 0)
        Self.expectGrid(clicks, from: event.frame, tempo: Tempo(bpm: 125)!)
        let beats: [Int64] = clicks.map { $0.beat }
        #expect(beats == Array(0..<Int64(clicks.count)))
    }

    @Test(.enabled(if: enabled))
    func threeGivesABellEveryThirdBeatFromTheNextBar() throws {
        let (pane, trace, directory) = try Self.start("--bpm 240")
        let pressedAfter = Self.read(trace).clicks.count
        try pane.send("3")
        try pane.waitUntil("bells every third beat") {
            let bells = Self.read(trace).clicks.filter(\.bell).map(\.beat)
            return bells.count >= 4 && zip(bells.suffix(3), bells.suffix(3).dropFirst()).allSatisfy { $1 - $0 == 3 }
        }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        _ = directory
        let clicks = Self.read(trace).clicks
        let bells = clicks.filter(\.bell).map(\.beat)
        // Bars of four, then (from the first bar after the key) bars of three; every click on the 240 grid.
        let switchIndex = try #require(bells.indices.dropFirst().first { bells[$0] - bells[$0 - 1] == 3 })
        let switchBeat = bells[switchIndex - 1]
        #expect(switchBeat >= Int64(pressedAfter) - 4)
        for pair in zip(bells[..<switchIndex], bells[1..<switchIndex]) { #expect(pair.1 - pair.0 == 4) }
        for pair in zip(bells[(switchIndex - 1)...], bells[switchIndex...]) { #expect(pair.1 - pair.0 == 3) }
        for click in clicks {
            #expect(click.frame == click.beat * 12_000)
            #expect(click.bell == (click.beatInBar == 1))
        }
    }

    @Test(.enabled(if: enabled))
    func fiveTapsHalfASecondApartGive120() throws {
        // The taps are the harness's input, sent by spawning `tmux send-keys`: on a loaded machine (a
        // sanitized test bundle) one spawn can take tens of milliseconds, and the tap lands that late.
        try takes(3, "five taps half a second apart") { _, last in
            let (pane, trace, directory) = try Self.start("--bpm 90")
            // Five presses 0.5 s apart by the clock (this is the input, not a wait for the program).
            let start = Date()
            var slowestSend = 0.0
            for tap in 0..<5 {
                let due = start.addingTimeInterval(0.5 * Double(tap))
                let wait = due.timeIntervalSinceNow
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                let sending = Date()
                try pane.send("t")
                slowestSend = max(slowestSend, Date().timeIntervalSince(sending))
            }
            var tapped: TempoEvent?
            // All five taps are sent; the last tempo the trace holds, once eight clicks follow it, is
            // what they gave (on a loaded machine the terminal may hand two taps over at once).
            try pane.waitUntil("the tapped tempo and clicks after it", seconds: 20) {
                let (clicks, tempi) = Self.read(trace)
                tapped = tempi.last
                guard let event = tapped, tempi.count >= 2 else { return false }
                return clicks.filter { $0.frame >= event.frame }.count >= 8
            }
            try pane.send("q")
            #expect(try pane.outcome().status == 0)
            _ = directory
            // A send that took over 12 ms left its tap's moment unknown by as much: the harness, not the metronome.
            if !last, slowestSend > 0.012 { return false }
            let event = try #require(tapped)
            let bpm = try #require(Double(event.bpm))
            #expect(abs(bpm - 120) <= 1, "tapped \(bpm) bpm; the slowest send took \(Int(slowestSend * 1_000)) ms")
            Self.expectGrid(Self.read(trace).clicks, from: event.frame, tempo: try Tempo(parsing: event.bpm))
            return true
        }
    }
}
