import Glibc
import MetronomeSupport
import MetronomeTerminal

/// The terminal a live run plays in: the picture (`TerminalScreen`) or plain
/// lines on stdout, the keys (`KeyInput`) and the signals
/// (`TerminationSignals`), a key and a signal waited for in one `poll`.
final class LiveTerminal: LiveScreen, LiveInput {
    private let signals: TerminationSignals
    private let screen: TerminalScreen?
    private let keys: KeyInput?
    let showsNothing: Bool

    /// Takes the terminal on stdin once the run may: a background job stops until `fg`, and one
    /// killed meanwhile leaves the terminal alone. The picture when `picture` asks for it and the
    /// terminal can show it; else the keys alone.
    init(signals: TerminationSignals, picture: Bool) {
        self.signals = signals
        let access = TerminationSignals.waitForTerminal()
        showsNothing = access == .stopping
        if access == .foreground, picture, let screen = TerminalScreen() {
            self.screen = screen
            keys = screen.keyInput
        } else {
            screen = nil
            keys = access == .foreground ? KeyInput() : nil
        }
    }

    var showsPicture: Bool { screen != nil }

    func size() -> (width: Int, height: Int) { TerminalScreen.size() }

    func draw(_ grid: TextGrid) { screen?.draw(grid) }

    func invalidate() { screen?.invalidate() }

    func emit(_ text: String) { TerminalScreen.emit(text) }

    /// The terminal as it was until `fg`, then raw mode and the alternate screen again. The audio
    /// thread stops with the process (a suspended job is silent); on `fg` the stall watch puts the
    /// clicks back on the grid in real time.
    func suspend() -> Bool {
        screen?.suspend()
        if screen == nil { keys?.restore() }
        TerminationSignals.stopProcess()
        // Continued in the background (`bg`, or kill's SIGCONT): the terminal stays the shell's.
        guard TerminationSignals.waitForTerminal() == .foreground else { return false }
        if let screen { screen.resume() } else { keys?.enter() }
        return true
    }

    func leave() {
        screen?.leave()
        keys?.restore()
    }

    /// One `poll` for a key and a signal where the signals have a descriptor: a wakeup is one
    /// system call. Without keys, `sigtimedwait`.
    /// A descriptor whose input wakes the loop too (`--osc`'s socket: a message is taken at once,
    /// not at the next wake, 10 ms later), or -1.
    var wakesOn: Int32 = -1

    func wait(milliseconds: Int) -> (signal: Int32?, keyReady: Bool) {
        // Nothing to poll beside the signals: they are waited for alone.
        if keys == nil, wakesOn < 0 || signals.descriptor < 0 { return (signals.wait(milliseconds: milliseconds), false) }
        // On the stack: no array. poll passes over a negative descriptor.
        var set = (pollfd(fd: keys?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakesOn, events: Int16(POLLIN), revents: 0))
        let ready = withUnsafeMutableBytes(of: &set) {
            poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 3, Int32(milliseconds))
        } > 0
        let keyReady = ready && set.0.revents & Int16(POLLIN) != 0
        let signalPending = signals.descriptor < 0 || ready && set.1.revents & Int16(POLLIN) != 0
        return (signalPending ? signals.take() : nil, keyReady)
    }

    func readKeys() -> [UInt8] { keys?.read() ?? [] }
}
