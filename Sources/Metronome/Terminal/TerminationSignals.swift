import Glibc

/// SIGINT, SIGTERM, SIGHUP (and SIGWINCH, a resize) turned into events instead of handlers.
///
/// The signals are blocked in the calling thread (and so in every thread it
/// starts afterwards) and collected with `sigtimedwait`: nothing runs in
/// signal context, and the main loop sees a stop request like any other input.
public final class TerminationSignals {
    public static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
    private var set = sigset_t()
    private var original = sigset_t()

    public init() {
        sigemptyset(&set)
        for signal in Self.handled { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, &original)
    }

    deinit {
        pthread_sigmask(SIG_SETMASK, &original, nil)
    }

    /// The next pending signal's number, or nil when none is pending.
    public func take() -> Int32? { wait(milliseconds: 0) }

    /// The next pending signal that asks to stop, passing over resizes.
    public func takeStop() -> Int32? {
        while let signal = take() {
            if signal != SIGWINCH { return signal }
        }
        return nil
    }

    /// Waits up to `milliseconds` for a signal; its number, or nil on timeout.
    public func wait(milliseconds: Int) -> Int32? {
        var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        let signal = sigtimedwait(&set, nil, &timeout)
        return signal > 0 ? signal : nil
    }

    /// The exit status a run stopped by `signal` ends with: 128 + its number.
    public static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }
}
