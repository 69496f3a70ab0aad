import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The JACK process callback with a port a voice (`--jack-ports split`),
/// cycle by cycle beside the mono one: the same cycles, lost time, stop,
/// fade and silence after it, in four buffers that sum to the one.
@Suite struct JackPlaybackVoicesTests {
    let rate = SampleRate.standard
    let frames = 1024

    func makePlayback(played: PlayedAudio? = nil) throws -> JackPlayback {
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
        rhythm.polyrhythm = try Polyrhythm(parsing: "3:2", beatsPerBar: 4)
        let ring = { (seed: Int) in Sound(samples: (0..<4_000).map { Float(($0 * (5 + seed)) % 13 - 6) / 512 }, rate: self.rate) }
        let sounds = ClickSounds(beat: ring(1), bell: ring(2), subdivision: ring(3), polyrhythm: ring(4))
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 166)!, rate: rate), sounds: sounds, rhythm: rhythm)
        let playback = JackPlayback(track: track, host: JackPlaybackTests.Unplugged(rate: rate), played: played)
        playback.start()
        return playback
    }

    /// Cycle `index`: frame time and clock, with 9600 frames lost before cycle 40 (the server stopped).
    func cycle(_ index: Int) -> JackCycle {
        let lost: Int64 = index >= 40 ? 9_600 : 0
        let at = Int64(index * frames) + lost
        return JackCycle(firstFrame: UInt32(5_000 + index * frames), microseconds: 1_000_000 + UInt64(FrameTime.nanoseconds(inFrames: at, at: rate.framesPerSecond) / 1_000),
                         frames: frames, latency: 2_048)
    }

    @Test func theFourPortsSumToTheMonoPortThroughLostTimeAndTheFade() throws {
        let playedMono = PlayedAudio(frames: 1 << 18), playedSplit = PlayedAudio(frames: 1 << 18)
        let mono = try makePlayback(played: playedMono), split = try makePlayback(played: playedSplit)
        let buffers = ClickVoiceTests.Buffers(count: frames)
        let voices = buffers.voices
        var worst: Float = 0, sounding = 0, after = 0, unwritten = 0
        var index = 0
        while !mono.isFinished, index < 200 {
            if index == 150 {
                mono.stop()
                split.stop()
            }
            voices.update(repeating: .nan, count: frames)  // a port's buffer holds anything until written
            mono.process(cycle(index), into: buffers.mono)
            split.process(cycle(index), into: voices)
            for frame in 0..<frames {
                // Exact but in the fade, where each voice is scaled before the sum.
                if voices.sum(at: frame).isNaN { unwritten += 1 }
                worst = max(worst, abs(voices.sum(at: frame) - buffers.mono[frame]))
                if buffers.mono[frame] != 0 { sounding += 1 }
                if index > 151 { after += ClickVoice.allCases.filter { voices[$0][frame] != 0 }.count }
            }
            index += 1
        }
        #expect(unwritten == 0)
        #expect(worst <= 1e-6)
        #expect(sounding > 50_000)
        #expect(after == 0, "silence after the stop's cycle in every port")
        #expect(mono.isFinished && split.isFinished)
        #expect(mono.underruns == 1 && split.underruns == 1)
        #expect(mono.track.position == split.track.position)
        // The inspector's record: the sum.
        let end = playedMono.recordedEnd
        #expect(playedSplit.recordedEnd == end)
        let a = UnsafeMutablePointer<Float>.allocate(capacity: Int(end)), b = UnsafeMutablePointer<Float>.allocate(capacity: Int(end))
        defer { a.deallocate(); b.deallocate() }
        #expect(playedMono.copy(from: 0, count: Int(end), into: a) && playedSplit.copy(from: 0, count: Int(end), into: b))
        #expect((0..<Int(end)).allSatisfy { abs(a[$0] - b[$0]) <= 1e-6 })
        #expect((0..<Int(end)).contains { a[$0] != 0 })
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func aCycleByVoiceAllocatesNothing() throws {
        let split = try makePlayback(played: PlayedAudio(frames: 1 << 16))
        let buffers = ClickVoiceTests.Buffers(count: frames)
        let voices = buffers.voices
        split.process(cycle(0), into: voices)
        split.send(.pause)
        split.send(.resume)
        metronome_counting_begin()
        for index in 1..<300 {
            if index == 250 { split.stop() }
            split.process(cycle(index), into: voices)
        }
        let counted = metronome_counting_end()
        #expect(counted == 0)
    }
}
