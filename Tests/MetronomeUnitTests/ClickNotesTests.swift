import CAllocationCounter
import Testing
@testable import MetronomeAudio
import MetronomeTiming
import MetronomeTestSupport

/// `--midi-notes` cycle by cycle: `JackPlayback` writing notes beside its
/// audio into a list standing in for a JACK MIDI buffer.
@Suite struct ClickNotesTests {
    let rate = SampleRate.standard

    /// The MIDI messages written, by track frame (the cycle's start plus the offset).
    final class Messages: MIDIEventOutput {
        var cycleStart: Int64 = 0
        var all: [(frame: Int64, bytes: [UInt8])] = []
        func write(_ message: MIDIMessage, at offset: Int) -> Bool {
            all.append((cycleStart + Int64(offset), message.bytes))
            return true
        }
    }

    func play(_ bpm: String, meter: String = "4/4", rhythm: Rhythm = Rhythm(), cycles: Int, frames: Int = 1024,
              again: Set<Int> = [], clock: Bool = false) throws -> (audio: [Float], messages: Messages, schedule: ClickSchedule) {
        let sounds = impulseSounds(rate: rate)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: bpm), meter: try Meter(parsing: meter), rate: rate)
        let track = ClickTrack(schedule: schedule, beat: sounds.beat, bell: sounds.bell, rhythm: rhythm)
        let host = JackPlaybackTests.Unplugged(rate: rate)
        let playback = JackPlayback(track: track, host: host, notes: ClickNotes(rate: rate, volume: 1), clock: clock)
        playback.start()
        let messages = Messages()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { buffer.deallocate() }
        var audio = [Float]()
        for index in 0..<cycles {
            let cycle = JackCycle(firstFrame: UInt32(index * frames), microseconds: UInt64(1_000_000 + index * frames * 1_000_000 / 48_000),
                                  frames: frames, latency: 0)
            messages.cycleStart = Int64(index * frames)
            playback.process(cycle, into: buffer, midi: messages)
            if again.contains(index) {
                // Run twice at one frame time: the graph keeps the second run's buffer, so it must hold the notes again.
                let kept = messages.all.count
                playback.process(cycle, into: buffer, midi: messages)
                #expect(Array(messages.all[kept...].map(\.bytes)) == messages.all[..<kept].filter { $0.frame >= Int64(index * frames) }.map(\.bytes))
                messages.all.removeLast(messages.all.count - kept)
            }
            audio += (0..<frames).map { buffer[$0] }
        }
        return (audio, messages, schedule)
    }

    /// Every click a note-on at the frame its sound starts: 34 on the bar's
    /// first beat, 33 on the others, full velocity at full level, each
    /// released 960 frames (20 ms) later, across cycle boundaries.
    @Test func eachClickIsANoteOnAtItsSoundsFrameReleased20MsLater() throws {
        let (audio, messages, _) = try play("137", meter: "3/4", cycles: 300)
        let sounds = onsets(audio)
        let ons = messages.all.filter { $0.bytes[0] == 0x99 }, offs = messages.all.filter { $0.bytes[0] == 0x89 }
        #expect(ons.map(\.frame) == sounds.map(\.frame))
        #expect(ons.map { $0.bytes[1] } == sounds.map { $0.value < 0 ? 34 : 33 })
        #expect(ons.allSatisfy { $0.bytes[2] == 127 })
        let releases: [Int64] = ons.map { $0.frame + 960 }.filter { $0 < 300 * 1024 }
        #expect(offs.map(\.frame) == releases)
        #expect(zip(offs, ons).allSatisfy { $0.bytes[1] == $1.bytes[1] && $0.bytes[2] == 0 })
        // In each cycle's buffer in order of frame, as JACK requires.
        #expect(messages.all.map(\.frame) == messages.all.map(\.frame).sorted())
    }

    /// Subdivisions are softer strokes (velocity 95 of 127), as in the `.mid`
    /// export; a key that sounds again before its release (9 clicks a beat at
    /// 400 bpm, 800 frames apart) is released at that frame, just before.
    @Test func subdivisionsAreSofterAndAKeySoundingAgainIsReleasedFirst() throws {
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "9", swing: nil)
        let (_, messages, _) = try play("400", rhythm: rhythm, cycles: 60)
        let ons = messages.all.filter { $0.bytes[0] == 0x99 }
        #expect(ons.filter { $0.bytes[2] == 95 }.count == ons.count - ons.filter { $0.frame % 7_200 == 0 }.count)
        // A note-on of a key held less than 960 frames before is preceded, at its own frame, by that key's release.
        var lastOn: [UInt8: Int64] = [:]
        var early = 0
        for (index, message) in messages.all.enumerated() where message.bytes[0] == 0x99 {
            if let last = lastOn[message.bytes[1]], message.frame - last < 960 {
                early += 1
                let before = messages.all[index - 1]
                #expect(before.frame == message.frame && before.bytes == [0x89, message.bytes[1], 0], "\(before) then \(message)")
            }
            lastOn[message.bytes[1]] = message.frame
        }
        #expect(early > 50)
        // And every note-on has its one release, but those still held at the end (one a key at most).
        let offs = messages.all.filter { $0.bytes[0] == 0x89 }.count
        #expect(offs <= ons.count && ons.count - offs <= 2)
    }

    /// A MIDI buffer that only counts what is written: nothing allocated.
    final class Counted: MIDIEventOutput {
        var count = 0
        var clocks = 0
        func write(_ message: MIDIMessage, at offset: Int) -> Bool {
            if message == .clock { clocks += 1 }
            count += 1
            return true
        }
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func cyclesWithNotesAndClockAllocateNothing() throws {
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 400)!, meter: try Meter(parsing: "7/8"), rate: rate),
                               beat: sounds.beat, bell: sounds.bell, rhythm: try everyVoiceRhythm())
        let playback = JackPlayback(track: track, host: JackPlaybackTests.Unplugged(rate: rate), notes: ClickNotes(rate: rate, volume: 0.8),
                                    clock: true)
        playback.start()
        let notes = Counted()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        func cycle(_ index: Int) -> JackCycle {
            JackCycle(firstFrame: UInt32(index * 256), microseconds: UInt64(1_000 + index * 5_333), frames: 256, latency: 0)
        }
        playback.process(cycle(0), into: buffer, midi: notes)
        metronome_counting_begin()
        for index in 1..<2_000 {
            playback.process(cycle(index), into: buffer, midi: notes)
            if index % 97 == 0 { playback.process(cycle(index), into: buffer, midi: notes) }
        }
        let counted = metronome_counting_end()
        #expect(counted == 0)
        // 10.7 s at 400 bpm in 7/8, 12 clocks a beat: 853 clocks (and those of 20 cycles run twice), and the notes.
        #expect(notes.clocks >= 853 && notes.clocks < 853 + 20 * 4)
        #expect(notes.count - notes.clocks > 100)
    }

    /// PipeWire's JACK at times runs a cycle twice at one frame time into
    /// another buffer, which the graph keeps: the second run writes that
    /// cycle's notes again.
    @Test func aCycleRunTwiceWritesItsNotesAgain() throws {
        // Click 2 (frame 48000 at 60 bpm) starts in cycle 46; its release (48960) falls in cycle 47.
        let (_, messages, _) = try play("60", cycles: 60, again: [46, 47], clock: true)
        #expect(messages.all.filter { $0.bytes[0] == 0x99 }.map(\.frame) == [0, 48_000])
        // And its clock ticks (2000 frames apart at 60 bpm), each once.
        #expect(messages.all.filter { $0.bytes == [0xF8] }.map(\.frame) == evenFrames(31, every: 2_000))
    }
}
