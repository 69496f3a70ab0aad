/// Which sound each beat of a bar plays, in klick's notation: `X` the bell
/// (an accent), `x` a beat, `.` silence; one character a beat (`--pattern X.x.`).
package struct BeatPattern: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    package let beats: Int
    /// Bit `b` set: beat `b` rings the bell.
    package let accents: UInt32
    /// Bit `b` set: beat `b` is silent.
    package let rests: UInt32

    /// Parses `X`, `x` and `.`; `beatsPerBar` is the length it must have.
    package init(parsing text: String, beatsPerBar: Int) throws(TimingError) {
        self = try Written(parsing: text).fitted(beatsPerBar: beatsPerBar)
    }

    /// A pattern as written (`--pattern`), each character read; its length is
    /// held against a bar once the meter is known (`fitted(beatsPerBar:)`).
    package struct Written: Sendable, Equatable {
        package let text: String
        /// Its characters, however many: a bar has at most `Meter.maximumBeats`.
        let beats: Int
        let accents: UInt32
        let rests: UInt32

        package init(parsing text: String) throws(TimingError) {
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
            self.text = text
            beats = characters.count
            self.accents = accents
            self.rests = rests
        }

        /// The pattern of a bar of `beatsPerBar` beats: one character a beat.
        package func fitted(beatsPerBar: Int) throws(TimingError) -> BeatPattern {
            guard beats == beatsPerBar else {
                throw .invalid("pattern '\(text)' has \(beats) beat\(beats == 1 ? "" : "s") but the bar has \(beatsPerBar): give one character a beat")
            }
            return BeatPattern(beats: beats, accents: accents, rests: rests)
        }
    }

    private init(beats: Int, accents: UInt32, rests: UInt32) {
        self.beats = beats
        self.accents = accents
        self.rests = rests
    }

    package var description: String {
        String((0..<beats).map { beat in
            rests & (1 << UInt32(beat)) != 0 ? "." : accents & (1 << UInt32(beat)) != 0 ? "X" : "x"
        })
    }
}
