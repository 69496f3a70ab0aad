import Glibc

/// A point on `CLOCK_MONOTONIC`, in nanoseconds.
package struct MonotonicInstant: Comparable, Sendable {
    package let nanoseconds: Int64

    package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// `timespec` as an instant.
    package init(_ time: timespec) {
        nanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    package var timespec: Glibc.timespec {
        Glibc.timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}

/// The system's `CLOCK_MONOTONIC`.
package struct MonotonicClock: Sendable {
    package init() {}

    package func now() -> MonotonicInstant {
        var time = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(time)
    }

    package func sleep(until instant: MonotonicInstant) {
        var target = instant.timespec
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }

    package static func seconds() -> Double {
        Double(MonotonicClock().now().nanoseconds) / 1e9
    }
}
