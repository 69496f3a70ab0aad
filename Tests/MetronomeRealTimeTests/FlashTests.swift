import Foundation
import Testing
import MetronomeTestSupport

/// `--flash` in a real terminal (tmux), frame by frame against the trace: the
/// picture inverted after a bar's first beat, the status line after another beat.
@Suite(.serialized) struct FlashTests {
    struct Frame { let audioFrame: Int64, flash: String? }
    struct Click { let frame: Int64, firstOfBar: Bool }

    static func read(_ path: String) -> (frames: [Frame], clicks: [Click]) {
        let objects = traceObjects(path)
        return (objects.filter { $0["type"] as? String == "frame" }.map { Frame(audioFrame: traceNumber($0, "audioFrame"), flash: $0["flash"] as? String) },
                objects.filter { $0["type"] as? String == "click" }.map { Click(frame: traceNumber($0, "frame"), firstOfBar: traceNumber($0, "beatInBar") == 1) })
    }

    /// What frame `frame` flashes for by the rule, worked out from the traced clicks: the last click
    /// at or before it, if less than 100 ms (4800 frames at 48 kHz) ago and less than half the way to
    /// the next click; `bell` for a bar's first beat. `.none` when the next click is not traced yet.
    static func expected(_ frame: Int64, clicks: [Click]) -> String?? {
        guard let index = clicks.lastIndex(where: { $0.frame <= frame }) else { return .some(nil) }
        guard index + 1 < clicks.count else { return .none }
        let click = clicks[index], length = min(4_800, (clicks[index + 1].frame - click.frame) / 2)
        return .some(frame - click.frame < length ? (click.firstOfBar ? "bell" : "beat") : nil)
    }

    @Test(.enabled(if: PracticeKeysTests.enabled))
    func theFlashFollowsEachClickForItsLengthAndTheTerminalShowsIt() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("trace.jsonl")
        let pane = try TmuxPane(command: "XDG_STATE_HOME=\(directory.path) \(metronomeBinary()) --silent --flash --bpm 150 --meter 3/4 --trace \(trace) 2>/dev/null",
                                width: 60, height: 20)
        try pane.waitUntil("the first clicks") { Self.read(trace).clicks.count >= 2 }
        // Captures bracketed by the trace: when the last three frames drawn before a capture and the first
        // after it agree, the screen shows that state (tmux is behind the program by less than two frames).
        let reverse = "\u{1B}[7m"
        var seen: [String: Int] = [:]
        try pane.waitUntil("captures during a bell's flash, a beat's and none", seconds: 30) {
            let before = Self.read(trace).frames
            let screen = try pane.captureWithAttributes()
            let after = Self.read(trace).frames
            guard before.count >= 3, after.count > before.count else { return false }
            let states = Set((before.suffix(3) + [after[before.count]]).map { $0.flash ?? "none" })
            guard states.count == 1, let state = states.first else { return false }
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            switch state {
            case "bell": #expect(lines.first?.contains(reverse) == true, "a bell's flash inverts the picture from its first row: \(screen)")
            case "beat": #expect(lines.first?.contains(reverse) == false && lines.filter { $0.contains(reverse) }.count == 1,
                                 "a beat's flash inverts the status line alone: \(screen)")
            default: #expect(!screen.contains(reverse), "no flash, no reverse video: \(screen)")
            }
            seen[state, default: 0] += 1
            return ["bell", "beat", "none"].allSatisfy { seen[$0, default: 0] >= 2 }
        }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        // Frame by frame: every traced frame flashes as the rule works it out from the traced clicks.
        let (frames, clicks) = Self.read(trace)
        var counts: [String: Int] = [:]
        for frame in frames {
            guard case .some(let expected) = Self.expected(frame.audioFrame, clicks: clicks) else { continue }
            #expect(frame.flash == expected, "frame at \(frame.audioFrame)")
            counts[expected ?? "none", default: 0] += 1
        }
        #expect(counts["bell", default: 0] > 0 && counts["beat", default: 0] > 0 && counts["none", default: 0] > 0, "\(counts)")
    }
}
