import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The fade both players end a stop with, on plain buffers.
@Suite struct StopFadeTests {
    let rate = SampleRate.standard

    func makeTrack(length: TrackLength) throws -> ClickTrack {
        let sounds = impulseSounds(rate: rate)
        return ClickTrack(schedule: ClickSchedule(tempo: try Tempo(parsing: "120"), rate: rate),
                          beat: sounds.beat, bell: sounds.bell, length: length)
    }

    @Test func withoutAStopEveryFrameIsKeptAsItIs() throws {
        let fade = StopFade(rate: rate, track: try makeTrack(length: .endless))
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { block.deallocate() }
        block.update(repeating: 1, count: 64)
        #expect(fade.end == .max)
        #expect(fade.apply(to: block, from: 1_000, count: 64) == 64)
        #expect(UnsafeBufferPointer(start: block, count: 64).allSatisfy { $0 == 1 })
    }

    @Test func aStopFadesFiveMillisecondsToSilenceAndCutsThere() throws {
        var fade = StopFade(rate: rate, track: try makeTrack(length: .endless))
        #expect(fade.frames == 240)
        fade.stop(at: 100)
        fade.stop(at: 5_000)  // a later stop does not move it
        #expect(fade.end == 340)
        let count = 512
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 4 * count)
        defer { storage.deallocate() }
        storage.update(repeating: 1, count: 4 * count)
        let voices = VoiceBuffers(bell: storage, beat: storage + count, subdivision: storage + 2 * count, polyrhythm: storage + 3 * count)
        #expect(fade.apply(to: voices, from: 0, count: count) == 340)
        for voice in 0..<4 {
            #expect(voices[slot: voice][99] == 1)
            #expect(voices[slot: voice][100] == 1)
            #expect(voices[slot: voice][220] == 0.5)
            #expect(voices[slot: voice][339] == Float(1) / 240)
        }
        // A block that starts past the end keeps nothing.
        #expect(fade.apply(to: storage, from: 400, count: count) == 0)
    }

    @Test func aDurationTrackEndsAtItsLastFrame() throws {
        let track = try makeTrack(length: .playtime(Playtime(parsing: "2")))
        #expect(StopFade(rate: rate, track: track).end == track.endFrame)
        #expect(track.endFrame == 96_000)
    }
}
