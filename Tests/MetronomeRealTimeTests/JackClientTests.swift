import CAllocationCounter
import Foundation
import Synchronization
import Testing
@testable import MetronomeAudio
import MetronomeTestSupport

/// The native JACK client against a real server on the dummy driver
/// (`JackLoopback`), opened in this process: `JACK_DEFAULT_SERVER` is set
/// here for each open, as a user's environment would name the server.
@Suite(.serialized) struct JackClientTests {
    static let required = RealTimeLoopbackTests.required
    static let canRun = (JackLoopback.isInstalled && FileManager.default.fileExists(atPath: "/usr/bin/pgrep")) || required

    @Test(.enabled(if: canRun))
    func noServerRunningIsServerUnavailableAndNoneIsStarted() throws {
        // A .jackdrc that would start a server by that name, were libjack allowed to.
        let server = "metronome-absent-\(getpid())"
        let home = TemporaryDirectory()
        try "/usr/bin/jackd -n \(server) --no-realtime -d dummy\n".write(toFile: home.file(".jackdrc"), atomically: true, encoding: .utf8)
        let restore = [setEnvironment("JACK_DEFAULT_SERVER", server), setEnvironment("HOME", home.path)]
        defer { restore.forEach { $0() } }
        #expect {
            _ = try JackClient(name: "metronome")
        } throws: { error in
            guard let error = error as? JackError else { return false }
            return error.kind == .serverUnavailable && error.message == "no JACK server '\(server)' is running (the metronome never starts one)"
        }
        let started = try run("/usr/bin/pgrep", ["-f", server])
        #expect(started.status == 1, "a server was started: \(started.standardOutput)")
        if started.status == 0 { _ = try? run("/usr/bin/pkill", ["-f", server]) }
    }

    /// `scripts/test` runs two JACK groups side by side, each test process cleaning up
    /// after its servers. Another test process's clean-up, made while no jackd runs, keeps
    /// the server registry this one has mapped since its first client: removed, the next
    /// server would write a new one, and clients in this process could not open on it
    /// ("status 0x21", five of these tests in a CI rehearsal).
    @Test(.enabled(if: canRun))
    func anotherTestProcessCleaningUpLeavesThisOneItsClients() throws {
        do {
            let loopback = try JackLoopback()
            _ = try openClient(on: loopback)
        }
        let bundle = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let other = try run(bundle, ["--testing-library", "swift-testing", "--filter", "JackClientTests/cleanUpAsAnotherTestProcess"],
                            environment: ["METRONOME_TEST_JACK_CLEAN_UP": "1"])
        let said = other.standardOutput + other.standardError
        #expect(other.status == 0 && said.contains("Test run with 1 test"), "\(said)")
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        #expect(client.sampleRate == 48_000)
    }

    /// Not a test on its own: the clean-up `anotherTestProcessCleaningUpLeavesThisOneItsClients`
    /// has another test process make.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["METRONOME_TEST_JACK_CLEAN_UP"] == "1"))
    func cleanUpAsAnotherTestProcess() {
        JackLoopback.removeStaleRegistrations()
    }

    @Test(.enabled(if: canRun))
    func anOutputNamedOutIsListedByTheServer() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        try client.activate(process: ConstantWriter(ports: [out], clock: client.clock, value: 0))
        #expect(client.name == "metronome")
        #expect(out.name == "metronome:out")
        #expect(client.sampleRate == 48_000)
        #expect(client.bufferSize == 1024)
        #expect(try ports(loopback).contains("metronome:out"))
    }

    @Test(.enabled(if: canRun))
    func splitPortsAreListedByTheServer() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let names = ["bell", "beat", "sub", "poly"]
        let split = try names.map { name throws(JackError) in try client.registerOutput(name) }
        try client.activate(process: ConstantWriter(ports: split, clock: client.clock, value: 0))
        #expect(split.map(\.name) == names.map { "metronome:\($0)" })
        let listed = try ports(loopback)
        for name in names { #expect(listed.contains("metronome:\(name)"), "\(name)") }
    }

    @Test(.enabled(if: canRun))
    func anOutputConnectsToThePortNamed() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        try client.activate(process: ConstantWriter(ports: [out], clock: client.clock, value: 0))
        try client.connectToPlayback([out], destinations: ["jack_thru:input_1"])
        try loopback.waitForPort("metronome:out", connectedTo: "jack_thru:input_1")
        // Made again, the connection is no failure.
        try client.connect(out, to: "jack_thru:input_1")
    }

    @Test(.enabled(if: canRun))
    func aPortThatIsNotThereIsAConnectionErrorNamingIt() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        try client.activate(process: ConstantWriter(ports: [out], clock: client.clock, value: 0))
        #expect(throws: JackError(.connection, "there is no JACK port 'mixer:headphones' to connect 'metronome:out' to (jack_lsp lists them)")) {
            try client.connectToPlayback([out], destinations: ["mixer:headphones"])
        }
    }

    @Test(.enabled(if: canRun))
    func byDefaultTheOutputGoesToBothPhysicalPlaybackPorts() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        try client.activate(process: ConstantWriter(ports: [out], clock: client.clock, value: 0))
        #expect(client.physicalPlaybackPorts() == ["system:playback_1", "system:playback_2"])
        #expect(client.playbackLatency(of: out) == 0...0)
        try client.connectToPlayback([out], destinations: nil)
        try loopback.waitForPort("metronome:out", connectedTo: "system:playback_1")
        try loopback.waitForPort("metronome:out", connectedTo: "system:playback_2")
        // The dummy driver's playback latency, a period, seen through the connection.
        let latency = waitUntil(seconds: 5, every: .milliseconds(20)) { client.playbackLatency(of: out).lowerBound >= 1024 }
        #expect(latency, "\(client.playbackLatency(of: out))")
    }

    @Test(.enabled(if: canRun))
    func noDestinationsLeaveTheOutputUnconnected() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        try client.activate(process: ConstantWriter(ports: [out], clock: client.clock, value: 0))
        try client.connectToPlayback([out], destinations: [])
        let listing = try JackLoopback.listPorts(["-c", "metronome:out"], environment: loopback.environment)
        #expect(listing == "metronome:out\n")
    }

    @Test(.enabled(if: canRun))
    func theProcessCallbackRunsAndWhatItWritesIsRecorded() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        let writer = ConstantWriter(ports: [out], clock: client.clock, value: 0.25)
        try client.activate(process: writer)
        #expect(waitUntil(seconds: 5, every: .milliseconds(10)) { writer.cycles.load(ordering: .relaxed) >= 10 })
        try client.connect(out, to: "jack_thru:input_1")
        try loopback.waitForPort("metronome:out", connectedTo: "jack_thru:input_1")
        let recording = try loopback.record(seconds: 2) {}
        let constant = recording.filter { $0 == 0.25 }.count
        #expect(recording.count >= 48_000, "\(recording.count) frames")
        #expect(constant >= recording.count - 2048, "\(constant) of \(recording.count) frames at 0.25")
        // The cycles are JACK's: each one a period further on its frame counter.
        let frames = writer.lastCycleFrames.load(ordering: .relaxed)
        #expect(frames.first != 0 && frames.second &- frames.first == 1024, "\(frames)")
    }

    @Test(.enabled(if: canRun))
    func aServerThatStopsShutsTheClientDownWithItsReason() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let out = try client.registerOutput("out")
        let writer = ConstantWriter(ports: [out], clock: client.clock, value: 0)
        try client.activate(process: writer)
        #expect(waitUntil(seconds: 5, every: .milliseconds(10)) { writer.cycles.load(ordering: .relaxed) >= 1 })
        #expect(!client.isShutDown && client.shutdownReason == nil)
        loopback.stopServer()
        #expect(waitUntil(seconds: 5, every: .milliseconds(10)) { client.isShutDown })
        let reason = try #require(client.shutdownReason)
        #expect(!reason.isEmpty)
        #expect(throws: JackError(.serverGone, "the JACK server shut the client 'metronome' down: \(reason)")) { try client.checkServer() }
        client.close()
    }

    @Test(.enabled(if: canRun && metronome_counting_available() != 0))
    func theProcessCallbackAllocatesNothing() throws {
        let loopback = try JackLoopback()
        let client = try openClient(on: loopback)
        let split = try ["bell", "beat", "sub", "poly"].map { name throws(JackError) in try client.registerOutput(name) }
        let writer = ConstantWriter(ports: split, clock: client.clock, value: 0.5, countAllocationsOver: 2...100)
        try client.activate(process: writer)
        let counted = waitUntil(seconds: 10, every: .milliseconds(20)) { writer.allocations.load(ordering: .acquiring) >= 0 }
        try #require(counted, "the callback ran \(writer.cycles.load(ordering: .relaxed)) cycles")
        #expect(writer.allocations.load(ordering: .acquiring) == 0)
    }

    // MARK: - Helpers

    /// A client named `metronome` on `loopback`'s server; the environment as it was once it is open.
    private func openClient(on loopback: JackLoopback) throws(JackError) -> JackClient {
        let restore = setEnvironment("JACK_DEFAULT_SERVER", loopback.server)
        defer { restore() }
        return try JackClient(name: "metronome")
    }

    private func ports(_ loopback: JackLoopback) throws -> [String] {
        try JackLoopback.listPorts([], environment: loopback.environment).split(separator: "\n").map(String.init)
    }

    /// Sets an environment variable; returns what puts the old value back.
    private func setEnvironment(_ name: String, _ value: String) -> () -> Void {
        let old = getenv(name).map { String(cString: $0) }
        setenv(name, value, 1)
        return { if let old { setenv(name, old, 1) } else { unsetenv(name) } }
    }
}

/// Writes `value` into every port each cycle, counts the cycles, keeps the
/// frame counter of the last two, and counts what the callback's thread
/// allocates from one cycle to another.
private final class ConstantWriter: JackProcessor {
    let ports: [JackPort]
    let clock: JackClock
    let value: Float
    let counting: ClosedRange<Int>?
    let cycles = Atomic<Int>(0)
    /// The allocations counted, -1 until counted.
    let allocations = Atomic<Int>(-1)
    let lastCycleFrames = Atomic<FramePair>(FramePair(first: 0, second: 0))

    init(ports: [JackPort], clock: JackClock, value: Float, countAllocationsOver counting: ClosedRange<Int>? = nil) {
        self.ports = ports
        self.clock = clock
        self.value = value
        self.counting = counting
    }

    func process(frames: UInt32) -> Int32 {
        let cycle = cycles.add(1, ordering: .relaxed).newValue
        if cycle == counting?.lowerBound { metronome_counting_begin() }
        // By index: a debug build's `for port in ports` allocates once an element.
        for index in ports.indices { ports[index].audioBuffer(frames: frames).update(repeating: value) }
        let times = clock.cycleTimes()
        let start = clock.lastFrameTime()
        if times?.frames == start {
            lastCycleFrames.store(FramePair(first: lastCycleFrames.load(ordering: .relaxed).second, second: start), ordering: .relaxed)
        }
        if cycle == counting?.upperBound { allocations.store(Int(metronome_counting_end()), ordering: .releasing) }
        return 0
    }
}

/// Two frame counters in one word, for an `Atomic`.
private struct FramePair: AtomicRepresentable, CustomStringConvertible {
    var first: UInt32
    var second: UInt32

    typealias AtomicRepresentation = UInt64.AtomicRepresentation
    static func encodeAtomicRepresentation(_ value: FramePair) -> AtomicRepresentation {
        UInt64.encodeAtomicRepresentation(UInt64(value.first) << 32 | UInt64(value.second))
    }
    static func decodeAtomicRepresentation(_ storage: consuming AtomicRepresentation) -> FramePair {
        let word = UInt64.decodeAtomicRepresentation(storage)
        return FramePair(first: UInt32(truncatingIfNeeded: word >> 32), second: UInt32(truncatingIfNeeded: word))
    }
    var description: String { "\(first), \(second)" }
}
