import Foundation
import Testing

/// A JACK server on the dummy driver (real time, no sound card), `jack_thru`
/// passing audio through, and ALSA's jack plugin as the metronome's device
/// (`loopback`; `plugloopback` is ALSA's recipe, `plug` in front of it):
/// the real ALSA playback path, recorded by `jack_rec` on the far side.
package final class JackLoopback {
    package static let tools = ["/usr/bin/jackd", "/usr/bin/jack_thru", "/usr/bin/jack_rec", "/usr/bin/jack_lsp", "/usr/bin/jack_wait"]
    package static let plugin = "/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_jack.so"
    package static var isInstalled: Bool {
        (tools + [plugin]).allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    package let home = TemporaryDirectory()
    package let server = "metronome-test-\(getpid())"
    package let environment: [String: String]
    private var processes: [Process] = []
    package let serverLog: String

    /// `realTime`: jackd runs its cycle at SCHED_FIFO, as a studio's does (root has it here), and
    /// its clients' JACK threads with it: a test that loads both cores on purpose must not starve
    /// the server. Otherwise `--no-realtime`, as most tests have always run.
    package init(realTime: Bool = false) throws {
        environment = ["HOME": home.path, "JACK_DEFAULT_SERVER": server, "JACK_NO_AUDIO_RESERVATION": "1"]
        serverLog = home.file("jackd.log")
        try """
            pcm.loopback {
                type jack
                playback_ports {
                    0 jack_thru:input_1
                }
            }
            pcm.plugloopback {
                type plug
                slave.pcm "loopback"
            }
            """.write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)
        try Self.startingAServer {
            try start("/usr/bin/jackd", ["-n", server, realTime ? "--realtime" : "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "1024"],
                      log: serverLog)
            guard try Self.waitForServer(environment: environment) else { throw LoopbackError.notReady("jackd did not start: \(try log())") }
        }
        try start("/usr/bin/jack_thru", [], log: home.file("thru.log"))
        try waitForPort("jack_thru:output_1")
    }

    package enum LoopbackError: Error { case notReady(String) }

    /// Servers killed without cleanup leave `jack*` entries in POSIX shared
    /// memory that stop new servers; remove them while no jackd runs.
    package static func removeStaleRegistrations() {
        holdingTheSharedMemory(removeStaleRegistrationsHeld)
    }

    /// Starts a jackd in `start`, which returns once the server runs, after removing stale
    /// registrations. Test processes run side by side (`scripts/test`'s JACK groups): holding
    /// the machine's lock on /dev/shm, no other removes a server's memory while it starts.
    package static func startingAServer(_ start: () throws -> Void) throws {
        try holdingTheSharedMemory {
            removeStaleRegistrationsHeld()
            try start()
        }
    }

    /// The server registry stays while any process maps it: libjack attaches it once per
    /// process, for good, and an in-process client (`JackClientTests`) could not open on the
    /// next server if it were replaced ("status 0x21").
    private static func removeStaleRegistrationsHeld() {
        let running = (try? run("/usr/bin/pgrep", ["-x", "jackd"]))?.status == 0
        guard !running, let names = try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm") else { return }
        let registry = "jack-shm-registry"
        let mapped = anyProcessMaps("/dev/shm/\(registry)")
        for name in names where name.hasPrefix("jack") && !(mapped && name == registry) {
            try? FileManager.default.removeItem(atPath: "/dev/shm/\(name)")
        }
    }

    /// Whether a process of this machine maps `path` (every process's maps are readable as root;
    /// those that are not are taken as mapping it).
    private static func anyProcessMaps(_ path: String) -> Bool {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.contains { name in
            guard name.allSatisfy(\.isNumber) else { return false }
            // Read to its end: /proc's files show a size of 0. A process gone since maps nothing.
            guard let handle = FileHandle(forReadingAtPath: "/proc/\(name)/maps") else { return false }
            defer { try? handle.close() }
            guard let maps = try? handle.readToEnd() else { return true }
            return String(decoding: maps, as: UTF8.self).contains(path)
        }
    }

    /// Runs `body` holding an exclusive `flock` on /dev/shm, which every test process that starts
    /// or cleans up after a jackd takes.
    private static func holdingTheSharedMemory(_ body: () throws -> Void) rethrows {
        let directory = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            while flock(directory, LOCK_EX) != 0 && errno == EINTR {}
        }
        defer { if directory >= 0 { close(directory) } }  // the lock goes with the descriptor
        try body()
    }

    private func start(_ executable: String, _ arguments: [String], log: String) throws {
        processes.append(try launch(executable, arguments, log: log))
    }

    /// Starts a program in the server's environment, its output to `log`.
    package func launch(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        try launchLogged(executable, arguments, environment: environment, log: log)
    }

    /// Polls the server's port list (at most 10 s) until `port` exists, or,
    /// with `connectedTo`, until it is connected to that port.
    package func waitForPort(_ port: String, connectedTo peer: String? = nil) throws {
        let ready = try waitUntil(seconds: 10, every: .milliseconds(50)) {
            let listing = try Self.listPorts(peer == nil ? [] : ["-c"], environment: environment)
            let lines = listing.split(separator: "\n").map(String.init)
            guard let peer else { return lines.contains(port) }
            // `jack_lsp -c` lists each port, then its connections indented.
            guard let index = lines.firstIndex(of: port) else { return false }
            return lines[(index + 1)...].prefix(while: { $0.hasPrefix(" ") }).contains { $0.trimmingCharacters(in: .whitespaces) == peer }
        }
        guard ready else { throw LoopbackError.notReady("port \(port) never appeared or connected") }
    }

    /// Asks every 20 ms (at most 10 s) whether the server `environment` names is
    /// running; says whether it came up. `jack_wait -w` asks once a second, and a
    /// server on the dummy driver is up in about 0.2 s.
    package static func waitForServer(environment: [String: String]) throws -> Bool {
        try waitUntil(seconds: 10, every: .milliseconds(20)) {
            try run("/usr/bin/jack_wait", ["-c"], environment: environment).standardOutput == "running\n"
        }
    }

    /// What `jack_lsp ARGUMENTS` prints on the server `environment` names; nothing
    /// if it has not ended in 10 s. Once, in a CI rehearsal, a jack_lsp waited on
    /// a futex in libjack for 16 minutes while a client came up: the wait for a
    /// port asks again instead of hanging the run.
    package static func listPorts(_ arguments: [String], environment: [String: String]) throws -> String {
        try run("/usr/bin/timeout", ["-k", "2", "10", "/usr/bin/jack_lsp"] + arguments, environment: environment).standardOutput
    }

    /// Records `jack_thru`'s output for `seconds` while `body` runs; returns the recording.
    package func record(seconds: Int, while body: () throws -> Void) throws -> [Float] {
        let file = home.file("recording.wav")
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/jack_rec")
        recorder.arguments = ["-f", file, "-d", "\(seconds)", "-b", "16", "jack_thru:output_1"]
        recorder.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = FileHandle.nullDevice
        try recorder.runAsAShellWould()
        try waitForPort("jack_thru:output_1", connectedTo: "jackrec:input1")
        try body()
        recorder.waitUntilExit()
        return try readSoundFile(file).samples
    }

    /// Builds `Tests/Tools/jack_stamped_rec.c` (a recorder that places each
    /// cycle by JACK's frame time, and can stop a process) with the Swift
    /// toolchain's clang; returns the program's path.
    package func buildStampedRecorder() throws -> String {
        try Self.buildTool("jack_stamped_rec", into: home.path, flags: ["-ljack"])
    }

    /// Builds `Tests/Tools/NAME.c` with the Swift toolchain's clang (or cc),
    /// linked with `flags`, into `directory`; returns the program's path.
    package static func buildTool(_ name: String, into directory: String, flags: [String]) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/\(name).c").path
        let program = "\(directory)/\(name)"
        let compiler = try #require(Self.compiler, "no clang or cc on PATH")
        let built = try run(compiler, ["-O2", "-o", program, source] + flags)
        try #require(built.status == 0, "cannot build \(name).c: \(built.standardError)")
        return program
    }

    package static var compiler: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for name in ["clang", "cc"] {
            for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    /// Whether the recorder can be built: JACK's headers and a C compiler.
    package static var canBuildRecorder: Bool { FileManager.default.fileExists(atPath: "/usr/include/jack/jack.h") && compiler != nil }

    /// The JACK server's process.
    package var serverProcess: Process? { processes.first }

    /// Stops the JACK server, as when the sound server goes away mid-run.
    package func stopServer() {
        guard let server = processes.first, server.isRunning else { return }
        server.terminate()
        server.waitUntilExit()
    }

    package func log() throws -> String { (try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? "" }

    /// Whether jackd itself reported an xrun: a loaded machine, not the metronome.
    package var serverHadXrun: Bool { ((try? log()) ?? "").lowercased().contains("xrun") }

    deinit {
        endAll(processes)
        Self.removeStaleRegistrations()
    }
}
