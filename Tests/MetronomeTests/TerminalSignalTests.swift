import Foundation
@testable import Metronome
import Testing

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
