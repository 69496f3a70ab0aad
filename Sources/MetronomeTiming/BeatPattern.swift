/// Which sound each beat of a bar plays, in klick's notation: `X` the bell
/// (an accent), `x` a beat, `.` silence; one character a beat (`--pattern X.x.`).
public struct BeatPattern: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public let beats: Int
    /// Bit `b` set: beat `b` rings the bell.
    public let accents: UInt32
    /// Bit `b` set: beat `b` is silent.
    public let rests: UInt32

    /// Parses `X`, `x` and `.`; `beatsPerBar` is the length it must have.
    public init(parsing text: String, beatsPerBar: Int) throws(TimingError) {
        // Characters, not bytes: `é` is one beat and is named as itself.
        let characters = Array(text.trimmingSpaces)
        var accents: UInt32 = 0, rests: UInt32 = 0
        for (index, character) in characters.enumerated() where index < Meter.maximumBeats {
            switch character {
            case "X": accents |= 1 << UInt32(index)
            case "x": break
            case ".": rests |= 1 << UInt32(index)
            default:
                throw .invalid("pattern '\(text)' has '\(character)' at beat \(index + 1): use X (bell), x (beat) or . (silent), one a beat")
            }
        }
        guard characters.count == beatsPerBar else {
            throw .invalid("pattern '\(text)' has \(characters.count) beat\(characters.count == 1 ? "" : "s") but the bar has \(beatsPerBar): give one character a beat")
        }
        self.beats = beatsPerBar
        self.accents = accents
        self.rests = rests
    }

    public var description: String {
        String((0..<beats).map { beat in
            rests & (1 << UInt32(beat)) != 0 ? "." : accents & (1 << UInt32(beat)) != 0 ? "X" : "x"
        })
    }
}
