import Testing
@testable import MetronomeAudio
import MetronomeTiming
import MetronomeTestSupport

/// `--midi-map`: the file's lines, what each message does, and `--midi-learn`'s lines.
@Suite struct MIDIMapTests {
    func parse(_ text: String) throws -> MIDIMap { try MIDIMap(parsing: Array(text.utf8), name: "pads.txt") }

    @Test func eachLineBindsAMessageToAnAction() throws {
        let map = try parse("""
            # my pads
            note 36 tap
            note 37 channel 10 start-stop   # the second pad
            cc 64 start-stop\r
            program 3 next-song
            \tcc 7 tempo 40-240
            note 40 meter 7

            """)
        #expect(map.bindings == [
            .init(.note(36), .tap), .init(.note(37), channel: 9, .startStop), .init(.controller(64), .startStop),
            .init(.program(3), .nextSong), .init(.controller(7), .tempo(low: Tempo(bpm: 40)!, high: Tempo(bpm: 240)!)),
            .init(.note(40), .meter(7)),
        ])
    }

    @Test(arguments: [
        ("note 36 tap\nnote 200 tap", "pads.txt:2:6: the note '200' is not a number from 0 to 127"),
        ("pitchbend 3 tap", "pads.txt:1:1: 'pitchbend' is not a MIDI message this map binds: use note, cc or program"),
        ("note 36 channel 17 tap", "pads.txt:1:17: the channel '17' is not a number from 1 to 16"),
        ("note 36 tapp", "pads.txt:1:9: 'tapp' is not an action: use tap, start-stop, start, stop, next-song, previous-song, faster, slower, "
            + "much-faster, much-slower, double, half, mute, louder, softer, meter N or tempo LOW-HIGH"),
        ("note 36", "pads.txt:1:8: the action is missing"),
        ("  note 36 tempo 40-240", "pads.txt:1:11: tempo takes a controller's value: bind it to a cc"),
        ("cc 7 tempo 240-40", "pads.txt:1:12: tempo range '240-40' is not LOW-HIGH in bpm from 1 to 1000, e.g. 40-240"),
        ("cc 7 tempo 40", "pads.txt:1:12: tempo range '40' is not LOW-HIGH in bpm from 1 to 1000, e.g. 40-240"),
        ("note 36 tap now", "pads.txt:1:13: 'now' follows the action: one binding a line"),
        ("note 36 meter 12", "pads.txt:1:15: the beats a bar '12' is not a number from 1 to 9"),
        ("# nothing\n\n", "pads.txt:3:1: the MIDI map binds nothing: write e.g. 'note 36 tap'"),
    ])
    func aMalformedLineIsItsLineAndColumn(text: String, message: String) {
        #expect(throws: TimingError(.malformed, message)) { try parse(text) }
    }

    @Test func aByteOrderMarkIsPassedOver() throws {
        #expect(try MIDIMap(parsing: [0xEF, 0xBB, 0xBF] + Array("note 36 tap".utf8), name: "pads.txt").bindings == [.init(.note(36), .tap)])
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(throws: TimingError(.malformed, "pads.txt:1:1: the MIDI map is not UTF-8 text")) {
            try MIDIMap(parsing: [0x6E, 0xFF, 0x0A], name: "pads.txt")
        }
    }

    /// Note-ons (not velocity 0, a note-off by another name) on any channel or
    /// the one named; a controller's press only as it reaches 64; the
    /// standard map's pads and pedal; a sequencer's Start, Continue and Stop.
    @Test func aMessageDoesWhatItsBindingSays() throws {
        let map = try parse("note 36 tap\nnote 37 channel 10 mute\ncc 64 start-stop\nprogram 5 previous-song")
        var values: [UInt8] = []
        #expect(map.response(to: 0x90, 36, 100, lastValues: &values) == .action(.tap))
        #expect(map.response(to: 0x93, 36, 1, lastValues: &values) == .action(.tap))
        #expect(map.response(to: 0x90, 36, 0, lastValues: &values) == nil)
        #expect(map.response(to: 0x80, 36, 64, lastValues: &values) == nil)
        #expect(map.response(to: 0x99, 37, 90, lastValues: &values) == .action(.mute))
        #expect(map.response(to: 0x98, 37, 90, lastValues: &values) == nil)
        // A pedal pressed (0 to 127), held (a second 127), let go, pressed again halfway (64).
        let pedal = [0, 127, 127, 30, 64, 100].map { map.response(to: 0xB0, 64, UInt8($0), lastValues: &values) }
        #expect(pedal == [nil, .action(.startStop), nil, nil, .action(.startStop), nil])
        // A pedal held on channel 2 does not hide a press on channel 1.
        let channels = try parse("cc 64 channel 1 start-stop")
        var held: [UInt8] = []
        #expect(channels.response(to: 0xB1, 64, 127, lastValues: &held) == nil)
        #expect(channels.response(to: 0xB0, 64, 127, lastValues: &held) == .action(.startStop))
        #expect(map.response(to: 0xC0, 5, 0, lastValues: &values) == .action(.previousSong))
        #expect(map.response(to: 0xC0, 4, 0, lastValues: &values) == nil)
        #expect([0xFA, 0xFB, 0xFC].map { map.response(to: $0, 0, 0, lastValues: &values) } == [.action(.start), .action(.start), .action(.stop)])
        var fresh: [UInt8] = []
        let drums: [MIDIMap.Response?] = (36...39).map { MIDIMap.standard.response(to: 0x99, UInt8($0), 100, lastValues: &fresh) }
        #expect(drums == [.action(.tap), .action(.startStop), .action(.nextSong), .action(.previousSong)])
        #expect(MIDIMap.standard.response(to: 0xB0, 64, 127, lastValues: &fresh) == .action(.startStop))
    }

    /// A controller over a tempo range: 0 the lowest, 127 the highest, linear
    /// between in tenths of a bpm (rounded half up), every value of a sweep.
    @Test func aControllerSweepCoversTheTempoRange() throws {
        let map = try parse("cc 1 tempo 40-240")
        var values: [UInt8] = []
        let tempos = (0...127).map { map.response(to: 0xB0, 1, UInt8($0), lastValues: &values) }
        let expected = (0...127).map { value -> MIDIMap.Response? in
            // 400 to 2400 tenths: 400 + 2000 * v / 127, to the nearest tenth.
            let tenths = 400 + (2_000 * value * 2 + 127) / 254
            return .tempo(Tempo(clamping: Int64(tenths) * 100))
        }
        #expect(tempos == expected)
        #expect(tempos.first == .tempo(Tempo(bpm: 40)!) && tempos.last == .tempo(Tempo(bpm: 240)!))
        #expect(tempos[64] == .tempo(Tempo(clamping: 140_800)))
    }

    @Test func learningPrintsTheLineThatWouldBindAMessage() throws {
        #expect(MIDIMap.learnLine(0x99, 36, 100) == "note 36 channel 10 ACTION")
        #expect(MIDIMap.learnLine(0xB0, 64, 127) == "cc 64 channel 1 ACTION    # value 127")
        #expect(MIDIMap.learnLine(0xC2, 5, 0) == "program 5 channel 3 ACTION")
        #expect(MIDIMap.learnLine(0x89, 36, 0) == nil)
        #expect(MIDIMap.learnLine(0xFA, 0, 0) == "# Start: starts the metronome")
        // A learned line with its action filled in parses to that binding.
        let line = try #require(MIDIMap.learnLine(0x99, 36, 100)).replacingOccurrences(of: "ACTION", with: "tap")
        #expect(try parse(line).bindings == [.init(.note(36), channel: 9, .tap)])
    }

    /// The JACK playback hands on each message that came in with the frame
    /// heard at its time: the cycle's first track frame, less the port's
    /// latency, plus its offset.
    @Test func theCallbackHandsOnEachMessageWithTheFrameHeardThen() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let playback = JackPlayback(track: track, host: JackPlaybackTests.Unplugged(rate: rate), midiIn: true)
        playback.start()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1_024)
        defer { buffer.deallocate() }
        for index in 0..<4 {
            let events = index == 2 ? [(17, MIDIMessage(0x99, 36, 100, size: 3)), (900, MIDIMessage(0xFC, size: 1))] : []
            playback.process(JackCycle(firstFrame: UInt32(index * 1_024), microseconds: UInt64(1_000 + index * 21_333), frames: 1_024, latency: 256),
                             into: buffer, midi: JackMIDIBuffer?.none, input: IncomingMIDI(events))
        }
        let queue = try #require(playback.receivedMIDI)
        var received: [ReceivedMIDI] = []
        while let message = queue.pop() { received.append(message) }
        #expect(received == [ReceivedMIDI(heardFrame: 2_048 - 256 + 17, message: MIDIMessage(0x99, 36, 100, size: 3)),
                             ReceivedMIDI(heardFrame: 2_048 - 256 + 900, message: .stop)])
    }
}
