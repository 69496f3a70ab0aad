import Glibc

/// The signals that stop a run, a resize (SIGWINCH) and Ctrl-Z (SIGTSTP), taken as events, not handled.
///
/// Blocked in the calling thread (and every thread it starts afterwards) and
/// collected with `sigtimedwait`: nothing runs in signal context, and the main
/// loop sees a stop like any other input. Once the run has cleaned up,
/// `end(by:)` ends the process by the same signal, so a shell sees it was
/// killed (a `for` loop stops at Ctrl-C). Faults the program causes itself
/// are `TerminalRescue`'s.
package final class TerminationSignals {
    /// The signals whose default action ends the process, handled as a stop.
    /// SIGXFSZ blocked makes a write past `ulimit -f` fail with EFBIG, so a render cleans up as on SIGTERM.
    /// SIGSYS from seccomp is forced through the mask by the kernel; one sent with `kill` is a stop.
    /// The real-time signals from SIGRTMIN (glibc keeps the two below it for itself).
    package static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
                                           SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS, SIGSTKFLT, SIGPWR, SIGIO]
        + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())
    package static let handled: [Int32] = stopping + [SIGWINCH, SIGTSTP]
    private var set = sigset_t()
    private var original = sigset_t()
    /// Readable while one of the signals is pending (`signalfd`), so that one
    /// `poll` waits for a key and a signal at once; -1 if it could not be made.
    /// The signal is still taken with `take()`.
    package let descriptor: Int32

    package init() {
        sigemptyset(&set)
        for signal in Self.handled { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, &original)
        descriptor = Self.signalDescriptor(for: set)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        pthread_sigmask(SIG_SETMASK, &original, nil)
    }

    /// `signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC)`; the Glibc module leaves `signalfd` out, so it is looked up.
    private static func signalDescriptor(for set: sigset_t) -> Int32 {
        typealias SignalDescriptor = @convention(c) (Int32, UnsafePointer<sigset_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "signalfd") else { return -1 }
        var set = set
        return unsafeBitCast(symbol, to: SignalDescriptor.self)(-1, &set, O_NONBLOCK | O_CLOEXEC)
    }

    /// The next pending signal's number, or nil when none is pending.
    package func take() -> Int32? { wait(milliseconds: 0) }

    /// The next pending signal that asks to stop, passing over resizes; a
    /// Ctrl-Z stops the process here until it is continued.
    package func takeStop() -> Int32? {
        while let signal = take() {
            if signal == SIGTSTP { Self.stopProcess() }
            if Self.stopping.contains(signal) { return signal }
        }
        return nil
    }

    /// Waits up to `milliseconds` for a signal; its number, or nil on timeout.
    package func wait(milliseconds: Int) -> Int32? {
        var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        // -1 on timeout, or EINTR after a stop and continue: the caller's loop comes back in time either way.
        let signal = sigtimedwait(&set, nil, &timeout)
        return signal > 0 ? signal : nil
    }

    /// What a run may do with the terminal on stdin, its keys and its picture.
    package enum TerminalAccess: Equatable {
        /// Stdin is no terminal, or this process is in its foreground process group.
        case foreground
        /// A signal that asks to stop came while the job waited in the background:
        /// leave the terminal alone and take the signal.
        case stopping
        /// In the background of a terminal that cannot stop it (an orphaned process
        /// group, whose SIGTTOU the kernel discards): play on without keys or picture.
        case background
    }

    /// Waits until this process may take the terminal on stdin (raw mode for the
    /// keys, the picture), as a job in the terminal's foreground process group.
    /// A job started in the background (`metronome &`) or put there (`bg`) stops
    /// here as the shell expects (SIGTTOU: `Stopped (tty output)`) until `fg`.
    /// `kill %1` sends SIGTERM, then SIGCONT: the stop is then pending.
    package static func waitForTerminal() -> TerminalAccess {
        guard isatty(STDIN_FILENO) == 1 else { return .foreground }
        // SIGCONT blocked while waiting: pending after a stop, it tells a stop and a continue
        // from a SIGTTOU the kernel discarded (the continue itself happens whatever the mask).
        var cont = sigset_t(), previous = sigset_t()
        sigemptyset(&cont)
        sigaddset(&cont, SIGCONT)
        pthread_sigmask(SIG_BLOCK, &cont, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        while true {
            let group = tcgetpgrp(STDIN_FILENO)
            if group < 0 || group == getpgrp() { return .foreground }
            if pendingStop() != nil { return .stopping }
            kill(0, SIGTTOU)  // the whole job stops, as a shell shows it
            var none = timespec(tv_sec: 0, tv_nsec: 0)
            let continued = sigtimedwait(&cont, nil, &none) == SIGCONT
            if pendingStop() != nil { return .stopping }
            if !continued { return .background }
        }
    }

    /// The pending signal that asks to stop, if one is, left pending.
    static func pendingStop() -> Int32? {
        var pending = sigset_t()
        guard sigpending(&pending) == 0 else { return nil }
        return stopping.first { sigismember(&pending, $0) == 1 }
    }

    /// Stops the whole process as Ctrl-Z asks (the default action of SIGTSTP);
    /// returns once it is continued (`fg`, `bg`, SIGCONT).
    package static func stopProcess() {
        var tstp = sigset_t()
        sigemptyset(&tstp)
        sigaddset(&tstp, SIGTSTP)
        let previous = signal(SIGTSTP, SIG_DFL)
        raise(SIGTSTP)  // pending while blocked, delivered by the unblock: the process stops inside the next call
        pthread_sigmask(SIG_UNBLOCK, &tstp, nil)
        pthread_sigmask(SIG_BLOCK, &tstp, nil)
        signal(SIGTSTP, previous)
    }

    /// Signals are blocked while the metronome runs (they are taken as events):
    /// one that asks to stop ends the program here, as it would had it not been
    /// blocked. For long work before anything needs cleaning up (reading an
    /// input, converting a sound).
    package static func endIfAStopIsPending() {
        if let signal = pendingStop() { end(by: signal) }
    }

    /// Ends the process by `signal` with its default action, as if it had not
    /// been handled, once everything is cleaned up; returns only if the signal does not kill.
    package static func end(by signal: Int32) {
        fflush(nil)
        if [SIGQUIT, SIGXCPU, SIGXFSZ, SIGSYS].contains(signal) {
            // A stop asked for from outside, not a crash: no core file.
            var none = rlimit(rlim_cur: 0, rlim_max: 0)
            setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        }
        Glibc.signal(signal, SIG_DFL)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        raise(signal)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
    }
}
