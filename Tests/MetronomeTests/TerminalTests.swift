import Foundation
@testable import Metronome
import Testing

/// A tmux server of its own with one pane running a shell command.
final class TmuxPane {
    let socket = "metronome-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let directory = TemporaryDirectory()

    /// Runs `command` in a 80x24 pane; afterwards the pane's shell writes the
    /// exit status and `stty -a` into files, so the terminal mode left behind can be read.
    init(command: String, width: Int = 80, height: Int = 24) throws {
        // The shell traps INT with a handler (not an ignore, which the program would inherit)
        // so that Ctrl-C ends only the program and the shell goes on to record what it left.
        let script = "trap true INT; \(command); echo $? > \(directory.file("status")); stty -a > \(directory.file("stty.tmp")); mv \(directory.file("stty.tmp")) \(directory.file("stty")); sleep 30"
        let result = try run("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "sh", "-c", script],
                         detached: true)
        guard result.status == 0 else { throw TmuxError.failed("tmux new-session exited \(result.status)") }
    }

    enum TmuxError: Error { case failed(String), timedOut(String) }

    func capture() throws -> String { try run("/usr/bin/tmux", ["-L", socket, "capture-pane", "-p"]).standardOutput }

    /// Resizes the pane's window, as a user dragging the terminal would.
    func resize(width: Int, height: Int) throws {
        _ = try run("/usr/bin/tmux", ["-L", socket, "resize-window", "-x", "\(width)", "-y", "\(height)"])
    }

    func send(_ key: String) throws { _ = try run("/usr/bin/tmux", ["-L", socket, "send-keys", key]) }

    /// The pid of the program the pane's shell is running.
    func programPID(named name: String) throws -> Int32? {
        let shell = try run("/usr/bin/tmux", ["-L", socket, "display", "-p", "#{pane_pid}"]).standardOutput
        let child = try run("/usr/bin/pgrep", ["-P", shell.trimmingCharacters(in: .whitespacesAndNewlines), name]).standardOutput
        return Int32(child.split(separator: "\n").first ?? "")
    }

    /// Polls every 20 ms (at most `seconds`) until `condition` holds.
    func waitUntil(_ what: String, seconds: Double = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw TmuxError.timedOut(what)
    }

    /// The exit status and `stty -a` once the program has ended.
    func outcome(seconds: Double = 10) throws -> (status: Int32, stty: String) {
        try waitUntil("the program to end", seconds: seconds) { FileManager.default.fileExists(atPath: directory.file("stty")) }
        let status = try String(contentsOfFile: directory.file("status"), encoding: .utf8)
        return (Int32(status.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                try String(contentsOfFile: directory.file("stty"), encoding: .utf8))
    }

    /// Ends the pane's processes (its shell leads their process group), then the server.
    deinit {
        if let shell = try? run("/usr/bin/tmux", ["-L", socket, "display", "-p", "#{pane_pid}"]).standardOutput,
           let pid = Int32(shell.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(-pid, SIGKILL)
        }
        _ = try? run("/usr/bin/tmux", ["-L", socket, "kill-server"], detached: true)
    }
}

@Suite struct TerminalTests {
    static let tmuxInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    enum Exit: String, CaseIterable { case q, controlC, sigterm, sighup }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required), arguments: Exit.allCases)
    func thePendulumDrawsMovesAndEveryExitRestoresTheTerminal(exit: Exit) throws {
        // No ALSA configuration: the default device is missing, so it runs on its own clock.
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 2>/dev/null")
        var first = ""
        try pane.waitUntil("the picture") {
            first = try pane.capture()
            return first.contains("100 bpm") && first.contains("q quit") && first.contains("[")
        }
        #expect(first.contains("=====") && first.contains("###"))  // the base and the cover
        try pane.waitUntil("the rod to move") { try pane.capture() != first }

        switch exit {
        case .q: try pane.send("q")
        case .controlC: try pane.send("C-c")
        case .sigterm, .sighup:
            let pid = try #require(try pane.programPID(named: "metronome"))
            kill(pid, exit == .sigterm ? SIGTERM : SIGHUP)  // SIGHUP: the terminal was closed
        }
        let outcome = try pane.outcome()
        #expect(outcome.status == [Exit.q: 0, .controlC: 130, .sigterm: 143, .sighup: 129][exit])
        // Cooked mode with echo, as before.
        let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("icanon") && flags.contains("echo"))
        #expect(!flags.contains("-icanon") && !flags.contains("-echo"))
        // The alternate screen is gone: the pane shows the shell's screen again, not the picture.
        #expect(!(try pane.capture()).contains("q quit"))
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func theStatusLineShowsTheLatencyTheDeviceGranted() throws {
        // ALSA's null device grants what it is asked: 20 ms is 960 frames at 48 kHz.
        let pane = try TmuxPane(command: "\(metronomeBinary()) --bpm 100 --device null --latency 20 2>/dev/null")
        try pane.waitUntil("the status line names the latency") { try pane.capture().contains("latency 20.0 ms") }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aTooSmallTerminalShowsOneLineAndIsRestored() throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 2>/dev/null", width: 24, height: 3)
        var screen = ""
        try pane.waitUntil("the one-line indicator") {
            screen = try pane.capture()
            return screen.contains("100")
        }
        #expect(!screen.contains("====="))  // no picture squeezed into three rows
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 24 })
        let pid = try #require(try pane.programPID(named: "metronome"))
        kill(pid, SIGTERM)
        let outcome = try pane.outcome()
        #expect(outcome.status == 143)
        let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("icanon") && flags.contains("echo"))
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aResizeRedrawsThePictureToTheNewSize() throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 2>/dev/null")
        var before = ""
        try pane.waitUntil("the picture") {
            before = try pane.capture()
            return before.contains("q quit")
        }
        // The base row's first and last columns; tmux alone, shrinking the
        // window, would keep the old picture clipped, not centred in the new width.
        func base(_ screen: String) -> (first: Int, last: Int)? {
            guard let row = screen.split(separator: "\n").first(where: { $0.contains("=====") }),
                  let first = row.firstIndex(of: "="), let last = row.lastIndex(of: "=") else { return nil }
            return (row.distance(from: row.startIndex, to: first), row.distance(from: row.startIndex, to: last))
        }
        let wide = try #require(base(before))
        #expect((78...80).contains(wide.first + wide.last))  // centred in 80 columns
        try pane.resize(width: 50, height: 16)
        var after = ""
        try pane.waitUntil("the picture redrawn centred in 50 columns") {
            after = try pane.capture()
            guard after.contains("q quit"), let narrow = base(after) else { return false }
            return (48...50).contains(narrow.first + narrow.last) && narrow.last - narrow.first < wide.last - wide.first
        }
        #expect(after.split(separator: "\n").allSatisfy { $0.count <= 50 })
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
    }

    /// `--style unicode` reaches the terminal as UTF-8: line drawing, blocks and a braille rod that moves.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func theUnicodeStyleIsDrawnInTheTerminal() throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 --style unicode 2>/dev/null")
        func rod(_ screen: String) -> String { String(screen.unicodeScalars.filter { (0x2800...0x28FF).contains($0.value) }) }
        var first = ""
        try pane.waitUntil("the picture") {
            first = try pane.capture()
            return first.contains("100 bpm") && rod(first).unicodeScalars.count >= 10
        }
        #expect(first.contains("\u{2571}") && first.contains("\u{2572}") && first.contains("\u{2580}\u{2580}\u{2580}") && first.contains("\u{2588}\u{2588}\u{2588}"))
        #expect(!first.contains("===") && !first.contains("###"))
        try pane.waitUntil("the rod to move") { rod(try pane.capture()) != rod(first) }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func thePictureOptionsReachTheDrawnFrames() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("trace.jsonl")
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 120 --duration 1.5 --visual-offset 250 --angle 20 --easing linear --fps 30 --trace \(trace) 2>/dev/null")
        #expect(try pane.outcome().status == 0)
        let frames = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line -> (time: Double, audio: Int64, angle: Double)? in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["type"] as? String == "frame" else { return nil }
            return ((object["time"] as! NSNumber).doubleValue, (object["audioFrame"] as! NSNumber).int64Value,
                    (object["angle"] as! NSNumber).doubleValue)
        }
        let motion = PendulumMotion(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!), amplitude: 20, easing: .linear)
        for frame in frames {
            #expect(abs(frame.angle - motion.angle(atFrame: Double(frame.audio))) < 1e-9)
            #expect(abs(frame.angle) <= 20)
        }
        // The picture starts 250 ms (12000 frames) behind the sound.
        #expect(try #require(frames.first).audio <= -11_000)
        // With no sound card the picture's clock is linear in time too (no steps at each silent period),
        // once the first periods are out.
        let playing = frames.filter { $0.audio > -12_000 + 8_192 }
        let span = try #require(playing.last).time - playing[0].time
        let slope = Double(playing.last!.audio - playing[0].audio) / span
        #expect(abs(slope - 48_000) < 480, "\(slope) frames/s")
        for frame in playing {
            let line = Double(playing[0].audio) + (frame.time - playing[0].time) * slope
            #expect(abs(Double(frame.audio) - line) < 240, "\(Double(frame.audio) - line) frames off the line")
        }
        // 30 pictures a second, not 60.
        let seconds = try #require(frames.last).time - frames[0].time
        let rate = Double(frames.count - 1) / seconds
        #expect(rate > 25 && rate < 35, "\(rate) frames/s")
    }
}
