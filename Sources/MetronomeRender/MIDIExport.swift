import MetronomeTiming
import MetronomeAudio

/// Turns a rendered click track into a Standard MIDI File whose tempo events
/// place every note within a millisecond of its frame.
///
/// Each beat lies on its tick (`ticksPerQuarter * 4 / d` a beat), so a DAW
/// sees the song's bars. The file's tempo is whole microseconds a quarter: a
/// beat keeps whichever of the floor and ceiling of its exact tempo is in use
/// while the file's time of the next beat stays within `driftMicroseconds` of
/// its frame, and switches when not. The file's time is summed exactly, so no
/// rounding accumulates. A click between beats goes to the tick nearest its time.
package struct MIDIExport {
    /// A beat of the grid: its frame, where exactly it lies (in frames,
    /// `numerator / denominator`), its exact tempo in microseconds a quarter,
    /// its meter and whether it starts a bar.
    package struct Beat: Sendable {
        package var frame: Int64
        package var exactFrame: (numerator: Int128, denominator: Int128)
        package var microsecondsPerQuarter: (numerator: Int128, denominator: Int128)
        package var meter: Meter
        package var startsBar: Bool

        package init(frame: Int64, exactFrame: (numerator: Int128, denominator: Int128),
                    microsecondsPerQuarter: (numerator: Int128, denominator: Int128), meter: Meter, startsBar: Bool) {
            self.frame = frame
            self.exactFrame = exactFrame
            self.microsecondsPerQuarter = microsecondsPerQuarter
            self.meter = meter
            self.startsBar = startsBar
        }
    }

    /// A click that sounded: its frame, the General MIDI key and the velocity.
    package struct Note: Sendable, Equatable {
        package var frame: Int64
        package var key: UInt8
        package var velocity: UInt8

        package init(frame: Int64, key: UInt8, velocity: UInt8) {
            self.frame = frame
            self.key = key
            self.velocity = velocity
        }
    }

    /// A word of the spoken count (`--count voice`): its click's frame and its text, a lyric event there.
    package struct Lyric: Sendable, Equatable {
        package var frame: Int64
        package var text: String

        package init(frame: Int64, text: String) {
            self.frame = frame
            self.text = text
        }
    }

    /// How far the file's time of a beat may drift from its frame before the tempo's rounding turns the other way.
    static let driftMicroseconds: Int128 = 200

    /// The beats, the last of which is where the file ends (the end of the last
    /// bar), the notes in time order, a marker's text at a beat's index, and the lyrics in time order.
    package static func file(beats: [Beat], notes: [Note], markers: [(beat: Int, text: String)], lyrics: [Lyric] = [],
                             rate: SampleRate) throws(RenderError) -> MIDIFile {
        let r = Int128(rate.framesPerSecond)
        // The slowest beat's quarter sets the ticks: half a tick at most 0.3 ms.
        var slowest: Int128 = 0
        for beat in beats.dropLast() {
            let (numerator, denominator) = beat.microsecondsPerQuarter
            let quarter = (numerator + denominator - 1) / denominator
            guard quarter <= Int128(MIDIFile.longestQuarter) else {
                throw .badRequest("a MIDI file holds quarter notes of at most \(MIDIFile.longestQuarter) µs (3.58 a minute); this track has slower ones")
            }
            slowest = max(slowest, quarter)
        }
        var ticksPerQuarter: Int64 = 960
        while Int128(ticksPerQuarter) * 600 < slowest, ticksPerQuarter < 30_720 { ticksPerQuarter *= 2 }
        let q = Int128(ticksPerQuarter)

        var events: [MIDIEvent] = []
        var noteEvents: [(tick: Int64, key: UInt8, velocity: UInt8)] = []
        var markerIndex = 0
        let sortedMarkers = markers.sorted { $0.beat < $1.beat }
        // The file's time of the current beat, in 1/32 µs (a beat is 4/d quarters, d at most 32).
        var fileTime: Int128 = 0
        var tick: Int64 = 0
        var tempo: Int64?
        var meter: Meter?
        var nextNote = 0, nextLyric = 0
        for index in beats.indices {
            let beat = beats[index]
            let last = index == beats.count - 1
            if !last, beat.startsBar, meter.map({ $0.beatsPerBar != beat.meter.beatsPerBar || $0.noteValue != beat.meter.noteValue }) ?? true {
                events.append(MIDIEvent(tick: tick, .timeSignature(beats: beat.meter.beatsPerBar, noteValue: beat.meter.noteValue)))
                meter = beat.meter
            }
            while markerIndex < sortedMarkers.count, sortedMarkers[markerIndex].beat <= index {
                events.append(MIDIEvent(tick: tick, .marker(sortedMarkers[markerIndex].text)))
                markerIndex += 1
            }
            if last { break }
            let next = beats[index + 1]
            let quartersIn32nds = Int128(128 / beat.meter.noteValue)
            // Errors in 1/32 µs times the rate and the position's denominator: the file's time of the next beat less its own.
            let (position, unit) = next.exactFrame
            let target = position * 32_000_000
            func error(_ candidate: Int64) -> Int128 { (fileTime + Int128(candidate) * quartersIn32nds) * r * unit - target }
            let (numerator, denominator) = beat.microsecondsPerQuarter
            let floor = Int64(numerator / denominator)
            let ceiling = min(Int64((numerator + denominator - 1) / denominator), MIDIFile.longestQuarter)
            let limit = driftMicroseconds * 32 * r * unit
            let chosen: Int64
            if let tempo, tempo == floor || tempo == ceiling, abs(error(tempo)) <= limit {
                chosen = tempo
            } else {
                var best = abs(error(floor)) <= abs(error(ceiling)) ? floor : ceiling
                if abs(error(best)) > 2 * limit {
                    // Far off (a ramp's beats are placed to 2^-20 of a frame): the tempo that lands nearest.
                    let exact = ((target - fileTime * r * unit) * 2 + quartersIn32nds * r * unit) / (2 * quartersIn32nds * r * unit)
                    best = Int64(max(1, min(exact, Int128(MIDIFile.longestQuarter))))
                }
                chosen = best
            }
            if chosen != tempo {
                events.append(MIDIEvent(tick: tick, .tempo(microsecondsPerQuarter: chosen)))
                tempo = chosen
            }
            let beatTicks = ticksPerQuarter * 4 / Int64(beat.meter.noteValue)
            // The tick of a frame of this beat: its own, or the tick nearest its time.
            func ticks(ofFrame frame: Int64) -> Int64 {
                guard frame > beat.frame else { return tick }
                // ticks = (time - fileTime) * q / chosen, time = frame * 32e6 / r (in 1/32 µs).
                let numerator = (Int128(frame) * 32_000_000 - fileTime * r) * q
                let denominator = 32 * r * Int128(chosen)
                let rounded = numerator >= 0 ? (2 * numerator + denominator) / (2 * denominator) : 0
                return tick + Int64(min(max(rounded, 0), Int128(beatTicks)))
            }
            // The notes and words of this beat.
            while nextNote < notes.count, notes[nextNote].frame < next.frame {
                let note = notes[nextNote]
                noteEvents.append((ticks(ofFrame: note.frame), note.key, note.velocity))
                nextNote += 1
            }
            while nextLyric < lyrics.count, lyrics[nextLyric].frame < next.frame {
                events.append(MIDIEvent(tick: ticks(ofFrame: lyrics[nextLyric].frame), .lyric(lyrics[nextLyric].text)))
                nextLyric += 1
            }
            fileTime += Int128(chosen) * quartersIn32nds
            tick += beatTicks
        }
        let end = tick
        events += notesAndReleases(noteEvents, end: end, shortest: ticksPerQuarter / 8)
        // Meta events before notes at the same tick (a DAW reads the tempo first).
        let ordered = events.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element)
        return MIDIFile(format: 0, ticksPerQuarter: ticksPerQuarter, tracks: [MIDIFile.Track(events: ordered, end: end)])
    }

    /// A note-on for each note (one a key and tick: the loudest), each released
    /// a 32nd note later or just before the same key sounds again.
    static func notesAndReleases(_ notes: [(tick: Int64, key: UInt8, velocity: UInt8)], end: Int64, shortest: Int64) -> [MIDIEvent] {
        var merged: [(tick: Int64, key: UInt8, velocity: UInt8)] = []
        for note in notes.sorted(by: { $0.tick != $1.tick ? $0.tick < $1.tick : $0.key < $1.key }) {
            if let last = merged.last, last.tick == note.tick, last.key == note.key {
                merged[merged.count - 1].velocity = max(last.velocity, note.velocity)
            } else {
                merged.append(note)
            }
        }
        var nextOfKey: [UInt8: Int64] = [:]
        var releases: [Int64] = Array(repeating: 0, count: merged.count)
        for index in merged.indices.reversed() {
            let note = merged[index]
            let limit = min(nextOfKey[note.key] ?? .max, max(end, note.tick + 1))
            releases[index] = max(note.tick + 1, min(note.tick + shortest, limit))
            nextOfKey[note.key] = note.tick
        }
        var events: [MIDIEvent] = []
        for (index, note) in merged.enumerated() {
            events.append(MIDIEvent(tick: note.tick, .noteOn(channel: ClickNote.drumChannel, key: note.key, velocity: note.velocity)))
            events.append(MIDIEvent(tick: releases[index], .noteOff(channel: ClickNote.drumChannel, key: note.key)))
        }
        // Releases before strikes at the same tick, so a key struck again is not cut.
        return events.enumerated().sorted { a, b in
            if a.element.tick != b.element.tick { return a.element.tick < b.element.tick }
            let aOff = if case .noteOff = a.element.message { true } else { false }
            let bOff = if case .noteOff = b.element.message { true } else { false }
            return aOff != bOff ? aOff : a.offset < b.offset
        }.map(\.element)
    }
}
