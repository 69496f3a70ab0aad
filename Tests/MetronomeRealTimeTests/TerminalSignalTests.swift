import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeTerminal
import MetronomeTestSupport

/// Raw mode's flags, stops and continues, crashes and signals, as a user meets them in a real terminal (tmux).
@Suite struct TerminalSignalTests {
    static let tmuxInstalled = TerminalTests.tmuxInstalled
    static let live = "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary())"

    static func flags(_ stty: String) -> [Substring] {
        stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
    }

    /// `stty -a` of the pane's terminal now, as the program has left it.
    static func stty(of pane: TmuxPane) throws -> String {
        let tty = try run("/usr/bin/tmux", ["-L", pane.socket, "display", "-p", "#{pane_tty}"]).standardOutput
        return try run("/bin/stty", ["-F", tty.trimmingCharacters(in: .whitespacesAndNewlines), "-a"]).standardOutput
    }

    @Test func rawModeClearsFlowControlLiteralNextAndCRToNL() {
        var original = termios()
        original.c_lflag = tcflag_t(ICANON | ECHO | IEXTEN | ISIG)
        original.c_iflag = tcflag_t(IXON | ICRNL | BRKINT)
        let raw = KeyInput.rawMode(from: original)
        #expect(raw.c_lflag & tcflag_t(ICANON | ECHO | IEXTEN) == 0)
        #expect(raw.c_iflag & tcflag_t(IXON | ICRNL) == 0)
        #expect(raw.c_lflag & tcflag_t(ISIG) != 0)  // Ctrl-C, Ctrl-\, Ctrl-Z still signal
        #expect(raw.c_iflag & tcflag_t(BRKINT) != 0)
    }

    /// Ctrl-S would stop the terminal's output (IXON): the picture would freeze until Ctrl-Q.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func controlSAndControlVDoNotFreezeThePicture() throws {
        let pane = try TmuxPane(command: "\(Self.live) --bpm 100 2>/dev/null")
        var before = ""
        try pane.waitUntil("the picture") {
            before = try pane.capture()
            return before.contains("100 bpm") && before.contains("q quit")
        }
        try pane.send("C-s")
        try pane.send("C-v")
        let afterKeys = try pane.capture()
        try pane.waitUntil("the picture to move after Ctrl-S", seconds: 5) { try pane.capture() != afterKeys }
        // While playing, the terminal has no flow control, no literal-next, no CR to NL.
        let playing = Self.flags(try Self.stty(of: pane))
        #expect(playing.contains("-ixon") && playing.contains("-iexten") && playing.contains("-icrnl") && playing.contains("-icanon"))
        try pane.send("q")
        let outcome = try pane.outcome()
        #expect(outcome.status == 0)
        let flags = Self.flags(outcome.stty)
        // Restored exactly: the shell's flow control and CR to NL are back.
        #expect(flags.contains("ixon") && flags.contains("icrnl") && flags.contains("iexten") && flags.contains("echo"))
    }
}

extension TerminalSignalTests {
    /// Ctrl-Z gives the shell a normal screen in cooked mode; `fg` takes the terminal back and keys work.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func controlZStopsWithTheTerminalRestoredAndFgTakesItBack() throws {
        // The pane's shell becomes an interactive bash (job control; no readline, which takes the terminal for a line).
        let pane = try TmuxPane(command: "exec bash --norc --noprofile --noediting -i")
        try pane.send("PS1='prompt$ '")
        try pane.send("Enter")
        try pane.send("\(Self.live) --bpm 100 2>/dev/null")
        try pane.send("Enter")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        let pid = try #require(try pane.programPID(named: "metronome"))
        try pane.send("C-z")
        try pane.waitUntil("the program to stop") {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")[2] == "T"
        }
        var screen = ""
        try pane.waitUntil("the shell's prompt on the normal screen") {
            screen = try pane.capture()
            return screen.contains("Stopped") && screen.contains("prompt$")
        }
        #expect(!screen.contains("q quit"))  // not drawn over the picture on the alternate screen
        let stopped = Self.flags(try Self.stty(of: pane))
        #expect(stopped.contains("icanon") && stopped.contains("echo") && stopped.contains("ixon"))
        try pane.send("fg")
        try pane.send("Enter")
        try pane.waitUntil("the picture redrawn") { try pane.capture().contains("100 bpm") }
        let resumed = Self.flags(try Self.stty(of: pane))
        #expect(resumed.contains("-icanon") && resumed.contains("-echo"))
        // A key works at once, without Enter: the status line changes.
        try pane.send("Up")
        try pane.waitUntil("the tempo key to work after fg", seconds: 5) { try pane.capture().contains("101 bpm") }
        #expect(!(try pane.capture()).contains("prompt$"))  // the picture drawn whole over the alternate screen
        try pane.send("q")
        try pane.waitUntil("the shell's prompt again") { try pane.capture().split(separator: "\n").last?.hasPrefix("prompt$") ?? false }
        #expect(Self.flags(try Self.stty(of: pane)).contains("icanon"))
    }

    enum Stop: String, CaseIterable { case quit, usr1, usr2, alarm, pipe, xcpu, xfsz, vtalrm, prof, sys, stkflt, pwr, io, realTime }

    /// SIGQUIT (Ctrl-\), SIGUSR1, SIGUSR2, SIGALRM and SIGPIPE stop live playback cleanly,
    /// by the same signal (128+N), with the terminal restored and no crash report.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required), arguments: Stop.allCases)
    func everyStoppingSignalEndsLivePlaybackWithTheTerminalRestored(stop: Stop) throws {
        let directory = TemporaryDirectory()
        // The pane's shell goes on past Ctrl-\ (as past Ctrl-C) to record what the program left.
        let pane = try TmuxPane(command: "trap true QUIT; \(Self.live) --bpm 100 2>\(directory.file("stderr"))")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        let signal = [Stop.quit: SIGQUIT, .usr1: SIGUSR1, .usr2: SIGUSR2, .alarm: SIGALRM, .pipe: SIGPIPE, .xcpu: SIGXCPU, .xfsz: SIGXFSZ,
                      .vtalrm: SIGVTALRM, .prof: SIGPROF, .sys: SIGSYS, .stkflt: SIGSTKFLT, .pwr: SIGPWR, .io: SIGIO,
                      .realTime: __libc_current_sigrtmin() + 1][stop]!
        if stop == .quit {
            try pane.send("C-\\")
        } else {
            kill(try #require(try pane.programPID(named: "metronome")), signal)
        }
        let outcome = try pane.outcome()
        #expect(outcome.status == 128 + signal)
        let flags = Self.flags(outcome.stty)
        #expect(flags.contains("icanon") && flags.contains("echo") && flags.contains("ixon"))
        #expect(!(try pane.capture()).contains("q quit"))
        let stderr = try String(contentsOfFile: directory.file("stderr"), encoding: .utf8)
        #expect(!stderr.contains("Crash") && !stderr.contains("Backtrace") && !stderr.contains("Thread"), "\(stderr)")
        #expect(!directory.contents().contains { $0.hasPrefix("core") })
    }

    /// A render stopped by any stopping signal leaves no file and no hidden `.part`, and dies of the signal.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
                      SIGSYS, SIGSTKFLT, SIGPWR, SIGIO, __libc_current_sigrtmin(), __libc_current_sigrtmax()])
    func aRenderKilledByAnyStoppingSignalLeavesNothing(signal: Int32) throws {
        let directory = TemporaryDirectory()
        let output = directory.file("long.wav")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: metronomeBinary())
        process.arguments = ["--bpm", "120", "--duration", "10h", "--output", output]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        waitUntil(seconds: 20, every: .milliseconds(10)) { directory.contents().contains { $0.hasSuffix(".part") } }
        #expect(directory.contents().contains { $0.hasSuffix(".part") })
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(directory.contents().isEmpty, "\(directory.contents())")
    }

    /// A render past `ulimit -f` (SIGXFSZ, the write refused) leaves no file and no `.part`.
    /// Not under a sanitizer: its runtime dies of another signal under the file-size limit.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer's runtime does not run under a file-size limit"))
    func aRenderPastTheFileSizeLimitLeavesNothing() throws {
        let directory = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--fsize=102400", metronomeBinary(), "--bpm", "120", "--duration", "1h", "--output", directory.file("long.wav")]
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Died of the signal, after cleaning up: not an exit with its number.
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGXFSZ, "\(process.terminationStatus) \(stderr)")
        #expect(directory.contents().isEmpty, "\(directory.contents())")
        #expect(!stderr.contains("Crash") && !stderr.contains("Backtrace"), "\(stderr)")
    }

    /// A job started in the background stops for the terminal (as `vim &` does); `kill %1`
    /// (SIGTERM, then SIGCONT) ends it with the terminal as it was, and `fg` takes the picture.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aBackgroundJobEndsOnKillAndPlaysOnFg() throws {
        let directory = TemporaryDirectory()
        let log = directory.file("jobs")
        // An interactive bash: job control, so `&` starts a job of its own process group.
        let pane = try TmuxPane(command: "bash --norc -i")
        // The trace's path names the job, so that a failing test leaves no job stopped behind it.
        let live = "\(Self.live) --bpm 100 --duration 20 --trace \(directory.file("trace.jsonl")) 2>\(directory.file("stderr"))"
        defer { _ = try? run("/usr/bin/pkill", ["-KILL", "-f", directory.path]) }
        try pane.send("\(live) &"); try pane.send("Enter")
        try pane.send("\(Self.untilStopped) jobs -l > \(log); kill %1; \(Self.untilEnded) echo status $s >> \(log); stty -a >> \(log)"); try pane.send("Enter")
        try pane.waitUntil("the job killed") { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("speed") == true }
        let lines = try String(contentsOfFile: log, encoding: .utf8)
        #expect(lines.contains("Stopped (tty output)"), "\(lines)")
        #expect(lines.contains("status \(128 + SIGTERM)"), "\(lines)")
        let flags = Self.flags(lines)
        #expect(flags.contains("icanon") && flags.contains("echo") && flags.contains("ixon"))
        let stderr = try String(contentsOfFile: directory.file("stderr"), encoding: .utf8)
        #expect(!stderr.contains("Crash") && !stderr.contains("Backtrace"), "\(stderr)")
        // Started in the background and brought to the foreground: the picture, then q.
        try pane.send("\(live) &"); try pane.send("Enter")
        try pane.send("\(Self.untilStopped) fg"); try pane.send("Enter")
        try pane.waitUntil("the picture after fg") { try pane.capture().contains("100 bpm") }
        try pane.send("q")
        try pane.waitUntil("the shell again") { !(try pane.capture()).contains("100 bpm") }
        // Ctrl-Z, then bg: stopped again for the terminal, and kill still ends it.
        try pane.send("\(live)"); try pane.send("Enter")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        try pane.send("C-z")
        try pane.send("bg; \(Self.untilStopped) jobs -l > \(log); kill %1; \(Self.untilEnded) echo status $s >> \(log)"); try pane.send("Enter")
        try pane.waitUntil("the job killed after bg") { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("status") == true }
        let again = try String(contentsOfFile: log, encoding: .utf8)
        #expect(again.contains("Stopped (tty output)") && again.contains("status \(128 + SIGTERM)"), "\(again)")
    }

    /// A job that takes no terminal plays in the background to its end (`--quiet </dev/null &`);
    /// one in an orphaned process group, whose stop the kernel discards, plays on without keys.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aBackgroundJobWithoutKeysPlaysToItsEnd() throws {
        let directory = TemporaryDirectory()
        let log = directory.file("log")
        let pane = try TmuxPane(command: "bash --norc -i")
        defer { _ = try? run("/usr/bin/pkill", ["-KILL", "-f", directory.path]) }
        let live = "\(Self.live) --bpm 240 --duration 1 --trace \(directory.file("trace.jsonl"))"
        try pane.send("\(live) --quiet </dev/null 2>/dev/null & wait %1; echo status $? > \(log)"); try pane.send("Enter")
        try pane.waitUntil("the quiet job's end") { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("status") == true }
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "status 0\n")
        // The inner subshell outlives the outer one: its group has no parent in the session, so it is orphaned.
        let status = directory.file("orphan")
        try pane.send("( (\(live) </dev/tty >\(directory.file("out")) 2>/dev/null; echo $? > \(status)) & )"); try pane.send("Enter")
        try pane.waitUntil("the orphaned job's end") { (try? String(contentsOfFile: status, encoding: .utf8))?.isEmpty == false }
        #expect(try String(contentsOfFile: status, encoding: .utf8) == "0\n")
        let lines = try String(contentsOfFile: directory.file("out"), encoding: .utf8)
        #expect(lines.hasPrefix("bar 1 "), "\(lines)")
    }

    /// Shell words that wait until job 1 is stopped for the terminal (10 s at most: never a loop left spinning).
    static let untilStopped = "n=0; until jobs -l %1 | grep -q 'tty output' || [ $n -ge 500 ]; do n=$((n+1)); sleep 0.02; done;"
    /// Shell words that wait until job 1 has ended, its status in `s` (`wait` answers 150, SIGTTOU, while it is still stopped).
    static let untilEnded = "s=150; while [ $s = 150 ]; do wait %1; s=$?; done;"

    /// After cleaning up, the signal is raised again: a shell loop stops at Ctrl-C.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func controlCStopsAShellLoop() throws {
        let directory = TemporaryDirectory()
        let log = directory.file("log")
        // No `trap` in this shell: as an interactive user's loop would, it stops when its child dies of SIGINT.
        let pane = try TmuxPane(command: "bash -c 'for i in 1 2 3; do echo run $i >> \(log); \(Self.live) --bpm 100 2>/dev/null; s=$?; echo status $s >> \(log); done'")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        try pane.send("C-c")
        // bash goes on only if its child exited by itself; dying of SIGINT tells it the user interrupted.
        #expect(try pane.outcome().status == 130)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines == ["run 1"], "\(lines)")
    }
}

extension TerminalSignalTests {
    /// A terminal that understands no escape codes (TERM=dumb, or no TERM) gets the plain lines.
    /// `script` runs the program on a terminal of its own and logs every byte written to it.
    @Test(arguments: [["TERM=dumb"], ["-u", "TERM"], ["TERM="], ["TERM=xterm"]])
    func aDumbTerminalGetsPlainLines(term: [String]) throws {
        let directory = TemporaryDirectory()
        let log = directory.file("typescript")
        let result = try run("/usr/bin/env", term + ["ALSA_CONFIG_PATH=/nonexistent", "/usr/bin/script", "-qfec",
                                                     "\(metronomeBinary()) --bpm 240 --bars 2", log])
        #expect(result.status == 0)
        let written = try #require(FileManager.default.contents(atPath: log))
        if term == ["TERM=xterm"] {
            #expect(written.contains(0x1B))  // the picture, as the same check sees it
        } else {
            #expect(!written.contains(0x1B))
            let text = String(decoding: written, as: UTF8.self)
            #expect(text.contains("bar 1  240 bpm 4/4  0.0s") && text.contains("bar 2  240 bpm 4/4  1.0s"), "\(text)")
        }
    }
}

extension TerminalSignalTests {
    /// Keys arriving one by one between frames (20 Up presses at 5 frames a second) are all
    /// applied at once and the frames keep their pace: a key does not push the next frame away.
    /// A timing test: not under a sanitizer, whose instrumented binary is too slow to keep `--fps 5`'s pace.
    @Test(.enabled(if: (tmuxInstalled || RealTimeLoopbackTests.required) && metronome_counting_available() != 0))
    func aBurstOfKeysKeepsThePictureMoving() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("trace.jsonl")
        let pane = try TmuxPane(command: "\(Self.live) --bpm 100 --fps 5 --trace \(trace) 2>/dev/null")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        for _ in 0..<20 { try pane.send("Up") }  // one write to the terminal each
        let sent = Date()
        try pane.waitUntil("all 20 tempo steps shown", seconds: 10) { try pane.capture().contains("120 bpm") }
        let shownAfter = Date().timeIntervalSince(sent)
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        #expect(shownAfter < 1, "\(shownAfter) s to show the keys")
        let frames = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["type"] as? String == "frame" else { return nil }
            return (object["time"] as! NSNumber).doubleValue
        }
        let gaps = zip(frames.dropFirst(), frames).map { $0 - $1 }
        #expect(frames.count > 3 && gaps.allSatisfy { $0 < 0.4 }, "gaps between frames: \(gaps)")
    }
}

extension TerminalSignalTests {
    /// A crash (here sent from outside) leaves the terminal usable and the process dies of the signal,
    /// with no backtracer taking the terminal.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required), arguments: [SIGSEGV, SIGABRT, SIGILL, SIGBUS, SIGFPE, SIGTRAP])
    func aCrashLeavesTheTerminalUsable(signal: Int32) throws {
        let directory = TemporaryDirectory()
        let pane = try TmuxPane(command: "ulimit -c 0; \(Self.live) --bpm 100 2>\(directory.file("stderr"))")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        kill(try #require(try pane.programPID(named: "metronome")), signal)
        let outcome = try pane.outcome()
        #expect(outcome.status == 128 + signal)
        let flags = Self.flags(outcome.stty)
        #expect(flags.contains("icanon") && flags.contains("echo") && flags.contains("ixon"))
        let screen = try pane.capture()
        #expect(!screen.contains("q quit"))  // the normal screen
        let stderr = try String(contentsOfFile: directory.file("stderr"), encoding: .utf8)
        #expect(!stderr.contains("Crash") && !stderr.contains("Backtrace"), "\(stderr)")
    }

    /// The cursor is shown again after a crash: tmux says whether it is visible.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aCrashShowsTheCursorAgain() throws {
        let pane = try TmuxPane(command: "ulimit -c 0; \(Self.live) --bpm 100 2>/dev/null")
        try pane.waitUntil("the picture") { try pane.capture().contains("100 bpm") }
        func cursorFlag() throws -> String {
            try run("/usr/bin/tmux", ["-L", pane.socket, "display", "-p", "#{cursor_flag}#{alternate_on}"]).standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try cursorFlag() == "01")  // hidden, on the alternate screen
        kill(try #require(try pane.programPID(named: "metronome")), SIGSEGV)
        #expect(try pane.outcome().status == 128 + SIGSEGV)
        #expect(try cursorFlag() == "10")
    }
}

extension TerminalSignalTests {
    /// A terminal that stops reading (a stalled connection) neither hangs the loop nor the way out:
    /// SIGTERM still ends the program at once, though its output cannot be written.
    @Test func aTerminalThatStopsReadingDoesNotHangTheProgram() throws {
        // posix_openpt, unlockpt and ptsname by hand (Glibc's module leaves them out).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        #expect(master >= 0 && ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0
                && ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0)
        defer { close(master) }
        let slavePath = "/dev/pts/\(number)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, slavePath, O_RDWR | O_NOCTTY, 0)
        posix_spawn_file_actions_adddup2(&actions, STDIN_FILENO, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let arguments = [metronomeBinary(), "--bpm", "100", "--fps", "120"], environment = ["TERM=xterm", "ALSA_CONFIG_PATH=/nonexistent"]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, metronomeBinary(), &actions, &attributes, argv, envp) == 0)
        var status: Int32 = 0
        defer { if waitpid(pid, &status, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0) } }
        // Nobody reads the pty: its buffer fills with frames.
        func queued() -> Int32 {
            var count: Int32 = 0
            _ = ioctl(master, UInt(FIONREAD), &count)
            return count
        }
        waitUntil(seconds: 10, every: .milliseconds(10)) { queued() != 0 }
        #expect(queued() > 0, "nothing drawn")
        // Fill what room is left ourselves, through a non-blocking descriptor of the same terminal:
        // from here on every write blocks, the program's last ones (leaving the screen) included.
        let filler = open(slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
        defer { close(filler) }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1024)
        var full = false
        for _ in 0..<100_000 where !full {
            full = chunk.withUnsafeBytes { write(filler, $0.baseAddress, $0.count) } < 0 && errno == EAGAIN
        }
        #expect(full, "the pty never filled")
        kill(pid, SIGTERM)
        var ended = pid_t(0)
        waitUntil(seconds: 5, every: .milliseconds(10)) {
            ended = waitpid(pid, &status, WNOHANG)
            return ended != 0
        }
        #expect(ended == pid, "still running 5 s after SIGTERM")
        #expect(ended == pid && status & 0x7F == SIGTERM)  // died of the signal
    }
}

extension TerminalSignalTests {
    /// A 20 kB paste is read in bounded pieces, every byte of it, and an empty input returns at once.
    @Test func pendingKeysAreReadInBoundedPieces() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)  // as VMIN 0 makes a terminal
        let paste = (0..<20_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        #expect(paste.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == paste.count)
        close(ends[1])
        var read: [UInt8] = []
        var pieces = 0
        while true {
            let piece = KeyInput.readPending(ends[0], limit: 4096)
            if piece.isEmpty { break }
            #expect(piece.count <= 4096)
            read += piece
            pieces += 1
        }
        #expect(read == paste)
        #expect(pieces == 5)  // 4096 × 4 + 3616
    }
}
