import Testing
@testable import MetronomeAudio
@testable import MetronomeCommandLine
import MetronomeSession
import MetronomeTestSupport

/// libjack loaded by name: a missing library is one line saying so, and a
/// JACK failure ends the run with the status the one table gives it.
@Suite struct JackLibraryTests {
    @Test func aLibraryThatIsNotThereIsLibraryMissing() {
        let missing = "libjack-not-here.so.0"
        #expect {
            _ = try JackLibrary.load(fileName: missing)
        } throws: { error in
            guard let error = error as? JackError else { return false }
            return error.kind == .libraryMissing && error.message.hasPrefix("libjack is not installed")
                && error.message.contains(missing) && !error.message.contains("\n")
        }
    }

    @Test func aClientWithoutTheLibraryIsLibraryMissing() {
        let missing = Result<JackLibrary, JackError>.failure(JackError(.libraryMissing, "libjack is not installed"))
        #expect(throws: JackError(.libraryMissing, "libjack is not installed")) { _ = try JackClient(name: "metronome", library: missing) }
    }

    @Test func aJackThatCannotBeHadIs69AndAServerGoneIs74() {
        let unavailable: [JackFailure] = [.serverUnavailable, .libraryMissing, .portRegistration, .connection, .activation]
        for kind in unavailable {
            let failure = CommandFailure.ofLayers(SessionError(JackError(kind, "line")))
            #expect(failure == CommandFailure(status: SysExit.unavailable.rawValue, message: "line"), "\(kind)")
        }
        let gone = CommandFailure.ofLayers(SessionError(JackError(.serverGone, "the JACK server shut the client 'm' down")))
        #expect(gone == CommandFailure(status: SysExit.ioError.rawValue, message: "the JACK server shut the client 'm' down"))
    }
}
