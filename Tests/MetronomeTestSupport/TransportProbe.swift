import Foundation
import Testing

/// `Tests/Tools/jack_transport_probe.py` (python3-jack-client) run on a JACK
/// loopback's server: a recorder that notes the transport under each click, a
/// timebase master of exact fractions driven by lines on its input, a reader
/// of the transport every cycle. Its output goes to a log the test polls.
package final class TransportProbe {
    package static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/jack_transport_probe.py").path
    /// Debian's python3-jack-client, for the system's Python.
    package static var isInstalled: Bool { FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jack.py") }

    private let process: Process
    private let input: Pipe
    package let logPath: String

    /// The probe with `arguments`; with `executable`, that program instead (`jack_transport`), driven the same way.
    package convenience init(on loopback: JackLoopback, _ arguments: [String], name: String, executable: String? = nil) throws {
        try self.init(environment: loopback.environment, home: loopback.home, arguments, name: name, executable: executable)
    }

    /// The probe on the server `environment` names (LinkHut's), its log in `home`.
    package init(environment: [String: String], home: TemporaryDirectory, _ arguments: [String], name: String, executable: String? = nil) throws {
        logPath = home.file("\(name).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? "/usr/bin/python3")
        process.arguments = executable == nil ? [Self.script] + arguments : arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        input = Pipe()
        process.standardInput = input
        process.standardOutput = log
        process.standardError = log
        try process.runAsAShellWould()
    }

    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    package var lines: [String] { log.split(separator: "\n").map(String.init) }

    /// Polls the log (at most `seconds`) until `condition` holds of its lines.
    package func wait(for what: String, seconds: Double = 10, _ condition: ([String]) -> Bool) throws {
        guard waitUntil(seconds: seconds, every: .milliseconds(20), { condition(lines) }) else {
            throw ProbeError.timedOut("\(what): \(log)")
        }
    }

    /// Waits for a line equal to `line`.
    package func wait(forLine line: String, seconds: Double = 10) throws {
        try wait(for: line, seconds: seconds) { $0.contains(line) }
    }

    /// The clicks the recorder reported so far.
    package var clicks: Int {
        lines.last { $0.hasPrefix("clicks ") }.flatMap { Int($0.dropFirst(7)) } ?? 0
    }

    /// Waits until the recorder has reported `count` clicks.
    package func wait(forClicks count: Int, seconds: Double = 15) throws {
        try wait(for: "\(count) clicks", seconds: seconds) { _ in clicks >= count }
    }

    /// Sends a command line to the master and waits until it has done it.
    package func command(_ line: String) throws {
        let done = lines.filter { $0 == "did \(line)" }.count
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        try wait(for: "did \(line)") { $0.filter { $0 == "did \(line)" }.count > done }
    }

    /// Sends a line and returns at once (a program that says nothing back).
    package func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes its input (the master quits, the recorder stops) and waits for it to end.
    @discardableResult
    package func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Interrupts it (SIGINT: `jack_midi_dump` then writes out what it has and leaves) and waits for it to end.
    @discardableResult
    package func interrupt() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }

    package enum ProbeError: Error { case timedOut(String) }

    /// The JSON lines the recorder or the reader wrote.
    package static func rows(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
