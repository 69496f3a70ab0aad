import Glibc

/// The last-resort way out of a crash: a signal handler restores the terminal, then the signal kills.
///
/// The handler touches only memory prepared before it can run, at fixed
/// addresses (the saved `termios`, the bytes that leave the alternate screen),
/// and calls only `tcsetattr`, `write`, `signal` and `raise`, which are
/// async-signal-safe. It replaces the Swift runtime's handlers for the same
/// signals, so the runtime's backtracer (interactive on a terminal) never
/// takes the terminal.
package enum TerminalRescue {
    /// A Swift trap (SIGILL on x86-64, SIGTRAP on arm64), a bad access, an abort, a bus or arithmetic fault.
    package static let crashSignals: [Int32] = [SIGSEGV, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGTRAP]

    /// What the handler restores, at one fixed address for the process's life.
    struct State {
        var termios = Glibc.termios()
        /// Nonzero while the terminal is in raw mode (`termios` is then the mode to go back to).
        var raw: Int32 = 0
        /// Nonzero while the alternate screen is shown with the cursor hidden.
        var screen: Int32 = 0
    }

    nonisolated(unsafe) static let state: UnsafeMutablePointer<State> = {
        let pointer = UnsafeMutablePointer<State>.allocate(capacity: 1)
        pointer.initialize(to: State())
        return pointer
    }()

    /// Reverse video off (a frame cut between `--flash`'s ESC[7m and ESC[27m), the cursor shown, the main screen back.
    static let leaveScreen: [UInt8] = Array("\u{1B}[27m\u{1B}[?25h\u{1B}[?1049l".utf8)
    nonisolated(unsafe) static let leaveScreenBytes: UnsafeMutableBufferPointer<UInt8> = {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: leaveScreen.count)
        _ = buffer.initialize(from: leaveScreen)
        return buffer
    }()

    /// Installs the handlers (once, early in `main`); touches the storage first so the handler never initialises anything.
    package static func install() {
        _ = state
        _ = leaveScreenBytes
        var crashes = sigset_t()
        sigemptyset(&crashes)
        for signal in crashSignals { sigaddset(&crashes, signal) }
        // Blocked by whoever started us, a `kill -ABRT` would wait for ever.
        pthread_sigmask(SIG_UNBLOCK, &crashes, nil)
        // A stack overflow leaves no stack to run the handler on: the main thread gets a spare one.
        var current = stack_t()
        if sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 {
            let size = 64 * 1024
            var spare = stack_t(ss_sp: UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16), ss_flags: 0, ss_size: size)
            sigaltstack(&spare, nil)
        }
        for signal in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in TerminalRescue.handle(signal) }
            sigemptyset(&action.sa_mask)
            // Back to the default action on entry: a second fault inside the handler kills at once.
            action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND)) | SA_ONSTACK
            sigaction(signal, &action, nil)
        }
    }

    /// Raw mode began: `original` is the mode to restore.
    static func enteredRawMode(_ original: termios) {
        state.pointee.termios = original
        state.pointee.raw = 1
    }

    static func leftRawMode() { state.pointee.raw = 0 }

    static func enteredScreen() { state.pointee.screen = 1 }

    static func leftScreen() { state.pointee.screen = 0 }

    /// In signal context: the terminal back, then the signal again with its default action.
    private static func handle(_ signal: Int32) {
        restoreTerminal()
        Glibc.signal(signal, SIG_DFL)
        // Blocked while its handler runs: delivered, and fatal, when this returns
        // (a fault that was not a `kill` happens again at the same instruction).
        raise(signal)
    }

    /// Only `write` and `tcsetattr`, from prepared memory.
    static func restoreTerminal() {
        if state.pointee.screen != 0 {
            state.pointee.screen = 0
            _ = write(STDOUT_FILENO, leaveScreenBytes.baseAddress, leaveScreenBytes.count)
        }
        if state.pointee.raw != 0 {
            state.pointee.raw = 0
            tcsetattr(STDIN_FILENO, TCSANOW, &state.pointee.termios)
        }
    }
}
