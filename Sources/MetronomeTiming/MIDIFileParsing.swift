extension MIDIFile {
    /// Whether `bytes` are a Standard MIDI File: they start with its `MThd`,
    /// whatever the file is called; or a file called `.mid` or `.midi` holds
    /// what is no text (a MIDI file cut short, so its error names the byte).
    package static func isMIDIFile(_ bytes: [UInt8], name: String = "") -> Bool {
        let header = Array("MThd".utf8)
        if bytes.starts(with: header) { return true }
        let lowered = name.lowercased()
        guard lowered.hasSuffix(".mid") || lowered.hasSuffix(".midi") else { return false }
        return header.starts(with: bytes) || bytes.prefix(64).contains { $0 == 0 || $0 >= 0x80 }
    }

    /// Reads the tempo, time-signature and marker events of every track and
    /// each track's End of Track; notes and everything else are checked and
    /// skipped. A file that is not whole or not well formed is one line
    /// naming the byte offset (from 0) where it goes wrong, exit 65.
    package init(parsing bytes: [UInt8], name: String) throws(TimingError) {
        var reader = MIDIByteReader(bytes: bytes, name: name)
        let header = Array("MThd".utf8)
        guard bytes.starts(with: header) else {
            if header.starts(with: bytes) { throw reader.error(at: bytes.count, "the file ends inside its MThd header (truncated?)") }
            throw reader.error(at: 0, "not a MIDI file (no MThd header)")
        }
        reader.offset = 4
        let headerLength = try reader.fixed(4, "the header's length")
        guard headerLength >= 6 else { throw reader.error(at: 4, "the header is \(headerLength) bytes long; it has 6") }
        let headerStart = reader.offset
        let format = try reader.fixed(2, "the file's format")
        guard format <= 1 else {
            throw reader.error(at: headerStart, "format \(format) (independent songs) is not a tempo map: export format 0 or 1")
        }
        let trackCount = try reader.fixed(2, "the number of tracks")
        let division = try reader.fixed(2, "the time division")
        guard division & 0x8000 == 0 else {
            throw reader.error(at: headerStart + 4, "the time division is SMPTE frames; a tempo map counts ticks a quarter note")
        }
        guard division > 0 else { throw reader.error(at: headerStart + 4, "the time division is 0 ticks a quarter note") }
        reader.offset = headerStart + Int(headerLength)
        guard reader.offset <= bytes.count else { throw reader.error(at: bytes.count, "the file ends inside its header") }

        var tracks: [Track] = []
        while tracks.count < trackCount {
            guard reader.offset < bytes.count else {
                throw reader.error(at: reader.offset, "the file ends after \(tracks.count) of its \(trackCount) tracks")
            }
            let chunkStart = reader.offset
            let type = try reader.take(4, "a chunk's type")
            let length = Int(try reader.fixed(4, "a chunk's length"))
            let end = reader.offset + length
            guard end <= bytes.count else {
                throw reader.error(at: chunkStart, "the chunk here says it is \(length) bytes long; the file ends \(bytes.count - reader.offset) bytes on (truncated?)")
            }
            // Chunks of other types are skipped, as the format says.
            guard type == Array("MTrk".utf8) else {
                reader.offset = end
                continue
            }
            tracks.append(try reader.track(endingAt: end))
        }
        guard !tracks.isEmpty else { throw reader.error(at: headerStart + 2, "the file has no tracks") }
        self.init(format: UInt16(format), ticksPerQuarter: Int64(division), tracks: tracks)
    }
}

/// Reads a MIDI file's bytes, keeping the offset for its messages.
private struct MIDIByteReader {
    let bytes: [UInt8]
    let name: String
    var offset = 0

    func error(at offset: Int, _ message: String) -> TimingError {
        TimingError(.malformed, "\(name): byte \(offset): \(message)")
    }

    mutating func take(_ count: Int, _ what: String) throws(TimingError) -> [UInt8] {
        guard offset + count <= bytes.count else { throw error(at: offset, "the file ends inside \(what) (truncated?)") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A big-endian number of `count` bytes.
    mutating func fixed(_ count: Int, _ what: String) throws(TimingError) -> UInt32 {
        try take(count, what).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A variable-length quantity of at most four bytes, before `end`.
    mutating func quantity(before end: Int, _ what: String) throws(TimingError) -> Int64 {
        let start = offset
        var value: Int64 = 0
        for _ in 0..<4 {
            guard offset < end else { throw error(at: offset, "the track ends inside \(what)") }
            let byte = bytes[offset]
            offset += 1
            value = value << 7 | Int64(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        throw error(at: start, "\(what) is longer than four bytes")
    }

    /// One MTrk's events up to `end`: it must finish with End of Track, there.
    mutating func track(endingAt end: Int) throws(TimingError) -> MIDIFile.Track {
        var events: [MIDIEvent] = []
        var tick: Int64 = 0
        var running: UInt8?
        while offset < end {
            tick += try quantity(before: end, "a delta time")
            let eventStart = offset
            guard offset < end else { throw error(at: offset, "the track ends after a delta time, without its event") }
            var status = bytes[offset]
            if status < 0x80 {
                // Running status: the previous channel message's status again.
                guard let running else { throw error(at: offset, "a data byte (0x\(String(status, radix: 16))) where an event's status belongs") }
                status = running
            } else {
                offset += 1
            }
            switch status {
            case 0xFF:
                running = nil
                guard offset < end else { throw error(at: offset, "the track ends inside a meta event") }
                let type = bytes[offset]
                offset += 1
                let length = Int(try quantity(before: end, "a meta event's length"))
                guard offset + length <= end else {
                    throw error(at: eventStart, "a meta event of \(length) bytes runs past its track's end")
                }
                let data = Array(bytes[offset..<offset + length])
                offset += length
                switch type {
                case 0x2F:
                    guard offset == end else {
                        throw error(at: eventStart, "End of Track \(end - offset) bytes before the track's end")
                    }
                    return MIDIFile.Track(events: events, end: tick)
                case 0x51:
                    guard length == 3 else { throw error(at: eventStart, "a tempo event of \(length) bytes; it has 3") }
                    let micro = Int64(data[0]) << 16 | Int64(data[1]) << 8 | Int64(data[2])
                    guard micro > 0 else { throw error(at: eventStart, "a tempo of 0 microseconds a quarter note") }
                    events.append(MIDIEvent(tick: tick, .tempo(microsecondsPerQuarter: micro)))
                case 0x58:
                    guard length >= 2 else { throw error(at: eventStart, "a time signature of \(length) bytes; it has 4") }
                    guard data[0] >= 1, data[1] <= 5 else {
                        throw error(at: eventStart, "time signature \(data[0])/2^\(data[1]): a meter has 1 or more beats of a whole to a 32nd note")
                    }
                    events.append(MIDIEvent(tick: tick, .timeSignature(beats: Int(data[0]), noteValue: 1 << Int(data[1]))))
                case 0x06:
                    events.append(MIDIEvent(tick: tick, .marker(String(decoding: data, as: UTF8.self))))
                default:
                    break
                }
            case 0xF0, 0xF7:
                running = nil
                let length = Int(try quantity(before: end, "a system exclusive event's length"))
                guard offset + length <= end else {
                    throw error(at: eventStart, "a system exclusive event of \(length) bytes runs past its track's end")
                }
                offset += length
            case 0x80...0xEF:
                running = status
                let dataBytes = status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0 ? 1 : 2
                for _ in 0..<dataBytes {
                    guard offset < end else { throw error(at: offset, "the track ends inside a channel message") }
                    guard bytes[offset] < 0x80 else {
                        throw error(at: offset, "status byte 0x\(String(bytes[offset], radix: 16)) inside a channel message")
                    }
                    offset += 1
                }
            default:
                throw error(at: eventStart, "status byte 0x\(String(status, radix: 16)) cannot be in a MIDI file")
            }
        }
        throw error(at: end, "the track has no End of Track (truncated?)")
    }
}
