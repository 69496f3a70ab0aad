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

    enum Exit: String, CaseIterable { case q, controlC, sigterm }

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
        case .sigterm:
            let pid = try #require(try pane.programPID(named: "metronome"))
            kill(pid, SIGTERM)
        }
        let outcome = try pane.outcome()
        #expect(outcome.status == [Exit.q: 0, .controlC: 130, .sigterm: 143][exit])
        // Cooked mode with echo, as before.
        let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("icanon") && flags.contains("echo"))
        #expect(!flags.contains("-icanon") && !flags.contains("-echo"))
        // The alternate screen is gone: the pane shows the shell's screen again, not the picture.
        #expect(!(try pane.capture()).contains("q quit"))
    }
}
