import Foundation

/// The built `metronome` binary, next to the test bundle.
package func metronomeBinary() -> String {
    let bundle = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
    var directory = bundle.deletingLastPathComponent()
    if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("metronome").path) {
        directory = Bundle.main.bundleURL
    }
    return directory.appendingPathComponent("metronome").path
}

package struct RunResult {
    package let status: Int32
    package let standardOutput: String
    package let standardError: String
}

/// Runs a program to its end and collects what it printed.
/// With `detached`, output goes to /dev/null: for programs that leave a daemon
/// behind holding their stdout (tmux), which would never reach end of file.
package func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], detached: Bool = false) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    process.environment = merged
    process.standardInput = FileHandle.nullDevice
    if detached {
        return RunResult(status: spawnAndWait(executable, arguments, environment: merged), standardOutput: "", standardError: "")
    }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus,
                     standardOutput: String(decoding: outData, as: UTF8.self),
                     standardError: String(decoding: errData, as: UTF8.self))
}

/// Starts a program (a server, a recorder) with `environment` added to ours,
/// its output and errors to the file `log`, its input from /dev/null.
package func launchLogged(_ executable: String, _ arguments: [String], environment: [String: String], log: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    try process.runAsAShellWould()
    return process
}

extension Process {
    /// `run()` with SIGTERM, SIGINT, SIGHUP and SIGQUIT unblocked in this thread while
    /// the child is made: it inherits the thread's mask, and the test runner's threads
    /// block them, so `terminate()` and `interrupt()` would not reach it. SIGCHLD stays
    /// blocked: the runner hears its children's ends through it.
    package func runAsAShellWould() throws {
        var stopping = sigset_t(), previous = sigset_t()
        sigemptyset(&stopping)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&stopping, signal) }
        pthread_sigmask(SIG_UNBLOCK, &stopping, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }
}

/// posix_spawn with stdio on /dev/null, nothing blocked and default actions, as a
/// login shell starts a program: the test runner's threads block most signals,
/// which a child (tmux and its panes too) would otherwise inherit. nil if it cannot start.
package func spawnAsAShellWould(_ executable: String, _ arguments: [String], environment: [String: String]) -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    return posix_spawn(&pid, executable, &actions, &attributes, argv, envp) == 0 ? pid : nil
}

/// `spawnAsAShellWould`, then waitpid for that process alone (Foundation's `Process`
/// waits on descriptors a daemonising child hands on). With `usage`, the child's own
/// CPU time is stored there (`wait4`: that child's alone, not every child the test process reaped).
package func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String],
                  usage: UnsafeMutablePointer<rusage>? = nil) -> Int32 {
    guard let pid = spawnAsAShellWould(executable, arguments, environment: environment) else { return -1 }
    var status: Int32 = 0
    while wait4(pid, &status, 0, usage) < 0, errno == EINTR {}
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// Ends `processes`, the last started first: SIGTERM, then SIGKILL after 2 s
/// for one that ignores it.
package func endAll(_ processes: [Process]) {
    for process in processes.reversed() where process.isRunning {
        process.terminate()
        waitUntil(seconds: 2, every: .milliseconds(50)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
