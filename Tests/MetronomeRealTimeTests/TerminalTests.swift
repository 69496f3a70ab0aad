import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomePendulum
import MetronomeTestSupport

@Suite struct TerminalTests {
    static let tmuxInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    enum Exit: String, CaseIterable { case q, controlC, sigterm, sighup }

    /// A render that takes over a second draws its progress on standard error in a
    /// terminal, each line whole, and clears it when done: the shell's next line starts clean.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aLongRenderShowsItsProgressAndClearsIt() throws {
        let directory = TemporaryDirectory()
        let output = directory.file("click.flac")
        let pane = try TmuxPane(command: "\(metronomeBinary()) --bpm 120 --duration 3h --rate 8000 --output \(output); echo after")
        var seen = ""
        try pane.waitUntil("the progress bar", seconds: 20) {
            seen = try pane.capture()
            return seen.contains("rendering [#")
        }
        #expect(seen.range(of: #"rendering \[#*-*\] \d+%"#, options: .regularExpression) != nil, "\(seen)")
        let (status, _) = try pane.outcome(seconds: 60)
        #expect(status == 0)
        let screen = try pane.capture()
        #expect(!screen.contains("rendering"), "\(screen)")
        #expect(screen.split(separator: "\n").first == "after", "\(screen)")
    }

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
        case .sigterm, .sighup:
            let pid = try #require(try pane.programPID(named: "metronome"))
            kill(pid, exit == .sigterm ? SIGTERM : SIGHUP)  // SIGHUP: the terminal was closed
        }
        let outcome = try pane.outcome()
        #expect(outcome.status == [Exit.q: 0, .controlC: 130, .sigterm: 143, .sighup: 129][exit])
        // Cooked mode with echo, as before.
        let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("icanon") && flags.contains("echo"))
        #expect(!flags.contains("-icanon") && !flags.contains("-echo"))
        // The alternate screen is gone: the pane shows the shell's screen again, not the picture.
        #expect(!(try pane.capture()).contains("q quit"))
    }

    /// A frame is one `write` to a non-blocking description of the terminal of the program's own,
    /// with no `poll` for room before it (a wakeup's worth of work less, 60 times a second).
    /// Not under a sanitizer: strace and an instrumented binary do not mix.
    @Test(.enabled(if: (tmuxInstalled && metronome_counting_available() != 0) || RealTimeLoopbackTests.required))
    func aFrameIsOneWriteWithNoPollForRoom() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is needed: run scripts/setup --test")
        try #require(metronome_counting_available() != 0, "strace and a sanitizer's binary do not mix")
        let directory = TemporaryDirectory()
        let log = directory.file("strace")
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent /usr/bin/strace -f -e trace=openat,poll,write -o \(log) "
                                + "\(metronomeBinary()) --bpm 137 --duration 3 2>/dev/null")
        #expect(try pane.outcome(seconds: 30).status == 0)
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        // The terminal opened again, non-blocking, for the frames.
        let opened = try #require(calls.first { $0.contains("openat(") && $0.contains("/proc/self/fd/1") && $0.contains("O_NONBLOCK") },
                                  "\(calls.filter { $0.contains("openat(") })")
        let descriptor = try #require(opened.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespaces) })
        let frameWrites = calls.filter { $0.contains("write(\(descriptor),") }
        let pollsForRoom = calls.filter { $0.contains("poll(") && $0.contains("POLLOUT") }
        #expect(frameWrites.count >= 100, "\(frameWrites.count) frames in 3 s")
        // Only the few plain writes (entering and leaving the screen) poll first, on stdout.
        #expect(pollsForRoom.count < 10 && !pollsForRoom.contains { $0.contains("fd=\(descriptor),") },
                "\(pollsForRoom.count): \(pollsForRoom.prefix(3))")
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func theStatusLineShowsTheLatencyTheDeviceGranted() throws {
        // ALSA's null device grants what it is asked: 20 ms is 960 frames at 48 kHz.
        let pane = try TmuxPane(command: "\(metronomeBinary()) --bpm 100 --device null --latency 20 2>/dev/null")
        try pane.waitUntil("the status line names the latency") { try pane.capture().contains("latency 20.0 ms") }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aTooSmallTerminalShowsOneLineAndIsRestored() throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 2>/dev/null", width: 24, height: 3)
        var screen = ""
        try pane.waitUntil("the one-line indicator") {
            screen = try pane.capture()
            return screen.contains("100")
        }
        #expect(!screen.contains("====="))  // no picture squeezed into three rows
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 24 })
        let pid = try #require(try pane.programPID(named: "metronome"))
        kill(pid, SIGTERM)
        let outcome = try pane.outcome()
        #expect(outcome.status == 143)
        let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("icanon") && flags.contains("echo"))
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func aResizeRedrawsThePictureToTheNewSize() throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 2>/dev/null")
        var before = ""
        try pane.waitUntil("the picture") {
            before = try pane.capture()
            return before.contains("q quit")
        }
        // The base row's first and last columns; tmux alone, shrinking the
        // window, would keep the old picture clipped, not centred in the new width.
        func base(_ screen: String) -> (first: Int, last: Int)? {
            guard let row = screen.split(separator: "\n").first(where: { $0.contains("=====") }),
                  let first = row.firstIndex(of: "="), let last = row.lastIndex(of: "=") else { return nil }
            return (row.distance(from: row.startIndex, to: first), row.distance(from: row.startIndex, to: last))
        }
        let wide = try #require(base(before))
        #expect((78...80).contains(wide.first + wide.last))  // centred in 80 columns
        try pane.resize(width: 50, height: 16)
        var after = ""
        try pane.waitUntil("the picture redrawn centred in 50 columns") {
            after = try pane.capture()
            guard after.contains("q quit"), let narrow = base(after) else { return false }
            return (48...50).contains(narrow.first + narrow.last) && narrow.last - narrow.first < wide.last - wide.first
        }
        #expect(after.split(separator: "\n").allSatisfy { $0.count <= 50 })
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
    }

    /// `--style unicode` reaches the terminal as UTF-8: line drawing, blocks and a braille rod that moves.
    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func theUnicodeStyleIsDrawnInTheTerminal() throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 --style unicode 2>/dev/null")
        func rod(_ screen: String) -> String { String(screen.unicodeScalars.filter { (0x2800...0x28FF).contains($0.value) }) }
        var first = ""
        try pane.waitUntil("the picture") {
            first = try pane.capture()
            return first.contains("100 bpm") && rod(first).unicodeScalars.count >= 10
        }
        #expect(first.contains("\u{2571}") && first.contains("\u{2572}") && first.contains("\u{2580}\u{2580}\u{2580}") && first.contains("\u{2588}\u{2588}\u{2588}"))
        #expect(!first.contains("===") && !first.contains("###"))
        try pane.waitUntil("the rod to move") { rod(try pane.capture()) != rod(first) }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
    }

    @Test(.enabled(if: tmuxInstalled || RealTimeLoopbackTests.required))
    func thePictureOptionsReachTheDrawnFrames() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("trace.jsonl")
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 120 --duration 1.5 --visual-offset 250 --angle 20 --easing linear --fps 30 --trace \(trace) 2>/dev/null")
        #expect(try pane.outcome().status == 0)
        let frames = try drawnFrames(trace)
        let motion = PendulumMotion(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!), amplitude: 20, easing: .linear)
        for frame in frames {
            #expect(abs(frame.angle - motion.angle(atFrame: Double(frame.audio))) < 1e-9)
            #expect(abs(frame.angle) <= 20)
        }
        // The picture starts 250 ms (12000 frames) behind the sound.
        #expect(try #require(frames.first).audio <= -11_000)
        // With no sound card the picture's clock is linear in time too (no steps at each silent period),
        // once the first periods are out.
        let playing = frames.filter { $0.audio > -12_000 + 8_192 }
        let span = try #require(playing.last).time - playing[0].time
        let slope = Double(playing.last!.audio - playing[0].audio) / span
        #expect(abs(slope - 48_000) < 480, "\(slope) frames/s")
        for frame in playing {
            let line = Double(playing[0].audio) + (frame.time - playing[0].time) * slope
            #expect(abs(Double(frame.audio) - line) < 240, "\(Double(frame.audio) - line) frames off the line")
        }
        // 30 pictures a second, not 60.
        let seconds = try #require(frames.last).time - frames[0].time
        let rate = Double(frames.count - 1) / seconds
        #expect(rate > 25 && rate < 35, "\(rate) frames/s")
    }
}
