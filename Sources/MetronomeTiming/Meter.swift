/// A time signature: beats per bar over the note value that gets the beat,
/// and for an additive meter (`2+2+3/8`) the beats where its groups start.
package struct Meter: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    package let beatsPerBar: Int
    package let noteValue: Int
    /// Bit `b` is set when beat `b` (from 0) starts a group; 0 for a plain meter.
    package let groupStarts: UInt32

    package static let noteValues: [Int] = [1, 2, 4, 8, 16, 32]
    package static let maximumBeats = 32
    package static let common = Meter(uncheckedBeats: 4, noteValue: 4, groupStarts: 0)

    private init(uncheckedBeats: Int, noteValue: Int, groupStarts: UInt32) {
        self.beatsPerBar = uncheckedBeats
        self.noteValue = noteValue
        self.groupStarts = groupStarts
    }

    /// A plain meter of 1 to 32 beats over 1, 2, 4, 8, 16 or 32; nil otherwise.
    /// Allocates nothing (the audio thread changes meters).
    package init?(beatsPerBar: Int, noteValue: Int) {
        // Compared, not a range's `contains`: a range's type is made (allocated) at run time on first use.
        guard beatsPerBar >= 1, beatsPerBar <= Self.maximumBeats, Self.isNoteValue(noteValue) else { return nil }
        self.init(uncheckedBeats: beatsPerBar, noteValue: noteValue, groupStarts: 0)
    }

    /// 1, 2, 4, 8, 16 or 32: a power of two up to 32.
    @inline(__always)
    static func isNoteValue(_ value: Int) -> Bool { value >= 1 && value <= 32 && value & (value - 1) == 0 }

    /// Parses `4/4`, `3/4`, `7/8`, and additive meters such as `2+2+3/8`.
    package init(parsing text: String) throws(TimingError) {
        let parts = text.trimmingSpaces.split(separator: "/", omittingEmptySubsequences: false)
        let groups = parts.first.map { $0.split(separator: "+", omittingEmptySubsequences: false).map { Int($0) } } ?? []
        guard parts.count == 2, !groups.isEmpty, let note = Int(parts[1]) else {
            throw .invalid("meter '\(text)' is not of the form BEATS/NOTE: use e.g. 4/4, 3/4, 7/8 or 2+2+3/8")
        }
        var beats = 0
        var starts: UInt32 = 0
        for group in groups {
            guard let group, group >= 1, beats + group <= Self.maximumBeats else {
                throw .invalid("meter '\(text)' does not have 1 to \(Self.maximumBeats) beats per bar in groups of at least 1: use e.g. 4/4 or 2+2+3/8")
            }
            starts |= 1 << UInt32(beats)
            beats += group
        }
        guard Self.noteValues.contains(note) else {
            throw .invalid("meter '\(text)' has note value \(note): use 1, 2, 4, 8, 16 or 32")
        }
        self.init(uncheckedBeats: beats, noteValue: note, groupStarts: groups.count > 1 ? starts : 0)
    }

    /// Whether beat `beat` of the bar (from 0, not the first) starts a group of an additive meter.
    @inline(__always)
    package func startsGroup(beat: Int) -> Bool {
        beat > 0 && beat < 32 && groupStarts & (1 << UInt32(beat)) != 0
    }

    package var description: String {
        guard groupStarts != 0 else { return "\(beatsPerBar)/\(noteValue)" }
        var groups: [Int] = []
        var start = 0
        for beat in 1...beatsPerBar where beat == beatsPerBar || startsGroup(beat: beat) {
            groups.append(beat - start)
            start = beat
        }
        return groups.map(String.init).joined(separator: "+") + "/\(noteValue)"
    }
}
