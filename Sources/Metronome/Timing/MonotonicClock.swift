import Glibc

/// A point on `CLOCK_MONOTONIC`, in nanoseconds.
public struct MonotonicInstant: Comparable, Sendable {
    public let nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// `timespec` as an instant.
    init(_ time: timespec) {
        nanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    var timespec: Glibc.timespec {
        Glibc.timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}

/// Where the time comes from, so the engine can run against a manual clock in
/// tests. (Not named `Clock`: that is the standard library's own protocol.)
public protocol Timekeeper: Sendable {
    func now() -> MonotonicInstant
    /// Waits until `instant` (returns at once if it has passed).
    func sleep(until instant: MonotonicInstant)
}

/// The system's `CLOCK_MONOTONIC`.
public struct MonotonicClock: Timekeeper {
    public init() {}

    public func now() -> MonotonicInstant {
        var time = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(time)
    }

    public func sleep(until instant: MonotonicInstant) {
        var target = instant.timespec
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }

    static func seconds() -> Double {
        Double(MonotonicClock().now().nanoseconds) / 1e9
    }
}
