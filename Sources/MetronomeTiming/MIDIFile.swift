/// A Standard MIDI File, as much of one as a click track needs: tempo,
/// time-signature and marker meta events, and notes.
///
/// Events carry absolute ticks; `bytes()` writes each track's events in the
/// order they are given (sorted by tick) with delta times, and ends every
/// track with its End of Track (FF 2F) at the track's `end` tick.
package struct MIDIFile: Sendable, Equatable {
    /// 0: one track; 1: tracks played together.
    package var format: UInt16
    /// Ticks a quarter note: the file's time division (SMPTE divisions are not read).
    package var ticksPerQuarter: Int64
    package var tracks: [Track]

    package struct Track: Sendable, Equatable {
        package var events: [MIDIEvent]
        /// The tick of its End of Track.
        package var end: Int64

        package init(events: [MIDIEvent], end: Int64) {
            self.events = events
            self.end = end
        }
    }

    package init(format: UInt16, ticksPerQuarter: Int64, tracks: [Track]) {
        self.format = format
        self.ticksPerQuarter = ticksPerQuarter
        self.tracks = tracks
    }

    /// The slowest tempo a file can hold: FF 51 has three bytes of microseconds a quarter.
    package static let longestQuarter: Int64 = 0xFF_FFFF

    /// The file's bytes: the MThd header, then an MTrk chunk a track.
    package func bytes() -> [UInt8] {
        var bytes = Array("MThd".utf8)
        Self.append(UInt32(6), to: &bytes)
        Self.append(UInt16(format), to: &bytes)
        Self.append(UInt16(tracks.count), to: &bytes)
        Self.append(UInt16(ticksPerQuarter), to: &bytes)
        for track in tracks {
            var data: [UInt8] = []
            var tick: Int64 = 0
            for event in track.events {
                precondition(event.tick >= tick, "events are written in tick order")
                Self.appendDelta(from: &tick, to: event.tick, data: &data)
                data += event.message.bytes
            }
            Self.appendDelta(from: &tick, to: max(tick, track.end), data: &data)
            data += [0xFF, 0x2F, 0x00]
            bytes += Array("MTrk".utf8)
            Self.append(UInt32(data.count), to: &bytes)
            bytes += data
        }
        return bytes
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func append(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    /// The delta time from `tick` to `next`: a delta holds at most 2^28 - 1
    /// ticks, so a longer gap (hours without a click) is bridged by empty
    /// text events (FF 01 00), which every reader skips.
    static func appendDelta(from tick: inout Int64, to next: Int64, data: inout [UInt8]) {
        let longest: Int64 = (1 << 28) - 1
        while next - tick > longest {
            appendQuantity(longest, to: &data)
            data += [0xFF, 0x01, 0x00]
            tick += longest
        }
        appendQuantity(next - tick, to: &data)
        tick = next
    }

    /// A variable-length quantity: seven bits a byte, most significant first,
    /// every byte but the last with its top bit set (at most four bytes).
    static func appendQuantity(_ value: Int64, to bytes: inout [UInt8]) {
        precondition(value >= 0 && value < 1 << 28, "a delta time is 0 to 2^28 - 1")
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes += groups.reversed()
    }
}

/// One event of a track, at its absolute tick.
package struct MIDIEvent: Sendable, Equatable {
    package var tick: Int64
    package var message: Message

    package init(tick: Int64, _ message: Message) {
        self.tick = tick
        self.message = message
    }

    package enum Message: Sendable, Equatable {
        /// FF 51: microseconds a quarter note, from here on.
        case tempo(microsecondsPerQuarter: Int64)
        /// FF 58: beats over a note value (a power of two).
        case timeSignature(beats: Int, noteValue: Int)
        /// FF 06: a name for this place.
        case marker(String)
        /// FF 05: a syllable sung (spoken) here.
        case lyric(String)
        /// 9n: a key struck on channel `channel` (0 to 15; 9 is the drums).
        case noteOn(channel: UInt8, key: UInt8, velocity: UInt8)
        /// 8n: the key released.
        case noteOff(channel: UInt8, key: UInt8)

        var bytes: [UInt8] {
            switch self {
            case .tempo(let micro):
                return [0xFF, 0x51, 0x03, UInt8(micro >> 16 & 0xFF), UInt8(micro >> 8 & 0xFF), UInt8(micro & 0xFF)]
            case .timeSignature(let beats, let noteValue):
                let power = UInt8(noteValue.trailingZeroBitCount)
                // MIDI clocks (24 a quarter) a beat, and 32nd notes a quarter.
                return [0xFF, 0x58, 0x04, UInt8(beats), power, UInt8(max(1, 96 / noteValue)), 8]
            case .marker(let text):
                return Self.text(0x06, text)
            case .lyric(let text):
                return Self.text(0x05, text)
            case .noteOn(let channel, let key, let velocity):
                return [0x90 | channel, key, velocity]
            case .noteOff(let channel, let key):
                return [0x80 | channel, key, 0x40]
            }
        }

        /// A text meta event of type `type`: FF, the type, the length, the UTF-8.
        private static func text(_ type: UInt8, _ text: String) -> [UInt8] {
            var bytes: [UInt8] = [0xFF, type]
            MIDIFile.appendQuantity(Int64(text.utf8.count), to: &bytes)
            return bytes + Array(text.utf8)
        }
    }
}
