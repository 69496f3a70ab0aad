import Foundation
import Glibc

/// A private PipeWire session with no sound card, as on a headless desktop:
/// a null sink (48 kHz, stereo) made the default, with ALSA's `default` and
/// `pipewire` devices (pipewire-alsa) and `pulse` (libasound2-plugins, into
/// pipewire-pulse) playing into it, and a recorder stamped by the graph's clock
/// (`Tests/Tools/pw_stamped_rec.c`) recording what reaches it.
///
/// Everything lives in a fresh directory (XDG_RUNTIME_DIR, XDG_CONFIG_HOME)
/// with its own session bus, so tests never meet a user's session or each
/// other's; deinit stops what it started and removes the directory.
/// PipeWire runs as root here with nothing more than XDG_RUNTIME_DIR.
package final class PipeWireSession {
    package static let tools = ["/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pipewire-pulse", "/usr/bin/wpctl",
                        "/usr/bin/pw-cli", "/usr/bin/pw-link", "/usr/bin/dbus-daemon", "/usr/bin/pactl"]
    package static let plugins = ["/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pipewire.so",
                          "/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pulse.so"]
    package static let headers = ["/usr/include/pipewire-0.3/pipewire/pipewire.h", "/usr/include/sndfile.h"]
    package static var isInstalled: Bool {
        (tools + plugins + headers).allSatisfy { FileManager.default.fileExists(atPath: $0) } && JackLoopback.compiler != nil
    }
    package static let sink = "metronome_null_sink"

    package let home: String
    package let environment: [String: String]
    private var processes: [Process] = []
    private var server: Process?
    private var busProcess: pid_t = 0

    package enum SessionError: Error { case notReady(String) }

    package init() throws {
        var template = Array("/tmp/metronome-pipewire-XXXXXX".utf8CString)
        home = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
        let runtime = "\(home)/runtime", config = "\(home)/config/pipewire/pipewire.conf.d"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try """
            context.objects = [
                { factory = adapter
                  args = {
                      factory.name     = support.null-audio-sink
                      node.name        = "\(Self.sink)"
                      node.description = "Null sink for the metronome's tests"
                      media.class      = "Audio/Sink"
                      audio.rate       = 48000
                      audio.position   = [ FL FR ]
                  }
                }
            ]
            """.write(toFile: "\(config)/10-null-sink.conf", atomically: true, encoding: .utf8)
        var environment = ["XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": "\(home)/config"]
        // A session bus of our own (WirePlumber needs one): it forks, and prints its address and pid.
        let busFile = "\(home)/bus"
        // posix_spawn and waitpid: Foundation's Process would wait on the descriptors the forked daemon keeps.
        // Its socket in the session's folder, removed with it (under /tmp, a killed bus leaves its socket).
        let forked = Self.spawnAndWait("/usr/bin/dbus-daemon", ["--session", "--fork", "--print-address=1", "--print-pid=1",
                                                                "--address=unix:dir=\(runtime)"],
                                       environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, output: busFile)
        let printed = (try? String(contentsOfFile: busFile, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        guard forked == 0, printed.count >= 2, let pid = pid_t(printed[1]) else {
            throw SessionError.notReady("dbus-daemon did not start: \(printed)")
        }
        busProcess = pid
        environment["DBUS_SESSION_BUS_ADDRESS"] = printed[0]
        self.environment = environment

        server = try start("/usr/bin/pipewire", [], log: "pipewire.log")
        try poll("pipewire answering") { try self.tool("pw-cli", ["info", "0"]).status == 0 }
        _ = try start("/usr/bin/wireplumber", [], log: "wireplumber.log")
        _ = try start("/usr/bin/pipewire-pulse", [], log: "pipewire-pulse.log")
        try poll("the null sink the default") {
            let status = try self.tool("wpctl", ["status"]).standardOutput
            guard let line = status.split(separator: "\n").first(where: { $0.contains("Null sink for the metronome") }),
                  let id = line.split(whereSeparator: { !$0.isNumber }).first else { return false }
            return try self.tool("wpctl", ["set-default", String(id)]).status == 0
                && self.tool("wpctl", ["inspect", "@DEFAULT_AUDIO_SINK@"]).standardOutput.contains("node.name = \"\(Self.sink)\"")
        }
        try poll("pipewire-pulse serving the sink") {
            try self.tool("pactl", ["info"]).standardOutput.contains("Default Sink: \(Self.sink)")
        }
    }

    package func file(_ name: String) -> String { "\(home)/\(name)" }

    /// Starts recording the sink (float WAV, mono, 48 kHz, at most `seconds`) into `file`, each
    /// cycle at the graph clock's position: a cycle the recorder missed on a loaded machine is
    /// silence in the file, not a shift of every later click. Returns once it is linked and running.
    package func startRecording(to file: String, seconds: Int = 120) throws -> Process {
        let flags = try tool("pkg-config", ["--cflags", "--libs", "libpipewire-0.3", "sndfile"]).standardOutput
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let program = try JackLoopback.buildTool("pw_stamped_rec", into: home, flags: flags)
        let log = "\((file as NSString).lastPathComponent).log"
        let recorder = try start(program, [Self.sink, String(seconds), file], log: log)
        try poll("the recorder linked to the sink") {
            guard recorder.isRunning else { throw SessionError.notReady("the recorder ended: \(self.log(log))") }
            return self.log(log).contains("recording")
        }
        return recorder
    }

    /// Stops a recorder (it finishes its file on SIGINT) and reads what it recorded.
    package func finish(_ recorder: Process, file: String) throws -> [Float] {
        recorder.interrupt()
        recorder.waitUntilExit()
        return try readSoundFile(file).samples
    }

    /// The frames a finished recorder missed (the cycles it was not run in time for).
    package func framesTheRecorderMissed(file: String) -> Int {
        let log = self.log("\((file as NSString).lastPathComponent).log")
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("lost ") }) else { return -1 }
        return Int(line.split(separator: " ")[1]) ?? -1
    }

    /// The stretches of cycles a finished recorder missed (`lost N frames in M gaps`).
    package func gapsTheRecorderMissed(file: String) -> Int {
        let log = self.log("\((file as NSString).lastPathComponent).log")
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("lost ") }) else { return -1 }
        let words = line.split(separator: " ")
        return words.count > 4 ? Int(words[4]) ?? -1 : -1
    }

    /// Starts a program in the session's environment, its output to `log` in the session's directory.
    package func start(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        let process = try launchLogged(executable, arguments, environment: environment, log: file(log))
        processes.append(process)
        return process
    }

    /// Stops the PipeWire server for `milliseconds` (SIGSTOP, then SIGCONT), as
    /// a graph starved by a loaded machine: its cycles in the pause are skipped.
    package func pauseServer(milliseconds: UInt32) {
        guard let server, server.isRunning else { return }
        kill(server.processIdentifier, SIGSTOP)
        usleep(milliseconds * 1_000)
        kill(server.processIdentifier, SIGCONT)
    }

    /// Kills the PipeWire server, as when the user's session ends mid-run.
    package func killServer() {
        guard let server, server.isRunning else { return }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    package func log(_ name: String) -> String { (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? "" }

    private func tool(_ name: String, _ arguments: [String]) throws -> RunResult {
        try run("/usr/bin/\(name)", arguments, environment: environment)
    }

    /// Polls `condition` every 50 ms for at most 10 s.
    private func poll(_ what: String, _ condition: () throws -> Bool) throws {
        guard try waitUntil(seconds: 10, every: .milliseconds(50), condition) else {
            throw SessionError.notReady("\(what): timed out; pipewire: \(log("pipewire.log")) wireplumber: \(log("wireplumber.log"))")
        }
    }

    /// posix_spawn with stdout to `output`, then waitpid for that process alone.
    private static func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String], output: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status
    }

    deinit {
        endAll(processes)
        if busProcess > 0 { kill(busProcess, SIGKILL) }
        try? FileManager.default.removeItem(atPath: home)
    }
}
