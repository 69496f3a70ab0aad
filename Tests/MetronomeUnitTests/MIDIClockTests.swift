import Testing
@testable import MetronomeAudio
import MetronomeTiming
import MetronomeTestSupport

/// `--midi-clock`: 24 clocks a quarter note on the clicks' grid, and the
/// transport messages a drum machine or looper needs to play along.
@Suite struct MIDIClockTests {
    /// A message as sent: its frame and bytes.
    struct Sent: Equatable, CustomStringConvertible {
        let frame: Int64
        let bytes: [UInt8]
        init(_ frame: Int64, _ bytes: [UInt8]) {
            self.frame = frame
            self.bytes = bytes
        }
        var description: String { "\(frame): \(bytes.map { String($0, radix: 16) })" }
    }

    func sent(_ messages: [(frame: Int64, message: MIDIMessage)]) -> [Sent] { messages.map { Sent($0.frame, $0.message.bytes) } }

    /// A clock tick every `60 R / 24q` frames of a quarter-note tempo `q`,
    /// whatever the meter's note value, counted from each entry's exact start
    /// (a count-in bar first): the engine's grid, checked against fractions.
    /// The receiver stands through the count-in (clocks only, to lock its
    /// tempo); bar 1 brings Song Position 0 and Start, at the first beat's frame.
    @Test func everyTickOnItsExactFrameAcrossAMeterChangeAndADecimalTempo() throws {
        let map = try parseMap("2 97.3\n1 7/8 133.333\n2 3/2 61.7")
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        let rate: Int128 = 44_100
        let run = try PlannedRun(.map(map, first: 0, loops: false), rate: 44_100, rhythm: rhythm, clock: true)
        var expected: [Int64] = []
        var start = Fraction(0)
        // The count-in's bar at the first entry's tempo and meter, then each entry: (quarter-note tempo, beats, note value).
        for (q, beats, d) in [("97.3", 4, 4), ("97.3", 8, 4), ("133.333", 7, 8), ("61.7", 6, 2)] {
            let milli = Int128(try Tempo(parsing: q).millibeatsPerMinute)
            let tick = Fraction(60_000 * rate, 24 * milli)
            let ticks = beats * 96 / d
            for k in 0..<ticks { expected.append((start + tick * Int128(k)).nearestFrame) }
            start = start + tick * Int128(ticks)
        }
        let clocks = run.clockMessages.filter { $0.message == .clock }
        #expect(clocks.map(\.frame) == expected)
        // Every tick of a beat starts on the beat's click: the first of each 24 (4/4), 12 (7/8), 48 (3/2).
        let beatTicks = [Int](0..<12).map { $0 * 24 } + (0..<7).map { 288 + $0 * 12 } + (0..<6).map { 372 + $0 * 48 }
        #expect(beatTicks.map { clocks[$0].frame } == run.clicks.map(\.frame))
        // Nothing but clocks before bar 1, whose first beat (click 4) brings the song position and Start.
        let barOne = run.clicks[4].frame
        #expect(run.clockMessages.prefix(96).allSatisfy { $0.message == .clock && $0.frame < barOne })
        #expect(sent(Array(run.clockMessages[96..<99])) == [Sent(barOne, [0xF2, 0, 0]), Sent(barOne, [0xFA]), Sent(barOne, [0xF8])])
        #expect(run.clockMessages.count == expected.count + 2)
    }

    /// From a label on (`--start-at`), the receiver is told where it is: Song
    /// Position (in sixteenths from the map's start) and Continue, not Start
    /// (which means the song's beginning). At the loop back to the label: Stop,
    /// the label's position again and Continue, all on the loop's first frame.
    @Test func aStartAtALabelAndALoopBackSayWhereTheSongIs() throws {
        // Before `verse`: 2 bars of 4/4 and 1 of 6/8 = 8 quarters + 3 quarters = 44 sixteenths.
        let map = try parseMap("intro: 2 100\n1 6/8 100\nverse: 1 120\n1 5/8 90")
        let first = try #require(map.entries.firstIndex { $0.label == "verse" })
        let run = try PlannedRun(.map(map, first: first, loops: true), rate: 48_000, beats: 4 + 5 + 4, clock: true)
        let verse = run.clicks[0].frame, loop = run.clicks[9].frame
        #expect(verse == 0 && loop == 4 * 24_000 + 5 * 16_000)
        let ordered = sent(run.clockMessages)
        #expect(Array(ordered.prefix(3)) == [Sent(verse, [0xF2, 44, 0]), Sent(verse, [0xFB]), Sent(verse, [0xF8])])
        #expect(ordered.filter { $0.frame == loop } == [Sent(loop, [0xFC]), Sent(loop, [0xF2, 44, 0]), Sent(loop, [0xFB]), Sent(loop, [0xF8])])
        // 96 + 60 clocks a pass, each once, with nothing else between.
        #expect(run.clockMessages.filter { $0.message == .clock && $0.frame < loop }.count == 96 + 60)
        #expect(run.clockMessages.count(where: { $0.message == .stop }) == 1)
    }

    /// A song position past 14 bits (1024 bars of 4/4) is the most it can say.
    @Test func aSongPositionPastFourteenBitsIsTheMost() {
        #expect(MIDIMessage.songPosition(1_000).bytes == [0xF2, 0x68, 0x07])
        #expect(MIDIMessage.songPosition(20_000).bytes == [0xF2, 0x7F, 0x7F])
        #expect(MIDIMessage.songPosition(-1).bytes == [0xF2, 0, 0])
    }

    /// Keys through the JACK playback: a pause is Stop at the pause's frame; the
    /// resume (a new bar at once) Song Position of that bar and Continue at the
    /// resume's frame, the clock from there; a tempo key moves the clock at the
    /// next beat; quitting is Stop.
    @Test func aPauseStopsAResumeContinuesFromItsBarAndATempoKeyMovesTheTicks() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        // 120 bpm: 24000 frames a beat, 1000 a tick.
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let playback = JackPlayback(track: track, host: JackPlaybackTests.Unplugged(rate: rate), clock: true)
        playback.start()
        let messages = ClickNotesTests.Messages()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1_024)
        defer { buffer.deallocate() }
        var index = 0
        func play(_ cycles: Int) {
            for _ in 0..<cycles {
                messages.cycleStart = Int64(index * 1_024)
                playback.process(JackCycle(firstFrame: UInt32(index * 1_024), microseconds: UInt64(1_000_000 + index * 21_333), frames: 1_024,
                                           latency: 0), into: buffer, midi: messages)
                index += 1
            }
        }
        play(130)  // to frame 133120: bar 2, beat 2 (from 1), after 133 ticks
        playback.send(.pause)
        play(20)
        playback.send(.resume)
        play(30)
        playback.send(.tempo(Tempo(bpm: 150)!, gain: 1))
        play(60)
        playback.stop()
        play(10)
        let all = messages.all
        #expect(all.prefix(3).map { Sent($0.frame, $0.bytes) } == [Sent(0, [0xF2, 0, 0]), Sent(0, [0xFA]), Sent(0, [0xF8])])
        let pause = Int64(130 * 1_024), resume = Int64(150 * 1_024)
        let beforePause = all.filter { $0.frame < pause && $0.bytes == [0xF8] }
        #expect(beforePause.map(\.frame) == evenFrames(beforePause.count, every: 1_000))
        #expect(beforePause.count == 134)
        #expect(all.filter { $0.frame >= pause && $0.frame < resume }.map(\.bytes) == [[0xFC]])
        #expect(all.first { $0.frame >= pause }?.frame == pause)
        // The resume plays bar 3 (2 bars of 96 clocks: sixteenth 32) at once.
        let atResume = all.filter { $0.frame == resume }.map(\.bytes)
        #expect(atResume == [[0xF2, 32, 0], [0xFB], [0xF8]])
        let ticks = all.filter { $0.frame >= resume && $0.bytes == [0xF8] }.map { $0.frame - resume }
        // 150 bpm (800 frames a tick) from the first beat after the key, at its frame on the old grid.
        let key = Int64(180 * 1_024) - resume
        let nextBeat = (key + 23_999) / 24_000 * 24_000
        let slow = ticks.filter { $0 < nextBeat }
        #expect(slow == evenFrames(slow.count, every: 1_000))
        let fast = ticks.filter { $0 >= nextBeat }
        #expect(Array(fast.prefix(48)) == (0..<48).map { nextBeat + $0 * 800 })
        // Quitting stops the receiver, once, after the last tick.
        #expect(all.last?.bytes == [0xFC])
        #expect(all.filter { $0.bytes == [0xFC] }.count == 2)
        #expect(all.map(\.frame) == all.map(\.frame).sorted())
    }
}

extension MIDIClockTests {
    /// Following a transport (`--transport follow`): the clock's ticks are
    /// those of the master's beats; a relocation is Stop, the new bar's Song
    /// Position and Continue on the new beat, none of the old beat's ticks
    /// after it; the transport stopping is Stop, with no tick after it.
    @Test func followingATransportTheClockFollowsItsBeatsAndRelocations() throws {
        // A master at 150 bpm in 3/4 (19200 frames a beat, 800 a clock): 60 cycles from transport
        // frame 0, then relocated to bar 10 for 30 cycles, then stopped for 10.
        let relocated = Int64(9 * 3 * 19_200)
        let all = followMaster(cycles: 100) { index in
            let frame = index < 60 ? Int64(index * 1_024) : relocated + Int64((index - 60) * 1_024)
            return (index < 90, frame, bbt(beat: frame / 19_200, into: frame % 19_200, length: 19_200, bpm: 150))
        }
        let jump = Int64(60 * 1_024), stopped = Int64(90 * 1_024)
        #expect(Array(all.prefix(3)) == [Sent(0, [0xF2, 0, 0]), Sent(0, [0xFA]), Sent(0, [0xF8])])
        let before = all.filter { $0.frame < jump }
        #expect(before.dropFirst(2).map(\.frame) == evenFrames(77, every: 800))
        // Bar 10: 9 bars of 3 beats of 24 clocks = 648 clocks, sixteenth 108 (0x6C).
        #expect(all.filter { $0.frame == jump } == [Sent(jump, [0xFC]), Sent(jump, [0xF2, 108, 0]), Sent(jump, [0xFB]), Sent(jump, [0xF8])])
        let after = all.filter { $0.frame > jump && $0.frame < stopped }
        #expect(after.map(\.frame) == (1..<Int64(after.count + 1)).map { jump + $0 * 800 })
        #expect(after.allSatisfy { $0.bytes == [0xF8] })
        #expect(all.filter { $0.frame >= stopped } == [Sent(stopped, [0xFC])])
    }
}

extension MIDIClockTests {
    /// A master's tempo change at a bar line reaches the follower from the
    /// first cycle that starts after it (the one holding it still says the old
    /// tempo, as Ardour and the test master publish it): the clock's ticks of
    /// the bar line's beat after that cycle follow the new tempo, so none
    /// runs late or bunches before the next beat.
    @Test func followingATransportTheClockTakesAChangeAtABarLineWithinItsBeat() throws {
        // 150 bpm in 3/4 (19200 frames a beat) to bar 3 (beat 6, frame 115200), then 180 (16000 a beat).
        let change = Int64(6 * 19_200)
        let all = followMaster(cycles: 160) { index in
            let frame = Int64(index * 1_024)
            guard frame >= change else { return (true, frame, bbt(beat: frame / 19_200, into: frame % 19_200, length: 19_200, bpm: 150)) }
            return (true, frame, bbt(beat: 6 + (frame - change) / 16_000, into: (frame - change) % 16_000, length: 16_000, bpm: 180))
        }
        let ticks = all.filter { $0.bytes == [0xF8] }.map(\.frame)
        let expected = (0..<Int64(144)).map { $0 * 800 } + (0..<Int64(ticks.count - 144)).map { change + ($0 * 16_000 + 12) / 24 }
        #expect(ticks == expected)
    }
}

extension MIDIClockTests {
    /// Runs `cycles` cycles of 1024 frames of a clocked playback following a
    /// transport whose master is, at cycle `index`, `master(index)`: its
    /// rolling, transport frame and BBT. Returns the MIDI sent, by track frame.
    func followMaster(cycles: Int, _ master: (Int) -> (rolling: Bool, frame: Int64, bbt: MasterPosition.BBT)) -> [Sent] {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 90)!, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let host = JackPlaybackTests.Unplugged(rate: rate)
        host.drivesTransport = true
        let playback = JackPlayback(track: track, host: host, clock: true)
        playback.start()
        let messages = ClickNotesTests.Messages()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1_024)
        defer { buffer.deallocate() }
        for index in 0..<cycles {
            let (rolling, frame, bbt) = master(index)
            messages.cycleStart = Int64(index * 1_024)
            playback.process(JackCycle(firstFrame: UInt32(index * 1_024), microseconds: UInt64(1_000 + index * 21_333), frames: 1_024, latency: 0,
                                       transport: MasterPosition(rolling: rolling, frame: frame, frameRate: 48_000, bbt: bbt)),
                             into: buffer, midi: messages)
        }
        return messages.all.map { Sent($0.frame, $0.bytes) }
    }

    /// The BBT a master in 3/4 publishes at `frame`, `beat` beats and `into` frames of a beat of `length` in, at `bpm`.
    func bbt(beat: Int64, into: Int64, length: Int64, bpm: Double) -> MasterPosition.BBT {
        MasterPosition.BBT(bar: beat / 3 + 1, beat: beat % 3 + 1, tick: into * 1_920 / length, ticksPerBeat: 1_920, beatsPerBar: 3,
                           beatType: 4, beatsPerMinute: bpm)
    }
}

extension MIDIClockTests {
    /// Plays `cycles` cycles of 1024 frames of a clocked playback at 60 bpm,
    /// sending `commands[index]` before cycle `index`; `gap(index)` frames of
    /// JACK time lost before it. Returns the MIDI sent, by track frame.
    func play(cycles: Int, meter: Meter = .common, commands: [Int: [PracticeCommand]] = [:], gap: (Int) -> UInt32 = { _ in 0 }) -> [Sent] {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 60)!, meter: meter, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let playback = JackPlayback(track: track, host: JackPlaybackTests.Unplugged(rate: rate), clock: true)
        playback.start()
        let messages = ClickNotesTests.Messages()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1_024)
        defer { buffer.deallocate() }
        var frameTime: UInt32 = 0, trackFrame: Int64 = 0
        for index in 0..<cycles {
            for command in commands[index] ?? [] { playback.send(command) }
            let lost = gap(index)
            frameTime += lost
            trackFrame += Int64(lost)
            messages.cycleStart = trackFrame
            playback.process(JackCycle(firstFrame: frameTime, microseconds: UInt64(1_000_000) + UInt64(frameTime) * 1_000_000 / 48_000,
                                       frames: 1_024, latency: 0), into: buffer, midi: messages)
            frameTime += 1_024
            trackFrame += 1_024
        }
        return messages.all.map { Sent($0.frame, $0.bytes) }
    }

    /// Taps that move the beat earlier, twice within a beat (60 to about 180
    /// bpm): the old beat's ticks left are sent on the new beat's frame, never
    /// after it, and the song runs on without a Stop: 24 clocks a beat, in order.
    @Test func tapsFasterSendTheOldBeatsTicksOnTheNewBeat() throws {
        // A tap at 180 bpm (16000 frames a beat) heard at frame 20000 moves beat 1 from 48000 to 36000, with 6 ticks
        // of beat 0 still due; one at 240 (12000) heard at 38000 moves beat 2 from 52000 to 50000, with 3 of beat 1's.
        let tap = PracticeCommand.tap(Tempo(bpm: 180)!, tapFrame: 20_000, gain: 1)
        let again = PracticeCommand.tap(Tempo(bpm: 240)!, tapFrame: 38_000, gain: 1)
        let all = play(cycles: 120, commands: [20: [tap], 38: [again]])
        #expect(all.filter { $0.bytes != [0xF8] }.map(\.bytes) == [[0xF2, 0, 0], [0xFA]])
        let ticks = all.filter { $0.bytes == [0xF8] }.map(\.frame)
        #expect(ticks == ticks.sorted())
        // Beats at 0, 48000 (60 bpm), then from the taps: each beat's first tick on the beat, 24 ticks a beat.
        let beats = stride(from: 0, to: ticks.count, by: 24).map { ticks[$0] }
        #expect(Array(beats.prefix(3)) == [0, 36_000, 50_000])
        #expect(zip(beats.dropFirst(2), beats.dropFirst(3)).allSatisfy { $1 - $0 == 12_000 }, "\(beats)")
        // The old beats' ticks left were sent on the new beats: beat 0's 18th on at 36000, beat 1's 21st on at 50000.
        #expect(ticks.filter { $0 == 36_000 }.count == 7 && ticks.filter { $0 == 50_000 }.count == 4)
    }

    /// Time the server lost in the middle of a beat: the song goes on from
    /// the next beat, with Stop, its Song Position and Continue there.
    @Test func afterLostTimeTheSongGoesOnFromTheNextBeat() throws {
        // 60 bpm: 2000 frames a clock, a sixteenth every 12000. 30000 frames lost before cycle 30 (frame 30720).
        let all = play(cycles: 80, gap: { $0 == 30 ? 30_000 : 0 })
        let others = all.filter { $0.bytes != [0xF8] }
        #expect(others.count == 5, "\(others)")
        let stop = try #require(others.dropFirst(2).first)
        #expect(stop.bytes == [0xFC])
        let spp = try #require(others.dropFirst(3).first)
        // The song moved on to the next beat after the gap (frame 61440: beat 2 at 96000), whose first clock is on a sixteenth.
        #expect(spp.bytes == [0xF2, 8, 0] && spp.frame == 96_000)
        #expect(others.last == Sent(96_000, [0xFB]))
        // No clock between the Stop and the Continue but those of the song (clocks alone), all on the grid.
        #expect(all.filter { $0.bytes == [0xF8] }.allSatisfy { $0.frame % 2_000 == 0 })
    }
}

extension MIDIClockTests {
    /// Following a master that already rolls: no Start and no ticks before
    /// its first beat is placed; then its bar's song position and Continue.
    /// A meter change (4/4 to 3/4 at bar 3) goes on counting: no Stop.
    @Test func followingARollingMasterWaitsForItsFirstBeatAndCountsOnThroughAMeterChange() throws {
        // 120 bpm (24000 frames a beat), rolling from transport frame 30000 (inside bar 1, beat 2); 3/4 from bar 3 (frame 192000).
        let all = followMaster(cycles: 300) { index in
            let frame = 30_000 + Int64(index * 1_024)
            let beat = frame / 24_000, into = frame % 24_000
            let bars = beat < 8 ? beat / 4 : 2 + (beat - 8) / 3
            let inBar = beat < 8 ? beat % 4 : (beat - 8) % 3
            let bbt = MasterPosition.BBT(bar: bars + 1, beat: inBar + 1, tick: into * 1_920 / 24_000, ticksPerBeat: 1_920,
                                         beatsPerBar: beat < 8 ? 4 : 3, beatType: 4, beatsPerMinute: 120)
            return (true, frame, bbt)
        }
        // The first beat after frame 30000 is beat 2 (frame 48000, track frame 18000): song clock 48, sixteenth 8.
        #expect(Array(all.prefix(3)) == [Sent(18_000, [0xF2, 8, 0]), Sent(18_000, [0xFB]), Sent(18_000, [0xF8])])
        #expect(all.filter { $0.bytes != [0xF8] }.count == 2)
        let ticks = all.filter { $0.bytes == [0xF8] }.map(\.frame)
        #expect(ticks == evenFrames(ticks.count, from: 18_000, every: 1_000))
    }
}

extension MIDIClockTests {
    /// A Song Position says sixteenths (6 clocks); in 3/32 (3 clocks a beat)
    /// a resumed bar can start between two. The receiver then hears clocks
    /// alone up to the next sixteenth, and its Song Position and Continue there.
    @Test func aResumeBetweenSixteenthsContinuesOnTheNextOne() throws {
        // 60 bpm of 32nds: 48000 frames a beat, 16000 a clock. Pause at frame 20480, resume at 30720: bar 2 (from 1), song clock 9.
        let all = play(cycles: 90, meter: try Meter(parsing: "3/32"), commands: [20: [.pause], 30: [.resume]])
        let others = all.filter { $0.bytes != [0xF8] }
        #expect(others == [Sent(0, [0xF2, 0, 0]), Sent(0, [0xFA]), Sent(20_480, [0xFC]), Sent(78_720, [0xF2, 2, 0]), Sent(78_720, [0xFB])])
        // Clocks alone at 30720, 46720 and 62720 (song clocks 9 to 11), then sixteenth 2 at 78720.
        #expect(all.filter { $0.frame >= 20_480 && $0.bytes == [0xF8] }.map(\.frame) == [30_720, 46_720, 62_720, 78_720])
    }
}
