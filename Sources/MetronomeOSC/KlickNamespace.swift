import MetronomeTiming

/// What an OSC message asks of a run, in klick's namespace (`/klick/...`,
/// as klick 0.12.2's manual lists it and klick answers it), before anything
/// is done: the loop acts on it and sends the replies.
package enum OSCRequest: Sendable, Equatable {
    /// `/klick/ping`: `/klick/pong` back, to the return address given (an OSC URL) or the sender.
    case ping(replyTo: String?)
    /// `/klick/quit`: the run ends, as if it had finished.
    case quit
    /// A key's action or a tempo, as a bound MIDI message would ask it.
    case control(MIDIMap.Response)
    /// A message of klick's namespace with arguments of the wrong types: refused, counted.
    case refused
}

package enum KlickNamespace {
    /// The request `message` makes; nil for a path this namespace does not have.
    /// Numbers are taken as klick's library takes them: `,i`, `,h`, `,f` or `,d`
    /// where a float is expected; any other type refuses the message (a
    /// `/klick/quit ,x` is not a quit).
    package static func request(for message: OSCMessage) -> OSCRequest? {
        let arguments = message.arguments
        switch message.path {
        case "/klick/ping":
            if arguments.isEmpty { return .ping(replyTo: nil) }
            if arguments.count == 1, let address = arguments[0].text { return .ping(replyTo: address) }
            return .refused
        case "/klick/quit":
            return arguments.isEmpty ? .quit : .refused
        case "/klick/metro/start":
            return arguments.isEmpty ? .control(.action(.start)) : .refused
        case "/klick/metro/stop":
            return arguments.isEmpty ? .control(.action(.stop)) : .refused
        case "/klick/simple/tap":
            return arguments.isEmpty ? .control(.action(.tap)) : .refused
        case "/klick/simple/set_tempo":
            guard arguments.count == 1, let bpm = arguments[0].number, bpm.isFinite, bpm > 0 else { return .refused }
            // To the thousandth of a bpm the tempo keeps; beyond its range, its nearest end.
            let millibeats = (min(bpm, Double(Tempo.range.upperBound) / 1_000) * 1_000).rounded()
            return .control(.tempo(Tempo(clamping: Int64(millibeats))))
        default:
            return nil
        }
    }
}
