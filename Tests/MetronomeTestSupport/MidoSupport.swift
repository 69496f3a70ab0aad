import Foundation
import Testing

/// A MIDI file as Python's `mido` reads it: every time in seconds from the
/// file's own tempo events (mido's arithmetic, not ours).
package struct MidoReading: Decodable {
    package struct Note: Decodable {
        package let time: Double
        package let key: Int
        package let velocity: Int
        package let channel: Int
    }

    package let format: Int
    package let ticksPerQuarter: Int
    package let notes: [Note]
    /// Each FF 51: its time and microseconds a quarter.
    package let tempos: [[Double]]
    /// Each FF 58: its time, beats and note value.
    package let meters: [[Double]]
    package let markers: [Marker]
    /// Each FF 05: its time and text.
    package let lyrics: [Marker]
    /// The time of the last End of Track.
    package let end: Double

    package struct Marker: Decodable {
        package let time: Double
        package let text: String
    }

    package static let python = "/usr/bin/python3"

    package static let reader = """
        import json, sys, mido
        f = mido.MidiFile(sys.argv[1])
        out = {"format": f.type, "ticksPerQuarter": f.ticks_per_beat, "notes": [], "tempos": [], "meters": [], "markers": [], "lyrics": []}
        t = 0.0
        for m in f:
            t += m.time
            if m.type == "note_on" and m.velocity > 0:
                out["notes"].append({"time": t, "key": m.note, "velocity": m.velocity, "channel": m.channel})
            elif m.type == "set_tempo":
                out["tempos"].append([t, m.tempo])
            elif m.type == "time_signature":
                out["meters"].append([t, m.numerator, m.denominator])
            elif m.type == "marker":
                out["markers"].append({"time": t, "text": m.text})
            elif m.type == "lyrics":
                out["lyrics"].append({"time": t, "text": m.text})
        out["end"] = t
        json.dump(out, sys.stdout)
        """

    /// Reads `path` with mido; fails the test if mido cannot.
    package static func read(_ path: String) throws -> MidoReading {
        let result = try run(python, ["-c", reader, path])
        try #require(result.status == 0, "mido could not read \(path): \(result.standardError)")
        return try JSONDecoder().decode(MidoReading.self, from: Data(result.standardOutput.utf8))
    }

    /// Writes a MIDI file with mido from Python statements that fill `track`
    /// (a `mido.MidiTrack` of a format-0 file of `ticksPerQuarter`).
    package static func write(_ path: String, ticksPerQuarter: Int, track statements: String) throws {
        let script = """
            import sys, mido
            from mido import MetaMessage, Message
            f = mido.MidiFile(type=0, ticks_per_beat=\(ticksPerQuarter))
            track = mido.MidiTrack()
            f.tracks.append(track)
            \(statements.split(separator: "\n").joined(separator: "\n"))
            f.save(sys.argv[1])
            """
        let result = try run(python, ["-c", script, path])
        try #require(result.status == 0, "mido could not write \(path): \(result.standardError)")
    }
}
