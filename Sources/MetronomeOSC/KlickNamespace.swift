import MetronomeTiming

/// What an OSC message asks of a run, in klick's namespace (`/klick/...`,
/// as klick 0.12.2's manual lists it and klick answers it) or ours
/// (`/metronome/...`), before anything is done: the loop acts on it and sends the replies.
package enum OSCRequest: Sendable, Equatable {
    /// `/klick/ping`: `/klick/pong` back, to the return address given (an OSC URL) or the sender.
    case ping(replyTo: String?)
    /// `/klick/check`: `/klick/ready` back, as `ping`.
    case check(replyTo: String?)
    /// `/klick/register_client`: the address (or the sender) is told of every change from now on.
    case register(String?)
    /// `/klick/unregister_client`: no longer.
    case unregister(String?)
    /// `/klick/query` and `/klick/PART/query`: the state, to the return address or the sender.
    case query(KlickPart?, replyTo: String?)
    /// `/klick/quit`: the run ends, as if it had finished.
    case quit
    /// A key's action or a tempo, as a bound MIDI message would ask it.
    case control(MIDIMap.Response)
    /// `/klick/config/set_volume ,f`: the volume, 0 to 1 (as a fraction; beyond, its nearest end).
    case volume(percent: Int)
    /// `/klick/simple/set_meter ,ii`: beats per bar (0: no bell) and the note value
    /// (nil: the one playing, `/metronome/meter ,i`).
    case meter(beats: Int, noteValue: Int?)
    /// `/klick/metro/set_type ,s`: the kind of metronome klick would switch to.
    case metronomeType(String)
    /// A message of klick's namespace that this metronome has no counterpart for:
    /// answered with `/metronome/error ,ss PATH REASON` to the sender.
    case unsupported(path: String, reason: String)
    /// `/metronome/query`: the status line's values (`MetronomeStatus`), to the return address or the sender.
    case status(replyTo: String?)
    /// `/metronome/subscribe`: the address (or the sender) receives the beat feed from now on.
    case subscribe(String?)
    /// `/metronome/unsubscribe`: no longer.
    case unsubscribe(String?)
    /// `/metronome/song ,s NAME` or `,i NUMBER` (from 1): a setlist's song, from the next bar line.
    case song(SongChoice)
    /// `/klick/map/load_file ,s FILE` with `--osc-allow-files`: the map in FILE, from the next bar line.
    case loadMap(String)
    /// A message of klick's namespace with arguments of the wrong types: refused, counted.
    case refused
}

/// A setlist's song as a message names it.
package enum SongChoice: Sendable, Equatable {
    /// By its name in the setlist, as its case may be.
    case named(String)
    /// By its place, from 1.
    case numbered(Int)
}

/// The parts of klick's state that a query names (`/klick/PART/query`).
package enum KlickPart: String, Sendable, CaseIterable {
    case config, metro, simple, map, jack
}

package enum KlickNamespace {
    /// The path of the error reply this metronome adds to klick's namespace, which has none:
    /// `,ss` the path refused and why.
    package static let errorPath = "/metronome/error"

    /// The messages whose one argument, if any, is a return address (else the sender is meant).
    private static let addressed: [String: @Sendable (String?) -> OSCRequest] = [
        "/klick/ping": { .ping(replyTo: $0) }, "/klick/check": { .check(replyTo: $0) },
        "/klick/register_client": { .register($0) }, "/klick/unregister_client": { .unregister($0) },
        "/klick/query": { .query(nil, replyTo: $0) }, "/metronome/query": { .status(replyTo: $0) },
        "/metronome/subscribe": { .subscribe($0) }, "/metronome/unsubscribe": { .unsubscribe($0) },
    ]

    /// The request `message` makes; nil for a path this namespace does not have.
    /// Numbers are taken as klick's library takes them: `,i`, `,h`, `,f` or `,d`
    /// where a float is expected; any other type refuses the message (a
    /// `/klick/quit ,x` is not a quit).
    package static func request(for message: OSCMessage, filesAllowed: Bool = false) -> OSCRequest? {
        let arguments = message.arguments
        let path = message.path
        /// No argument, or one string: a return address.
        func address() -> String?? {
            if arguments.isEmpty { return .some(nil) }
            if arguments.count == 1, let text = arguments[0].text { return .some(text) }
            return nil
        }
        /// `count` numbers, each finite.
        func numbers(_ count: Int) -> [Double]? {
            guard arguments.count == count else { return nil }
            let values = arguments.compactMap(\.number)
            return values.count == count && values.allSatisfy(\.isFinite) ? values : nil
        }
        func unsupported(_ reason: String) -> OSCRequest { .unsupported(path: path, reason: reason) }
        if let addressed = addressed[path] { return address().map(addressed) ?? .refused }
        switch path {
        case "/klick/quit":
            return arguments.isEmpty ? .quit : .refused
        case "/metronome/meter":
            guard let beats = numbers(1)?[0], beats == beats.rounded() else { return .refused }
            guard beats >= 0, beats <= Double(Meter.maximumBeats) else {
                return unsupported("a bar has 0 (no bell) to \(Meter.maximumBeats) beats")
            }
            return .meter(beats: Int(beats), noteValue: nil)
        case "/metronome/song":
            guard arguments.count == 1 else { return .refused }
            if let name = arguments[0].text { return .song(.named(name)) }
            guard let number = numbers(1)?[0], number == number.rounded(), abs(number) < 1e9 else { return .refused }
            return .song(.numbered(Int(number)))
        case "/metronome/pattern":
            guard arguments.count == 1, arguments[0].text != nil else { return .refused }
            return unsupported("a bar's pattern is chosen at the start (--pattern)")
        case "/klick/metro/start":
            return arguments.isEmpty ? .control(.action(.start)) : .refused
        case "/klick/metro/stop":
            return arguments.isEmpty ? .control(.action(.stop)) : .refused
        case "/klick/metro/set_type":
            guard arguments.count == 1, let type = arguments[0].text else { return .refused }
            return .metronomeType(type)
        case "/klick/simple/tap":
            // klick takes a `,d` time of the client's too; its clock is not ours: the tap counts from now.
            return arguments.isEmpty || numbers(1) != nil ? .control(.action(.tap)) : .refused
        case "/klick/simple/set_tempo", "/metronome/tempo":
            guard let bpm = numbers(1)?[0], bpm > 0 else { return .refused }
            // To the thousandth of a bpm the tempo keeps; beyond its range, its nearest end.
            let millibeats = (min(bpm, Double(Tempo.range.upperBound) / 1_000) * 1_000).rounded()
            return .control(.tempo(Tempo(clamping: Int64(millibeats))))
        case "/klick/simple/set_meter":
            guard let values = numbers(2), values.allSatisfy({ $0 == $0.rounded() && abs($0) < 1_000 }) else { return .refused }
            let beats = Int(values[0]), noteValue = Int(values[1])
            guard beats >= 0, beats <= Meter.maximumBeats, Meter.noteValues.contains(noteValue) else {
                return unsupported("a meter has 0 (no bell) to \(Meter.maximumBeats) beats over 1, 2, 4, 8, 16 or 32")
            }
            return .meter(beats: beats, noteValue: noteValue)
        case "/klick/config/set_volume", "/metronome/volume":
            guard let volume = numbers(1)?[0] else { return .refused }
            return .volume(percent: Int((min(max(volume, 0), 1) * 100).rounded()))
        case "/klick/simple/set_pattern":
            guard arguments.count == 1, arguments[0].text != nil else { return .refused }
            return unsupported("a bar's pattern is chosen at the start (--pattern)")
        case "/klick/simple/set_tempo_increment", "/klick/simple/set_tempo_start", "/klick/simple/set_tempo_limit":
            guard numbers(1) != nil else { return .refused }
            return unsupported("the speed trainer is chosen at the start (--bpm, --step S/M, --until T)")
        case "/klick/config/set_sound":
            if numbers(1) != nil { return unsupported("the sounds are chosen at the start (--beat-sound, --bell-sound)") }
            guard arguments.count == 2, arguments.allSatisfy({ $0.text != nil }) else { return .refused }
            return filesAllowed ? unsupported("the sounds are chosen at the start (--beat-sound, --bell-sound)")
                : unsupported("a message that opens a file is refused without --osc-allow-files")
        case "/klick/config/set_sound_volume", "/klick/config/set_sound_pitch":
            guard numbers(2) != nil else { return .refused }
            return unsupported(path.hasSuffix("pitch") ? "the sounds play at their own pitch" : "one volume sets both sounds (/klick/config/set_volume)")
        case "/klick/config/connect":
            guard arguments.allSatisfy({ $0.text != nil }) else { return .refused }
            return unsupported("connections are made at the start (--jack --connect PORT)")
        case "/klick/config/autoconnect", "/klick/config/disconnect_all", "/klick/config/get_available_ports":
            guard path.hasSuffix("ports") ? address() != nil : arguments.isEmpty else { return .refused }
            return unsupported("connections are made at the start (--jack --connect PORT)")
        case "/klick/map/load_file":
            guard arguments.count == 1, let file = arguments[0].text else { return .refused }
            return filesAllowed ? .loadMap(file) : unsupported("a message that opens a file is refused without --osc-allow-files")
        case "/klick/map/set_preroll":
            guard numbers(1) != nil else { return .refused }
            return unsupported("the count-in is chosen at the start (--count-in BARS)")
        case "/klick/map/set_tempo_multiplier":
            guard numbers(1) != nil else { return .refused }
            return unsupported("a tempo map plays at its own tempi")
        default:
            // Our own namespace: every key's action, by the name the MIDI map gives it.
            if path.hasPrefix("/metronome/"), let action = MIDIMap.action(named: String(path.dropFirst("/metronome/".count))) {
                return arguments.isEmpty ? .control(.action(action)) : .refused
            }
            for part in KlickPart.allCases where path == "/klick/\(part.rawValue)/query" {
                return address().map { .query(part, replyTo: $0) } ?? .refused
            }
            return nil
        }
    }

    /// The replies to a query of `part` (nil: every part, as klick's `/klick/query`):
    /// klick 0.12.2's messages, types and order. A part that is not the metronome's
    /// type (`simple` of a map) is answered with the error klick prints.
    package static func replies(to part: KlickPart?, state: KlickState) -> [OSCMessage] {
        guard let part else {
            return replies(to: .config, state: state) + replies(to: .metro, state: state) + replies(to: state.type.part, state: state)
        }
        switch part {
        case .config:
            return [state.soundMessage,
                    OSCMessage("/klick/config/sound_volume", [.float(1), .float(1)]),
                    OSCMessage("/klick/config/sound_pitch", [.float(1), .float(1)]),
                    OSCMessage("/klick/config/volume", [.float(state.volume)])]
        case .metro:
            return [OSCMessage("/klick/metro/type", [.string(state.type.rawValue)]),
                    OSCMessage("/klick/metro/active", [.int32(state.active ? 1 : 0)])]
        case .simple, .map, .jack:
            guard part == state.type.part else {
                return [OSCMessage(errorPath, [.string("/klick/\(part.rawValue)/query"), .string("function not available for current metronome type")])]
            }
            switch part {
            case .simple:
                return [OSCMessage("/klick/simple/tempo", [.float(state.tempo)]),
                        OSCMessage("/klick/simple/tempo_increment", [.float(state.tempoIncrement)]),
                        OSCMessage("/klick/simple/tempo_start", [.float(state.tempoStart)]),
                        OSCMessage("/klick/simple/tempo_limit", [.float(state.tempoLimit)]),
                        OSCMessage("/klick/simple/current_tempo", [.float(state.currentTempo)]),
                        OSCMessage("/klick/simple/meter", [.int32(Int32(state.beatsPerBar)), .int32(Int32(state.noteValue))]),
                        OSCMessage("/klick/simple/pattern", [.string(state.pattern)])]
            case .map:
                return [OSCMessage("/klick/map/filename", [.string(state.mapFile)]),
                        OSCMessage("/klick/map/preroll", [.int32(Int32(state.preroll))]),
                        OSCMessage("/klick/map/tempo_multiplier", [.float(1)])]
            default:
                // klick's `/klick/jack/query` answers nothing.
                return []
            }
        }
    }

    /// What registered clients are told when the state moves from `old` to `new`:
    /// each value that changed, in the message a query gives it in, as klick
    /// tells its clients after each change.
    package static func notifications(from old: KlickState, to new: KlickState) -> [OSCMessage] {
        var messages: [OSCMessage] = []
        if old.volume != new.volume { messages.append(OSCMessage("/klick/config/volume", [.float(new.volume)])) }
        if old.type != new.type { messages.append(OSCMessage("/klick/metro/type", [.string(new.type.rawValue)])) }
        if old.active != new.active { messages.append(OSCMessage("/klick/metro/active", [.int32(new.active ? 1 : 0)])) }
        if new.type == .simple {
            if old.tempo != new.tempo { messages.append(OSCMessage("/klick/simple/tempo", [.float(new.tempo)])) }
            if old.beatsPerBar != new.beatsPerBar || old.noteValue != new.noteValue {
                messages.append(OSCMessage("/klick/simple/meter", [.int32(Int32(new.beatsPerBar)), .int32(Int32(new.noteValue))]))
            }
            if old.currentTempo != new.currentTempo { messages.append(OSCMessage("/klick/simple/current_tempo", [.float(new.currentTempo)])) }
        }
        return messages
    }
}
