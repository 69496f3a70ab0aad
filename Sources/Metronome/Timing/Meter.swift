/// A time signature: beats per bar over the note value that gets the beat.
public struct Meter: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public let beatsPerBar: Int
    public let noteValue: Int

    public static let noteValues: [Int] = [1, 2, 4, 8, 16, 32]
    public static let maximumBeats = 32
    public static let common = Meter(uncheckedBeats: 4, noteValue: 4)

    private init(uncheckedBeats: Int, noteValue: Int) {
        self.beatsPerBar = uncheckedBeats
        self.noteValue = noteValue
    }

    /// A meter of 1 to 32 beats over 1, 2, 4, 8, 16 or 32; nil otherwise.
    /// Allocates nothing (the audio thread changes meters).
    public init?(beatsPerBar: Int, noteValue: Int) {
        guard (1...Self.maximumBeats).contains(beatsPerBar), Self.isNoteValue(noteValue) else { return nil }
        self.init(uncheckedBeats: beatsPerBar, noteValue: noteValue)
    }

    /// 1, 2, 4, 8, 16 or 32: a power of two up to 32.
    @inline(__always)
    static func isNoteValue(_ value: Int) -> Bool { value >= 1 && value <= 32 && value & (value - 1) == 0 }

    /// Parses `4/4`, `3/4`, `7/8`.
    public init(parsing text: String) throws(MetronomeError) {
        let parts = text.trimmingSpaces.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let beats = Int(parts[0]), let note = Int(parts[1]) else {
            throw .usage("meter '\(text)' is not of the form BEATS/NOTE: use e.g. 4/4, 3/4 or 7/8")
        }
        guard (1...Self.maximumBeats).contains(beats) else {
            throw .usage("meter '\(text)' has \(beats) beats: use 1 to \(Self.maximumBeats) beats per bar")
        }
        guard Self.noteValues.contains(note) else {
            throw .usage("meter '\(text)' has note value \(note): use 1, 2, 4, 8, 16 or 32")
        }
        self.init(uncheckedBeats: beats, noteValue: note)
    }

    public var description: String { "\(beatsPerBar)/\(noteValue)" }
}
