import Glibc

/// Polls `condition` every `interval` until it holds or `deadline` has passed,
/// and says whether it held. The condition is tried first at once and once
/// more after the deadline; a zero interval spins without sleeping. What a
/// failed wait means (an issue, an error, nothing) is the caller's.
@discardableResult
package func waitUntil(_ deadline: ContinuousClock.Instant, every interval: Duration,
                       _ condition: () throws -> Bool) rethrows -> Bool {
    let (seconds, attoseconds) = interval.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        if microseconds > 0 { usleep(UInt32(microseconds)) }
    }
}

/// `waitUntil(_:every:_:)` for at most `seconds` from now.
@discardableResult
package func waitUntil(seconds: Double, every interval: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
    try waitUntil(.now + .seconds(seconds), every: interval, condition)
}
