import MetronomeSupport
import MetronomeTerminal
import MetronomeSession

/// An input file's bytes (a tempo map, a setlist, a song's map, a MIDI map),
/// read whole, a stop asked for meanwhile ending the run; one that cannot be
/// read is exit 66, `cannotRead` and the reason.
func readInputFile(_ path: String, cannotRead: @autoclosure () -> String) throws(SessionError) -> [UInt8] {
    do {
        return try FileContents.read(path, whileWaiting: TerminationSignals.endIfAStopIsPending)
    } catch {
        throw SessionError(.unreadable, "\(cannotRead()): \(error.message)")
    }
}
