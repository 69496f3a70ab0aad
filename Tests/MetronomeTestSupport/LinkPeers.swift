import Foundation
import Synchronization
import Testing

/// A program the test talks to: keys or lines on its stdin (kept open: LinkHut
/// spins on end of input), everything it prints collected as lines (split at
/// `\r` too, as LinkHut redraws its status line with one).
package final class PeerProcess {
    /// What the program printed, complete lines only, filled by the reader thread.
    package final class Lines: Sendable {
        package let lines = Mutex<[String]>([])
    }

    private let process: Process
    private let input: FileHandle
    private let output = Lines()
    private let reader: Thread
    package let name: String

    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], name: String) throws {
        self.name = name
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        input = stdin.fileHandleForWriting
        let source = stdout.fileHandleForReading
        let output = self.output
        reader = Thread {
            var partial = ""
            while true {
                let data = source.availableData
                if data.isEmpty { break }
                partial += String(decoding: data, as: UTF8.self)
                let pieces = partial.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }
                partial = String(pieces.last ?? "")
                let complete = pieces.dropLast().map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                output.lines.withLock { $0 += complete }
            }
        }
        try process.runAsAShellWould()
        reader.start()
    }

    package var lines: [String] { output.lines.withLock { $0 } }
    package var isRunning: Bool { process.isRunning }

    /// Writes `text` to its stdin; nothing if it has gone. SIGPIPE, which
    /// a write to a program that exited raises, is blocked on this thread
    /// for the write and taken back after it, so it never ends the tests.
    package func send(_ text: String) {
        var pipe = sigset_t(), previous = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        var pending = sigset_t()
        sigpending(&pending)
        let alreadyPending = sigismember(&pending, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipe, &previous)
        try? input.write(contentsOf: Data(text.utf8))
        var immediately = timespec()
        if !alreadyPending { _ = sigtimedwait(&pipe, nil, &immediately) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// Polls every 20 ms, at most `seconds`, until `condition` holds; fails the test with the output if it never does.
    @discardableResult
    package func waitUntil(_ what: String, seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        if MetronomeTestSupport.waitUntil(seconds: seconds, every: .milliseconds(20), condition) { return true }
        Issue.record("\(name): \(what) within \(seconds) s; it printed:\n\(lines.suffix(12).joined(separator: "\n"))")
        return false
    }

    /// Asks it to leave with `quit`, then insists after 3 s.
    package func stop(sending quit: String) {
        send(quit)
        MetronomeTestSupport.waitUntil(seconds: 3, every: .milliseconds(20)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.close()
    }
}

/// A line of LinkHut's status: `enabled | num peers | quantum | start stop sync | tempo | beats | metro`.
package struct LinkHutStatus: Equatable {
    package let enabled: Bool
    package let peers: Int
    package let playing: Bool
    /// Whether LinkHut shares start and stop (its `s` key).
    package let startStopSync: Bool
    package let tempo: Double
    /// The session's beat as LinkHut shows it.
    package let beats: Double?

    package init?(_ line: String) {
        let fields = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count == 7, let peers = Int(fields[1]), let tempo = Double(fields[4]) else { return nil }
        enabled = fields[0] == "yes"
        self.peers = peers
        playing = fields[3].hasSuffix("[playing]")
        startStopSync = fields[3].hasPrefix("yes")
        self.tempo = tempo
        beats = Double(fields[5])
    }
}

/// LinkHut (Debian's ableton-link-utils), Ableton's reference Link peer,
/// headless on a JACK server of its own (the dummy driver), driven by its keys:
/// `a` Link on/off, Space start/stop, `w`/`e` tempo −1/+1.
package final class LinkHutPeer {
    package static let program = "/usr/bin/LinkHut"
    package static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: program) && FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd")
    }

    package let home = TemporaryDirectory()
    package let environment: [String: String]
    private let server: Process
    package let hut: PeerProcess

    /// Starts the server and LinkHut (through `ip netns exec` into `namespace`, if given), Link still off.
    package init(namespace: String? = nil) throws {
        let name = "metronome-link-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        environment = ["HOME": home.path, "JACK_DEFAULT_SERVER": name, "JACK_NO_START_SERVER": "1", "JACK_NO_AUDIO_RESERVATION": "1"]
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        server.arguments = ["-n", name, "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "1024"]
        server.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let log = home.file("jackd.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        server.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        server.standardError = server.standardOutput
        server.standardInput = FileHandle.nullDevice
        try JackLoopback.startingAServer { [environment] in
            try server.runAsAShellWould()
            guard try JackLoopback.waitForServer(environment: environment) else { throw JackLoopback.LoopbackError.notReady("jackd did not start") }
        }
        self.server = server
        if let namespace {
            hut = try PeerProcess("/bin/ip", ["netns", "exec", namespace, Self.program], environment: environment, name: "LinkHut in \(namespace)")
        } else {
            hut = try PeerProcess(Self.program, [], environment: environment, name: "LinkHut")
        }
        hut.waitUntil("LinkHut shows its status") { status != nil }
    }

    /// The last status line LinkHut printed.
    package var status: LinkHutStatus? { hut.lines.last.flatMap(LinkHutStatus.init) }

    package func press(_ key: Character) { hut.send(String(key)) }

    /// When LinkHut said it had enabled Link.
    private var enabledAt: Date?

    /// Turns Link on and waits until LinkHut says so.
    package func enableLink() {
        press("a")
        hut.waitUntil("LinkHut enables Link") { status?.enabled == true }
        enabledAt = Date()
    }

    /// Waits until LinkHut's session is old enough to win against a newcomer.
    /// Enabling Link starts a new session, and when two meet Link keeps the one
    /// begun more than 500 ms earlier (`SESSION_EPS` in Link's Sessions.hpp);
    /// closer than that, the lower random session id wins, and LinkHut could
    /// adopt the newcomer's tempo. A condition on time itself, so it waits for time.
    package func waitUntilTheSessionCanOnlyBeJoined() {
        guard let enabledAt else { return }
        while Date() < enabledAt.addingTimeInterval(0.7) { usleep(10_000) }
    }

    /// Presses `e` or `w` until LinkHut's tempo is `bpm` (whole numbers from its 120).
    package func setTempo(_ bpm: Double) {
        // A step a press, and a few more: a tempo that never arrives (a peer pulling it back) ends the wait.
        var presses = Int(abs(bpm - (status?.tempo ?? bpm))) + 3
        while let tempo = status?.tempo, tempo != bpm {
            presses -= 1
            guard presses >= 0 else {
                Issue.record("LinkHut's tempo did not reach \(bpm): it shows \(tempo)")
                return
            }
            press(tempo < bpm ? "e" : "w")
            let next = tempo < bpm ? tempo + 1 : tempo - 1
            guard hut.waitUntil("LinkHut's tempo reaches \(next)", { status?.tempo == next }) else { return }
        }
    }

    /// Whether its JACK server (not real-time here) reported an xrun: a loaded machine, not the metronome.
    package var serverHadXrun: Bool {
        ((try? String(contentsOfFile: home.file("jackd.log"), encoding: .utf8)) ?? "").lowercased().contains("xrun")
    }

    deinit {
        hut.stop(sending: "q")
        server.terminate()
        server.waitUntilExit()
        JackLoopback.removeStaleRegistrations()
    }
}

/// Two network namespaces joined by a veth pair in a private subnet
/// (10.213.0.0/24 inside them only), as two machines on one LAN. Made and
/// removed by the test (it runs as root); removing a namespace removes its end
/// of the pair, and with it the pair.
package final class NetworkNamespaces {
    package static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/ip")
    }

    package let names: (String, String)
    package let links: (String, String)

    package init() throws {
        let tag = "\(getpid() % 100_000)"
        names = ("metronome-link-\(tag)-a", "metronome-link-\(tag)-b")
        links = ("mtl\(tag)a", "mtl\(tag)b")  // interface names have at most 15 characters
        for name in [names.0, names.1] { _ = try? ip(["netns", "del", name]) }  // a run killed before its cleanup
        try ip(["netns", "add", names.0])
        try ip(["netns", "add", names.1])
        try ip(["link", "add", links.0, "type", "veth", "peer", "name", links.1])
        for (name, link, address) in [(names.0, links.0, "10.213.0.1/24"), (names.1, links.1, "10.213.0.2/24")] {
            try ip(["link", "set", link, "netns", name])
            try ip(["-n", name, "addr", "add", address, "dev", link])
            try ip(["-n", name, "link", "set", "lo", "up"])
            try ip(["-n", name, "link", "set", link, "up"])
        }
    }

    package enum NamespaceError: Error { case failed(String) }

    @discardableResult
    package func ip(_ arguments: [String]) throws -> String {
        let result = try run("/bin/ip", arguments)
        guard result.status == 0 else { throw NamespaceError.failed("ip \(arguments.joined(separator: " ")): \(result.standardError)") }
        return result.standardOutput
    }

    /// Takes the first namespace's end of the cable down or up, as a network that goes away and comes back.
    package func setFirstLink(up: Bool) throws {
        try ip(["-n", names.0, "link", "set", links.0, up ? "up" : "down"])
    }

    deinit {
        for name in [names.0, names.1] { _ = try? ip(["netns", "del", name]) }
    }
}
