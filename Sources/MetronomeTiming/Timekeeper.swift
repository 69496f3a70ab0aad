import MetronomeSupport

/// Where the time comes from, so the engine can run against a manual clock in
/// tests. (Not named `Clock`: that is the standard library's own protocol.)
package protocol Timekeeper: Sendable {
    func now() -> MonotonicInstant
    /// Waits until `instant` (returns at once if it has passed).
    func sleep(until instant: MonotonicInstant)
}

/// The system's clock is the one every run but a test's keeps time by.
extension MonotonicClock: Timekeeper {}
