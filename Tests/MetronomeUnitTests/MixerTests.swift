import CAllocationCounter
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

@Suite struct MixerTests {
    @Test func overlappingVoicesSum() {
        let mixer = Mixer(sounds: [([1, 1, 1, 1, 1, 1], 0.5), ([0.25, 0.25], 1)], voiceCapacity: 4)
        var block = [Float](repeating: 0, count: 8)
        block.withUnsafeMutableBufferPointer { out in
            mixer.start(slot: 0, at: 0, into: out.baseAddress!, count: 4)
            mixer.start(slot: 0, at: 2, into: out.baseAddress!, count: 4)
            mixer.start(slot: 1, at: 3, into: out.baseAddress!, count: 4)
        }
        #expect(Array(block[0..<4]) == [0.5, 0.5, 1.0, 1.25])
        #expect(mixer.activeVoices == 3)
        var next = [Float](repeating: 0, count: 4)
        next.withUnsafeMutableBufferPointer { mixer.mix(into: $0.baseAddress!, count: 4) }
        // First voice has 2 samples left, second 4, the short one 1.
        #expect(next == [1.25, 1.0, 0.5, 0.5])
        #expect(mixer.activeVoices == 0)  // each voice ended exactly at or before the block end
    }

    @Test func aBlockHoldsManyClicksEachAtItsOwnFrame() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 1000)!, rate: rate)
        let track = ClickTrack(schedule: schedule, beat: sounds.beat, bell: sounds.bell, length: .bars(10))
        var output = [Float](repeating: 0, count: 120_000)
        output.withUnsafeMutableBufferPointer { _ = track.render(into: $0.baseAddress!, count: $0.count) }
        let found = onsets(output)
        #expect(found.count == 40)
        for (click, onset) in found.enumerated() {
            #expect(onset.frame == schedule.frame(ofClick: Int64(click)))
            #expect(onset.value == (click % 4 == 0 ? -0.75 : 0.25))
        }
    }

    @Test func blockSizeNeverMovesAClick() throws {
        let rate = try #require(SampleRate(44_100))
        let sounds = (beat: Sound(samples: [0.5, 0.4, 0.3, 0.2, 0.1], rate: rate), bell: Sound(samples: [-0.5, -0.25], rate: rate))
        func render(blockSize: Int) -> [Float] {
            let track = ClickTrack(schedule: ClickSchedule(tempo: try! Tempo(parsing: "224"), rate: rate),
                                   beat: sounds.beat, bell: sounds.bell, length: .bars(20))
            var all: [Float] = []
            var block = [Float](repeating: 0, count: blockSize)
            while !track.isFinished {
                let frames = block.withUnsafeMutableBufferPointer { track.render(into: $0.baseAddress!, count: blockSize) }
                all += block[0..<frames]
            }
            return all
        }
        let reference = render(blockSize: 65_536)
        for size in [1, 3, 64, 256, 1_000, 11_811] {
            #expect(render(blockSize: size) == reference, "block size \(size)")
        }
    }

    @Test func overlappingClicksNeverClip() throws {
        // Full-scale sounds longer than the interval: without a gain the sum would reach 4.
        let rate = SampleRate.standard
        let long = Sound(samples: [Float](repeating: 1, count: 9_000), rate: rate)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 1000)!, rate: rate)  // 2880 frames apart
        let track = ClickTrack(schedule: schedule, beat: long, bell: long, length: .bars(8))
        #expect(track.gain < 1)
        var output = [Float](repeating: 0, count: 100_000)
        output.withUnsafeMutableBufferPointer { _ = track.render(into: $0.baseAddress!, count: $0.count) }
        let peak = output.map(abs).max() ?? 0
        #expect(peak <= 1.0)
        #expect(peak > 0.99)  // and the gain is not more cautious than it needs to be here
    }

    @Test func ordinaryTempiKeepFullVolume() throws {
        let sounds = try SoundLibrary.load(beat: nil, bell: nil, rate: .standard)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!), beat: sounds.beat, bell: sounds.bell, volume: 0.5)
        #expect(track.gain == 0.5)
    }

    @Test func renderingAllocatesNothing() throws {
        let sounds = try SoundLibrary.load(beat: nil, bell: nil, rate: .standard)
        let track = ClickTrack(schedule: ClickSchedule(tempo: try Tempo(parsing: "333.3")), beat: sounds.beat, bell: sounds.bell)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { block.deallocate() }
        track.render(into: block, count: 256)
        metronome_counting_begin()
        for _ in 0..<2_000 { track.render(into: block, count: 256) }
        track.skip(to: track.position + 12_345)
        for _ in 0..<100 { track.render(into: block, count: 256) }
        let allocations = metronome_counting_end()
        #expect(allocations == 0)
        #expect(track.nextClick > 50)
    }

    @Test func skippingDropsClicksDueInTheGapAndKeepsTheGrid() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: rate)
        let track = ClickTrack(schedule: schedule, beat: sounds.beat, bell: sounds.bell)
        var block = [Float](repeating: 0, count: 30_000)
        block.withUnsafeMutableBufferPointer { _ = track.render(into: $0.baseAddress!, count: $0.count) }
        track.skip(to: 100_000)  // clicks 2 and 3 fall in the gap
        block.withUnsafeMutableBufferPointer { _ = track.render(into: $0.baseAddress!, count: $0.count) }
        let found = onsets(block).map { $0.frame + 100_000 }
        let grid: [Int64] = (0..<Int64(20)).map { schedule.frame(ofClick: $0) }
        let expected = grid.filter { $0 >= 100_000 && $0 < 130_000 }
        #expect(found == expected)
        #expect(!expected.isEmpty)
    }
}
