import Glibc
import MetronomeSupport
import MetronomeTiming

/// Keeps a plan's queue topped up from a thread of its own, so the audio
/// thread's passages never wait on the picture: a terminal that stops
/// drawing (a blocked write, a slow link) cannot starve the audio.
///
/// Not real-time: between feeds it waits on a condition variable with a
/// `CLOCK_MONOTONIC` deadline (`pthread_cond_timedwait`), which `stop()` cuts short.
package final class PlanFeedThread: @unchecked Sendable {
    private let feeder: PlanFeeder
    private let intervalNanoseconds: Int64
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Guarded by `mutex`.
    private var stopping = false
    private var thread: pthread_t?

    /// Feeds every `intervalNanoseconds` (100 ms: the queue holds seconds of even one-beat passages).
    package init(feeder: PlanFeeder, intervalNanoseconds: Int64 = 100_000_000) {
        self.feeder = feeder
        self.intervalNanoseconds = intervalNanoseconds
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        stop()
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts the thread ("metronome-plan"); without one (out of threads) the queue feeds nothing more.
    package func start() {
        thread = NamedThread.start(named: "metronome-plan") { self.run() }
    }

    /// Wakes the thread to end and waits for it.
    package func stop() {
        guard let thread else { return }
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        self.thread = nil
    }

    private func run() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !stopping {
            pthread_mutex_unlock(mutex)
            feeder.feed()
            pthread_mutex_lock(mutex)
            var deadline = MonotonicInstant(nanoseconds: MonotonicClock().now().nanoseconds + intervalNanoseconds).timespec
            // Until the deadline, or a stop; a spurious wakeup waits again, and an error
            // other than the timeout (none is expected) ends the wait rather than spin.
            while !stopping, pthread_cond_timedwait(condition, mutex, &deadline) == 0 {}
        }
    }
}
