import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// The Standard MIDI File writer and reader, against the format's bytes and mido.
@Suite struct MIDIFileTests {
    let directory = TemporaryDirectory()

    @Test func theBytesAreTheFormatsOwn() {
        let file = MIDIFile(format: 0, ticksPerQuarter: 960, tracks: [MIDIFile.Track(events: [
            MIDIEvent(tick: 0, .timeSignature(beats: 7, noteValue: 8)),
            MIDIEvent(tick: 0, .tempo(microsecondsPerQuarter: 612_245)),
            MIDIEvent(tick: 0, .marker("verse")),
            MIDIEvent(tick: 128, .noteOn(channel: 9, key: 34, velocity: 100)),
            MIDIEvent(tick: 16_511, .noteOff(channel: 9, key: 34)),
        ], end: 2_113_662)])
        // MThd, 6, format 0, 1 track, 960 (0x03C0); MTrk and its length; delta times as variable-length quantities.
        let body: [UInt8] = [0x00, 0xFF, 0x58, 0x04, 0x07, 0x03, 0x0C, 0x08,
                             0x00, 0xFF, 0x51, 0x03, 0x09, 0x57, 0x95,
                             0x00, 0xFF, 0x06, 0x05] + Array("verse".utf8) + [
                             0x81, 0x00, 0x99, 0x22, 0x64,
                             0xFF, 0x7F, 0x89, 0x22, 0x40,
                             0xFF, 0xFF, 0x7F, 0xFF, 0x2F, 0x00]
        let expected: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x03, 0xC0] + Array("MTrk".utf8)
            + [0, 0, 0, UInt8(body.count)] + body
        #expect(file.bytes() == expected)
        // Read back: the meta events and the end; notes are skipped.
        let read = try? MIDIFile(parsing: expected, name: "x.mid")
        #expect(read?.ticksPerQuarter == 960 && read?.tracks.first?.end == 2_113_662)
        #expect(read?.tracks.first?.events == Array(file.tracks[0].events.prefix(3)))
    }

    /// Hours without a click: deltas of at most 2^28 - 1 ticks, bridged, and mido counts the same ticks.
    @Test func aGapLongerThanADeltaHoldsIsBridged() throws {
        let far: Int64 = (1 << 28) + 5, end: Int64 = (1 << 29) + 7
        let file = MIDIFile(format: 0, ticksPerQuarter: 960, tracks: [MIDIFile.Track(events: [
            MIDIEvent(tick: 0, .tempo(microsecondsPerQuarter: 500_000)),
            MIDIEvent(tick: far, .noteOn(channel: 9, key: 33, velocity: 90)),
            MIDIEvent(tick: far + 1, .noteOff(channel: 9, key: 33)),
        ], end: end)])
        let path = directory.file("gap.mid")
        try Data(file.bytes()).write(to: URL(fileURLWithPath: path))
        let script = """
            import sys, mido
            t, out = 0, []
            for m in mido.MidiFile(sys.argv[1]).tracks[0]:
                t += m.time
                if m.type in ('note_on', 'end_of_track'): out.append('%s %d' % (m.type, t))
            print(' '.join(out))
            """
        let result = try run(MidoReading.python, ["-c", script, path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "note_on \(far) end_of_track \(end)")
        #expect(try MIDIFile(parsing: file.bytes(), name: "gap.mid").tracks[0].end == end)
    }
}
