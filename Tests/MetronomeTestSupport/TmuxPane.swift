import Foundation

/// A tmux server of its own with one pane running a shell command.
package final class TmuxPane {
    package let socket = "metronome-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    package let directory = TemporaryDirectory()

    /// Runs `command` in a 80x24 pane; afterwards the pane's shell writes the
    /// exit status and `stty -a` into files, so the terminal mode left behind can be read.
    package init(command: String, width: Int = 80, height: Int = 24) throws {
        // The shell traps INT with a handler (not an ignore, which the program would inherit)
        // so that Ctrl-C ends only the program and the shell goes on to record what it left.
        let script = "trap true INT; \(command); echo $? > \(directory.file("status")); stty -a > \(directory.file("stty.tmp")); mv \(directory.file("stty.tmp")) \(directory.file("stty")); sleep 30"
        let result = try run("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "sh", "-c", script],
                         detached: true)
        guard result.status == 0 else { throw TmuxError.failed("tmux new-session exited \(result.status)") }
    }

    package enum TmuxError: Error { case failed(String), timedOut(String) }

    package func capture() throws -> String { try run("/usr/bin/tmux", ["-L", socket, "capture-pane", "-p"]).standardOutput }

    /// What the pane shows with its attributes as escape sequences (reverse video is `ESC[7m`).
    package func captureWithAttributes() throws -> String {
        try run("/usr/bin/tmux", ["-L", socket, "capture-pane", "-e", "-p"]).standardOutput
    }

    /// Resizes the pane's window, as a user dragging the terminal would.
    package func resize(width: Int, height: Int) throws {
        _ = try run("/usr/bin/tmux", ["-L", socket, "resize-window", "-x", "\(width)", "-y", "\(height)"])
    }

    package func send(_ key: String) throws { _ = try run("/usr/bin/tmux", ["-L", socket, "send-keys", key]) }

    /// The pid of the program the pane's shell is running.
    package func programPID(named name: String) throws -> Int32? {
        let shell = try run("/usr/bin/tmux", ["-L", socket, "display", "-p", "#{pane_pid}"]).standardOutput
        let child = try run("/usr/bin/pgrep", ["-P", shell.trimmingCharacters(in: .whitespacesAndNewlines), name]).standardOutput
        return Int32(child.split(separator: "\n").first ?? "")
    }

    /// Polls every 20 ms (at most `seconds`) until `condition` holds.
    /// How much longer a wait may take: `METRONOME_WAIT_SCALE` (`scripts/sanitize` sets 4, for a
    /// program slowed down by a sanitizer beside hundreds of tests run at once), else 1.
    package static let waitScale: Double = ProcessInfo.processInfo.environment["METRONOME_WAIT_SCALE"].flatMap(Double.init).map { max($0, 1) } ?? 1

    package func waitUntil(_ what: String, seconds: Double = 10, _ condition: () throws -> Bool) throws {
        guard try MetronomeTestSupport.waitUntil(seconds: seconds * Self.waitScale, every: .milliseconds(20), condition) else {
            throw TmuxError.timedOut(what)
        }
    }

    /// The exit status and `stty -a` once the program has ended.
    package func outcome(seconds: Double = 10) throws -> (status: Int32, stty: String) {
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
            // And every process of the pane's session: an interactive shell in it took a process group of its own,
            // and one left in a loop (`until …; do sleep …; done`) would spin on after its terminal is gone.
            _ = try? run("/usr/bin/pkill", ["-KILL", "-s", "\(pid)"])
        }
        _ = try? run("/usr/bin/tmux", ["-L", socket, "kill-server"], detached: true)
    }
}
