import ArgumentParser
import MetronomeSession

/// Playing with others: an Ableton Link session on the local network.
struct LinkOptions: ParsableArguments {
    @Flag(name: .long, help: "Join the Ableton Link session on the local network: one tempo and one downbeat with its peers (DAWs, apps, other metronomes). Alone, --bpm sets the session's tempo; joining adopts the session's.")
    var link = false

    @Flag(name: .long, help: "With Link, share start and stop: Space starts and stops every peer that shares them, a start waiting for the next downbeat (implies --link).")
    var linkStartStop = false

    /// The session these options ask for, checked against the options it does not mix with.
    func settings(practice: PracticeOptions, output: OutputOptions, setlist: SetlistOptions) throws(SessionError) -> LinkSettings? {
        guard link || linkStartStop else { return nil }
        let refused: [(String, Bool)] = [
            ("--output", output.output != nil), ("--bars", output.bars != nil), ("--tempo-map", practice.tempoMap != nil), ("--setlist", setlist.setlist != nil),
            ("--step", practice.step != nil), ("--until", practice.until != nil), ("--gap", practice.gap != nil),
            ("--random-mute", practice.randomMute != nil), ("--count-in", practice.countIn != nil),
            ("--subdivide", practice.subdivide != nil), ("--swing", practice.swing != nil), ("--polyrhythm", practice.polyrhythm != nil),
        ]
        if let (option, _) = refused.first(where: { $0.1 }) {
            throw .badRequest("\(option) does not mix with --link: the session's beats lead; play without --link for \(option)")
        }
        return LinkSettings(startStopSync: linkStartStop)
    }
}
