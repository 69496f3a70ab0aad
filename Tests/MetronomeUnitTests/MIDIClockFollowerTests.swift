import CAllocationCounter
import Testing
@testable import MetronomeAudio
import MetronomeTiming
import MetronomeTestSupport
import MetronomePendulum

/// `--follow-midi-clock`: the clicks an incoming clock implies, on its frames.
@Suite struct MIDIClockFollowerTests {
    /// Feeds `messages` (frame, status, data) to a follower in cycles of 1024;
    /// returns each click as (track frame, bar, beat in bar).
    func follow(_ messages: [(Int64, UInt8, UInt8, UInt8)], meter: String = "4/4") throws -> (clicks: [[Int64]], follower: MIDIClockFollower) {
        let follower = MIDIClockFollower(rate: .standard, meter: try Meter(parsing: meter))
        let buffer = UnsafeMutableBufferPointer<FollowedClick>.allocate(capacity: 32)
        defer { buffer.deallocate() }
        var clicks: [[Int64]] = []
        let cycles = Int((messages.last?.0 ?? 0) / 1_024) + 1
        for cycle in 0..<cycles {
            let start = Int64(cycle * 1_024)
            var count = 0
            for (frame, status, data1, data2) in messages where frame >= start && frame < start + 1_024 {
                follower.receive(status, data1, data2, frame: frame, offset: Int(frame - start), into: buffer, count: &count)
            }
            clicks += (0..<count).map { [start + Int64(buffer[$0].offset), buffer[$0].bar, Int64(buffer[$0].beatInBar)] }
        }
        return (clicks, follower)
    }

    /// Clocks 1000 frames apart (120 bpm): nothing before Start; from it every
    /// 24th clock a click on its frame, bars of 4 from bar 1; the tempo 120.
    func clocks(_ range: Range<Int64>, every interval: Int64, from first: Int64) -> [(Int64, UInt8, UInt8, UInt8)] {
        range.map { (first + $0 * interval, UInt8(0xF8), UInt8(0), UInt8(0)) }
    }

    /// Start at frame 0, then `parts` in order.
    func fromStart(_ parts: [(Int64, UInt8, UInt8, UInt8)]...) -> [(Int64, UInt8, UInt8, UInt8)] {
        [(0, 0xFA, 0, 0)] + parts.joined()
    }

    @Test func fromStartEveryBeatsClockIsAClickOnItsFrame() throws {
        var messages = clocks(0..<48, every: 1_000, from: 500)
        messages.append((48_000, 0xFA, 0, 0))
        messages += clocks(48..<264, every: 1_000, from: 500)
        let (clicks, follower) = try follow(messages)
        var expected: [[Int64]] = []
        for beat in Int64(0)..<9 { expected.append([48_500 + beat * 24_000, beat / 4 + 1, beat % 4]) }
        #expect(clicks == expected)
        #expect(follower.tempo == Tempo(bpm: 120))
        #expect(follower.running)
    }

    /// Song Position and Continue: the first clock is that position (sixteenth
    /// 6 = clock 36: half a beat in, so the first click is 12 clocks on); 7/8
    /// counts 12 clocks a beat; Stop stops.
    @Test func aSongPositionAndContinuePlayFromThereInAnyMeter() throws {
        var messages: [(Int64, UInt8, UInt8, UInt8)] = [(0, 0xF2, 6, 0), (10, 0xFB, 0, 0)]
        messages += clocks(0..<60, every: 1_000, from: 100)
        messages.append((60_200, 0xFC, 0, 0))
        messages += clocks(60..<90, every: 1_000, from: 100)
        let (quarters, _) = try follow(messages)
        // 4/4: clock 36 is half of beat 2 (from 1); beats at clocks 48, 72 (the 13th and 37th received).
        #expect(quarters == [[12_100, 1, 2], [36_100, 1, 3]])
        let (eighths, follower) = try follow(messages, meter: "7/8")
        // 7/8: 12 clocks a beat; clock 36 is beat 3 (from 0); then every 12th, bars of 7 (the fifth, bar 2's first).
        var expected: [[Int64]] = []
        for beat in Int64(0)..<5 { expected.append([100 + beat * 12_000, (3 + beat) / 7 + 1, (3 + beat) % 7]) }
        #expect(eighths == expected)
        #expect(!follower.running)
        #expect(follower.tempo == Tempo(bpm: 240))  // 7/8's eighth at 120 quarters a minute
    }

    /// A clock that stops coming (more than 4 intervals and 100 ms) holds the
    /// clicks; they play on from where it was when it comes back.
    @Test func aClockThatVanishesIsHeldUntilItComesBack() throws {
        var messages: [(Int64, UInt8, UInt8, UInt8)] = [(0, 0xFA, 0, 0)]
        messages += clocks(0..<30, every: 1_000, from: 100)
        // Gone for 2 s, then on from clock 30 (beat 2 of bar 1 is clock 48).
        messages += clocks(30..<60, every: 1_000, from: 96_100)
        let (clicks, follower) = try follow(Array(messages.prefix(31)))
        #expect(follower.plays(at: 29_100 + 4_800) && !follower.plays(at: 29_100 + 4_801) && follower.isHeld(at: 40_000))
        let (again, back) = try follow(messages)
        #expect(clicks == [[100, 1, 0], [24_100, 1, 1]])
        #expect(again == [[100, 1, 0], [24_100, 1, 1], [144_100, 1, 2]])
        #expect(back.plays(at: 155_100))
    }

    /// Continue after a long stop (a DAW that sends no clock while stopped)
    /// plays from its first clock, whenever that comes: the wait counts from
    /// the Continue.
    @Test func aContinueAfterALongStopIsNotHeld() throws {
        var messages: [(Int64, UInt8, UInt8, UInt8)] = [(0, 0xFA, 0, 0)]
        messages += clocks(0..<10, every: 1_000, from: 100)
        messages += [(9_500, 0xFC, 0, 0), (200_000, 0xF2, 4, 0), (200_010, 0xFB, 0, 0)]
        messages += clocks(0..<30, every: 1_000, from: 201_000)
        let (clicks, follower) = try follow(messages)
        // Sixteenth 4 is clock 24: beat 1 (from 0), at the first clock after the Continue.
        #expect(clicks == [[100, 1, 0], [201_000, 1, 1], [225_000, 1, 2]])
        #expect(follower.plays(at: 229_000))
    }

    /// A clock lost on the way (jack_midi_clock's at a tempo change on a
    /// cycle boundary): the long interval counts as two clocks, so every
    /// later beat is on the clock the source meant; a beat that fell on the
    /// lost clock clicks halfway between its neighbours where that is in the
    /// cycle the next came in, else at that cycle's start; the tempo is not halved.
    @Test func aLostClockIsCountedSoTheBeatsStayInPhase() throws {
        // Clock 40 lost, then clock 48 (a beat) lost.
        let messages = fromStart(clocks(0..<96, every: 1_000, from: 100).enumerated().filter { $0.offset != 40 && $0.offset != 48 + 24 }.map(\.element))
        let (clicks, follower) = try follow(messages)
        // Clock 72 (71 100 + 1 000) is in the cycle from 72 704 too early: that cycle's start.
        #expect(clicks == [[100, 1, 0], [24_100, 1, 1], [48_100, 1, 2], [72_704, 1, 3]])
        #expect(follower.lostClocks == 2)
        // From 130: clock 48 (48 130) lost in the cycle (48 128 ..< 49 152) that brings clock 49: it clicks there.
        let shifted = fromStart(clocks(0..<60, every: 1_000, from: 130).enumerated().filter { $0.offset != 48 }.map(\.element))
        let (halfway, _) = try follow(shifted)
        #expect(halfway.last == [48_130, 1, 2])
        #expect(follower.tempo == Tempo(bpm: 120))
    }

    /// A clock whose intervals double and stay doubled slowed down: the clock
    /// counted as lost at the first long interval is taken back, and the beats
    /// go on every 24 clocks at the new tempo.
    @Test func aClockThatHalvesItsTempoIsNotCountedAsLost() throws {
        let messages = fromStart(clocks(0..<48, every: 1_000, from: 100), clocks(1..<60, every: 2_000, from: 47_100))
        let (clicks, follower) = try follow(messages)
        // Clock 48 (beat 2) at 49 100 counted as clock 49 after a lost beat, which clicks at its cycle's
        // start (48 128); taken back at clock 49 (51 100).
        #expect(clicks.prefix(3) == [[100, 1, 0], [24_100, 1, 1], [48_128, 1, 2]])
        let fourth: [Int64] = [47_100 + 25 * 2_000, 1, 3]
        #expect(clicks.dropFirst(3).first == fourth)
        #expect(follower.lostClocks == 0)
        #expect(follower.tempo == Tempo(bpm: 60))
    }

    /// A slowdown whose first long interval brings a beat's clock: that beat
    /// clicks once, not again when the lost clock is taken back.
    @Test func aBeatClicksOnceWhenTheLostClockBeforeItIsTakenBack() throws {
        let messages = fromStart(clocks(0..<47, every: 1_000, from: 100), clocks(1..<40, every: 2_000, from: 46_100))
        let (clicks, follower) = try follow(messages)
        #expect(clicks == [[100, 1, 0], [24_100, 1, 1], [48_100, 1, 2], [98_100, 1, 3]])
        #expect(follower.lostClocks == 0)
    }

    /// A clock 600 frames late and the next one on time (jitter, 1.6 and 0.4
    /// of an interval): counted as lost and at once taken back; every beat on its clock.
    @Test func aLateClockAndAnEarlyOneAreJitterNotALostClock() throws {
        let messages = fromStart(clocks(0..<80, every: 1_000, from: 100).map { $0.0 == 30_100 ? (30_700, $0.1, $0.2, $0.3) : $0 })
        let (clicks, follower) = try follow(messages)
        #expect(clicks == [[100, 1, 0], [24_100, 1, 1], [48_100, 1, 2], [72_100, 1, 3]])
        #expect(follower.lostClocks == 0)
    }

    /// Through the JACK playback: the clicks sound on the frames of the
    /// clocks that fall on beats, and the messages go to the follower, not
    /// to the keys; Space does not start or stop what the clock leads.
    @Test func thePlaybackSoundsTheClicksOnTheClocksFrames() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 90)!, rate: rate), beat: sounds.beat, bell: sounds.bell)
        let playback = JackPlayback(track: track, host: JackPlaybackTests.Unplugged(rate: rate), followMIDIClock: true)
        playback.start()
        #expect(playback.followsTransport)
        playback.send(.pause)
        // A clock every 800 frames (150 bpm), Start before the 10th.
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1_024)
        defer { buffer.deallocate() }
        var audio: [Float] = []
        var plays: [Bool?] = []
        for index in 0..<120 {
            let start = index * 1_024
            var events: [(offset: Int, message: MIDIMessage)] = []
            if start <= 7_300, 7_300 < start + 1_024 { events.append((7_300 - start, .start)) }
            var clock = (start + 799) / 800 * 800
            while clock < start + 1_024 {
                events.append((clock - start, .clock))
                clock += 800
            }
            events.sort { $0.offset < $1.offset }
            playback.process(JackCycle(firstFrame: UInt32(start), microseconds: UInt64(1_000 + index * 21_333), frames: 1_024, latency: 0),
                             into: buffer, midi: JackMIDIBuffer?.none, input: IncomingMIDI(events))
            audio += UnsafeBufferPointer(start: buffer, count: 1_024)
            plays.append(playback.midiClockPlays)
        }
        // Waiting for the clock until its Start (cycle 7), playing from then.
        #expect(plays == Array(repeating: false, count: 7) + Array(repeating: true, count: 113))
        let found = onsets(audio)
        // The first clock after Start (frame 8000) is the bar's first beat, then every 24th.
        #expect(found.map(\.frame) == evenFrames(6, from: 8_000, every: 19_200))
        #expect(found.map { $0.value < 0 } == [true, false, false, false, true, false])
        #expect(playback.receivedMIDI?.pop() == nil)
    }

    /// While the clicks wait for the clock, the status line says so.
    @Test func theStatusLineSaysWhenTheClicksWaitForTheClock() {
        func text(_ plays: Bool?) -> String {
            PendulumStatus(tempo: Tempo(bpm: 120)!, meter: .common, bar: nil, beatInBar: 0, elapsedSeconds: 0, underruns: 0,
                           midiClockPlays: plays).text(width: 200)
        }
        #expect(text(false).contains("waiting for MIDI clock"))
        #expect(!text(true).contains("MIDI clock") && !text(nil).contains("MIDI clock"))
    }
}

extension MIDIClockFollowerTests {
    /// The callback with MIDI in: following a clock (and sending one), and
    /// following a transport with a clock out and pads coming in, allocates
    /// nothing; the incoming messages are made before counting.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func followingAndReceivingAllocateNothing() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        let out = ClickNotesTests.Counted()
        // A clock every 500 frames (240 bpm), Start at once; a pad tap now and then.
        let inputs = (0..<2_000).map { index -> IncomingMIDI in
            var events: [(offset: Int, message: MIDIMessage)] = index == 1 ? [(0, .start)] : []
            var clock = (index * 256 + 499) / 500 * 500
            while clock < index * 256 + 256 {
                events.append((clock - index * 256, .clock))
                clock += 500
            }
            if index % 50 == 0 { events.append((255, MIDIMessage(0x99, 36, 100, size: 3))) }
            return IncomingMIDI(events)
        }
        let follower = JackPlayback(track: ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 90)!, rate: rate), beat: sounds.beat, bell: sounds.bell),
                                    host: JackPlaybackTests.Unplugged(rate: rate), clock: true, followMIDIClock: true)
        let host = JackPlaybackTests.Unplugged(rate: rate)
        host.drivesTransport = true
        let transported = JackPlayback(track: ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 90)!, rate: rate), beat: sounds.beat, bell: sounds.bell),
                                       host: host, clock: true, midiIn: true)
        follower.start()
        transported.start()
        func cycle(_ index: Int) -> JackCycle {
            let frame = Int64(index * 256), beat = frame / 19_200
            let bbt = MasterPosition.BBT(bar: beat / 3 + 1, beat: beat % 3 + 1, tick: frame % 19_200 * 1_920 / 19_200, ticksPerBeat: 1_920,
                                         beatsPerBar: 3, beatType: 4, beatsPerMinute: 150)
            return JackCycle(firstFrame: UInt32(index * 256), microseconds: UInt64(1_000 + index * 5_333), frames: 256, latency: 0,
                             transport: MasterPosition(rolling: true, frame: frame, frameRate: 48_000, bbt: bbt))
        }
        follower.process(cycle(0), into: buffer, midi: out, input: inputs[0])
        transported.process(cycle(0), into: buffer, midi: out, input: inputs[0])
        metronome_counting_begin()
        for index in 1..<2_000 {
            follower.process(cycle(index), into: buffer, midi: out, input: inputs[index])
            transported.process(cycle(index), into: buffer, midi: out, input: inputs[index])
            _ = transported.receivedMIDI?.pop()
        }
        let counted = metronome_counting_end()
        #expect(counted == 0)
        #expect(out.clocks > 1_000)
        #expect(follower.midiClockPlays == true)
    }
}
