/// What klick's queries report of a run, in klick's terms: made by the live
/// loop from what it shows, compared each wake to tell registered clients
/// what changed.
package struct KlickState: Sendable, Equatable {
    /// klick's three kinds of metronome, by what moves the tempo here.
    package enum MetronomeType: String, Sendable {
        /// One tempo, or the speed trainer.
        case simple
        /// A tempo map or a setlist.
        case map
        /// Following JACK's transport.
        case jack

        var part: KlickPart {
            switch self {
            case .simple: .simple
            case .map: .map
            case .jack: .jack
            }
        }
    }

    package var type: MetronomeType
    /// 0 to 1.
    package var volume: Float
    /// Playing, not paused.
    package var active: Bool
    /// The tempo asked for (`/klick/simple/tempo`), and the one playing now.
    package var tempo: Float
    package var currentTempo: Float
    /// The speed trainer's bpm a bar, first tempo and last (0 without one, as klick's).
    package var tempoIncrement: Float
    package var tempoStart: Float
    package var tempoLimit: Float
    package var beatsPerBar: Int
    package var noteValue: Int
    /// klick's notation (`X.x.`); empty for the plain bar, bell then beats.
    package var pattern: String
    /// A tempo map's file, and its count-in bars (klick's preroll).
    package var mapFile: String
    package var preroll: Int

    package init(type: MetronomeType, volume: Float, active: Bool, tempo: Float,
                 currentTempo: Float, tempoIncrement: Float = 0, tempoStart: Float = 0, tempoLimit: Float = 0,
                 beatsPerBar: Int, noteValue: Int, pattern: String = "", mapFile: String = "", preroll: Int = 0) {
        self.type = type
        self.volume = volume
        self.active = active
        self.tempo = tempo
        self.currentTempo = currentTempo
        self.tempoIncrement = tempoIncrement
        self.tempoStart = tempoStart
        self.tempoLimit = tempoLimit
        self.beatsPerBar = beatsPerBar
        self.noteValue = noteValue
        self.pattern = pattern
        self.mapFile = mapFile
        self.preroll = preroll
    }

    /// `/klick/config/sound ,i -2`: sounds from files, as klick 0.12.2 answers for its `-S`
    /// (its manual names a `,ss` of the files, which it never sends); ours are files, built-in or given.
    var soundMessage: OSCMessage {
        OSCMessage("/klick/config/sound", [.int32(-2)])
    }
}
