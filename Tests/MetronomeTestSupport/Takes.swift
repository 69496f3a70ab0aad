import Synchronization
import Testing

/// Runs `take` up to `count` times, for a test whose harness shares a loaded
/// 2-core machine with real-time servers (LinkHut, jackd): a take whose
/// harness misbehaved (`take` returns false: an xrun, a reference off its own
/// line) or in which any expectation failed is taken again, its issues shown
/// as known ones; the last take is judged as any test is, so a fault of the
/// metronome's, which fails every take, still fails the test.
package func takes(_ count: Int, _ what: String, _ take: (_ attempt: Int, _ last: Bool) throws -> Bool) throws {
    precondition(count >= 1)
    for attempt in 1..<count {
        let failed = Flag()
        var steady = true
        try withKnownIssue("\(what): take \(attempt) of \(count), taken again", isIntermittent: true) {
            steady = try take(attempt, false)
        } matching: { _ in
            failed.set()
            return true
        }
        if steady && !failed.isSet { return }
        print("\(what): take \(attempt) of \(count) taken again (\(failed.isSet ? "an expectation failed" : "the harness misbehaved"))")
    }
    _ = try take(count, true)
}

/// A flag set from a `@Sendable` closure.
private final class Flag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
