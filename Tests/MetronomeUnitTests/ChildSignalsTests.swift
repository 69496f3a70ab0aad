import Foundation
import Glibc
import Testing
import MetronomeTestSupport

/// The harness starts its servers and peers as a shell would: whatever signals
/// the starting thread blocks, `terminate()` reaches the child.
@Suite struct ChildSignalsTests {
    /// Started while this thread blocks SIGTERM, as the test runner's threads do,
    /// a child still ends at SIGTERM.
    @Test func aChildStartedFromAThreadBlockingSIGTERMEndsAtIt() throws {
        var term = sigset_t(), previous = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &term, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let directory = TemporaryDirectory()
        let child = try launchLogged("/bin/sleep", ["60"], environment: [:], log: directory.file("sleep.log"))
        child.terminate()
        let ended = waitUntil(seconds: 10, every: .milliseconds(10)) { !child.isRunning }
        if !ended { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        #expect(ended, "the child did not end at SIGTERM")
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGTERM)
    }
}
