import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeSupport
import MetronomeTestSupport

/// The audio thread asks for real-time priority and locked memory, and plays on quietly without them.
@Suite struct RealTimeSchedulingTests {
    /// The thread of `pid` named `name`, from /proc.
    func thread(named name: String, of pid: Int32) -> pid_t? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.first { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.flatMap { pid_t($0) }
    }

    /// Not under a sanitizer: its shadow memory cannot be locked.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer's shadow memory cannot be locked"))
    func whereAllowedTheAudioThreadRunsAtRealTimePriority() throws {
        try #require(geteuid() == 0, "the tests run as root, who may ask for real time")
        let directory = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: metronomeBinary())
        process.arguments = ["--bpm", "120", "--bars", "30", "--device", "null", "--verbose"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errPath = directory.file("err")
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(10)
        var audio: pid_t?
        waitUntil(deadline, every: .milliseconds(10)) {
            audio = thread(named: "metronome-audio", of: process.processIdentifier)
            return audio != nil
        }
        let tid = try #require(audio)
        var policy = sched_getscheduler(tid)
        // The priority is set just after the thread starts: wait for it, bounded.
        waitUntil(deadline, every: .milliseconds(10)) {
            policy = sched_getscheduler(tid)
            return policy == SCHED_FIFO
        }
        #expect(policy == SCHED_FIFO)
        var parameters = sched_param()
        sched_getparam(tid, &parameters)
        #expect(parameters.sched_priority == RealTimeScheduling.priority)
        let locked = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("VmLck:") }
        #expect(locked.map { !$0.hasSuffix(" 0 kB") } == true, "memory locked: \(locked ?? "")")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        #expect(errors.contains("metronome: audio thread: real-time priority 20 (SCHED_FIFO), memory locked\n"), "\(errors)")
    }

    @Test func whereRefusedItPlaysOnAtNormalPriority() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) is needed")
        // Without CAP_SYS_NICE and with no rtprio limit, real time is refused.
        let result = try run("/usr/bin/setpriv", ["--bounding-set=-sys_nice", "/usr/bin/prlimit", "--rtprio=0",
                                                   metronomeBinary(), "--bpm", "240", "--bars", "1", "--device", "null", "--verbose"])
        #expect(result.status == 0)
        #expect(result.standardError.contains("metronome: audio thread: normal priority (real-time refused: Operation not permitted)"),
                "\(result.standardError)")
        #expect(!result.standardError.contains("error"))
        // Without --verbose it says nothing about it.
        let quiet = try run("/usr/bin/setpriv", ["--bounding-set=-sys_nice", "/usr/bin/prlimit", "--rtprio=0",
                                                  metronomeBinary(), "--bpm", "240", "--bars", "1", "--device", "null", "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.standardError.isEmpty, "\(quiet.standardError)")
    }
}
