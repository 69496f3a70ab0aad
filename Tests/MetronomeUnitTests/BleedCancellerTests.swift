import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeListening
import MetronomeTestSupport

@Suite struct BleedCancellerTests {
    /// The metronome's output at 120 bpm as the audio thread records it, a 256-frame period at a time: a
    /// click on every beat, 2 kHz at 0.8 dying away over 4 ms. Returns the recording and the mix.
    static func played(frames: Int, rate: SampleRate = .standard) -> (PlayedAudio, [Float]) {
        let beat = Int(rate.framesPerSecond / 2)
        let perSecond = Float(rate.framesPerSecond)
        let mix = (0..<frames).map { frame in
            let since = Float(frame % beat) / perSecond
            return since < 0.03 ? 0.8 * sinf(2 * .pi * 2_000 * since) * expf(-since / 0.004) : 0
        }
        let played = PlayedAudio(frames: frames)
        mix.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < frames {
                let count = min(256, frames - start)
                played.record(buffer.baseAddress! + start, count: count, at: Int64(start))
                start += count
            }
        }
        return (played, mix)
    }

    /// What the input hears: the player's hits, and the click coming back `roundTrip` frames late at `decibels`.
    static func heard(_ hits: SyntheticHits, mix: [Float], roundTrip: Int, decibels: Float, floor: Float) -> [Float] {
        let gain = powf(10, decibels / 20)
        var signal = hits.signal(floor: floor)
        for index in signal.indices where index >= roundTrip && index - roundTrip < mix.count {
            signal[index] += gain * mix[index - roundTrip]
        }
        return signal
    }

    /// Every onset found in `signal` after the canceller took the bleed out; the output frame of input
    /// frame n is given as n − `roundTrip` give or take `wander` frames (the devices' lines wandering).
    static func cancelledOnsets(_ signal: [Float], played: PlayedAudio, clicks: [Int64], roundTrip: Int64, wander: Int64) throws -> [Int64] {
        let rate = SampleRate.standard
        let detector = try #require(OnsetDetector(rate: rate))
        let canceller = BleedCanceller(played: played, rate: rate, hop: OnsetDetector.hop)
        for click in clicks { canceller.expectClick(at: click) }
        var found: [Int64] = []
        signal.withUnsafeBufferPointer { buffer in
            var start = 0
            while start + OnsetDetector.hop <= buffer.count {
                // A wander of ±`wander` frames over 2.7 s, the way HeardClock's lines decay and snap back.
                let phase = Int64(start) % 131_072
                let drift = wander - abs(phase * 4 * wander / 131_072 - 2 * wander)
                canceller.push(buffer.baseAddress! + start, offset: -roundTrip + drift) { frames in
                    if let onset = detector.feed(frames) { found.append(onset) }
                }
                start += OnsetDetector.hop
            }
            canceller.flush { frames in
                if let onset = detector.feed(frames) { found.append(onset) }
            }
        }
        return found
    }

    @Test(arguments: [Float(-26), -12, -6])
    func theClickComingBackIsNoNote(decibels: Float) throws {
        let rate = SampleRate.standard
        let millisecond = rate.framesPerSecond / 1_000
        // A hit on every beat but the first and the last, early and late by up to 35 ms, and on the click.
        let hits = SyntheticHits(rate: rate, count: 24, offsets: [0, -35 * millisecond, 17, 12 * millisecond + 5, -3 * millisecond - 31, 35 * millisecond, 48, -5 * millisecond])
        let (played, mix) = Self.played(frames: hits.length)
        let clicks = Array(stride(from: Int64(0), to: Int64(hits.length), by: Int64.Stride(rate.framesPerSecond / 2)))
        let roundTrip = 240
        let signal = Self.heard(hits, mix: mix, roundTrip: roundTrip, decibels: decibels, floor: 0)

        // Heard as it is, the click is a note of its own, and hides the hits played just after it.
        let raw = detectOnsets(signal, with: try #require(OnsetDetector(rate: rate)))
        let invented = raw.filter { onset in !hits.frames.contains { abs($0 - onset) <= millisecond } }
        #expect(invented.count >= 6, "\(invented.count) of \(raw.count) onsets are no hit: the bleed is not heard")

        let found = try Self.cancelledOnsets(signal, played: played, clicks: clicks, roundTrip: Int64(roundTrip), wander: 3)
        try #require(found.count == hits.frames.count, "\(found.count) onsets for \(hits.frames.count) hits: \(found)")
        for (onset, hit) in zip(found, hits.frames) {
            #expect(abs(onset - hit) <= millisecond, "onset at \(onset) for the hit at \(hit)")
        }
    }

    @Test func withNoBleedTheInputGoesOnAsHeard() throws {
        let rate = SampleRate.standard
        let hits = SyntheticHits(rate: rate, count: 12, offsets: [0, 480, -960])
        let (played, _) = Self.played(frames: hits.length)
        let clicks = Array(stride(from: Int64(0), to: Int64(hits.length), by: Int64.Stride(rate.framesPerSecond / 2)))
        let signal = hits.signal()
        let found = try Self.cancelledOnsets(signal, played: played, clicks: clicks, roundTrip: 240, wander: 0)
        #expect(found == detectOnsets(signal, with: try #require(OnsetDetector(rate: rate))))
    }

    @Test func whereClicksComeBackFollowsAClockThatDrifts() {
        // An input clock 50 ppm fast: the offset grows by one frame in 20 000.
        var line = BleedCanceller.ReturnLine(capacity: 9)
        #expect(line.line(at: 0) == nil)
        line.add(frame: 1_000, offset: -240)
        #expect(line.line(at: 50_000) == -240)
        for beat in 1...12 {
            let frame = Int64(beat) * 24_000
            line.add(frame: frame, offset: -240 + (frame / 20_000))
        }
        let ahead = Int64(14 * 24_000)
        let predicted = line.line(at: ahead) ?? 0
        #expect(abs(predicted - (-240 + Double(ahead) / 20_000)) < 1, "\(predicted)")
    }

    @Test func playedAudioIsSilentWhereTheTrackSkippedAndSaysWhatItNoLongerHas() {
        let played = PlayedAudio(frames: 1_000)
        #expect(played.capacity == 1_024)
        let ones = [Float](repeating: 1, count: 100)
        var copy = [Float](repeating: -1, count: 300)
        ones.withUnsafeBufferPointer { played.record($0.baseAddress!, count: 100, at: 0) }
        // Not recorded yet.
        #expect(!copy.withUnsafeMutableBufferPointer { played.copy(from: 50, count: 100, into: $0.baseAddress!) })
        // Before the track's start is silence.
        #expect(copy.withUnsafeMutableBufferPointer { played.copy(from: -50, count: 100, into: $0.baseAddress!) })
        #expect(copy[0..<50].allSatisfy { $0 == 0 } && copy[50..<100].allSatisfy { $0 == 1 })
        // A skip of 100 frames: never played, silent.
        ones.withUnsafeBufferPointer { played.record($0.baseAddress!, count: 100, at: 200) }
        #expect(copy.withUnsafeMutableBufferPointer { played.copy(from: 0, count: 300, into: $0.baseAddress!) })
        #expect(copy[0..<100].allSatisfy { $0 == 1 } && copy[100..<200].allSatisfy { $0 == 0 } && copy[200..<300].allSatisfy { $0 == 1 })
        // Written over: more than the capacity later.
        ones.withUnsafeBufferPointer { played.record($0.baseAddress!, count: 100, at: 1_200) }
        #expect(!copy.withUnsafeMutableBufferPointer { played.copy(from: 0, count: 100, into: $0.baseAddress!) })
        #expect(copy.withUnsafeMutableBufferPointer { played.copy(from: 1_000, count: 300, into: $0.baseAddress!) })
        #expect(copy[0..<200].allSatisfy { $0 == 0 } && copy[200..<300].allSatisfy { $0 == 1 })
    }

    /// The audio thread records while the listening side copies: every copy that says it is whole
    /// holds exactly the frames asked for (each frame's sample is its own number), never some written over.
    @Test func aCopyWhileTheAudioThreadRecordsIsWholeOrSaysItIsNot() throws {
        let played = PlayedAudio(frames: 4_096)
        let periods: Int64 = 20_000
        let writer = Thread {
            let block = UnsafeMutablePointer<Float>.allocate(capacity: 256)
            defer { block.deallocate() }
            for period in 0..<periods {
                for index in 0..<256 { block[index] = Float(period * 256 + Int64(index)) }
                played.record(block, count: 256, at: period * 256)
            }
        }
        writer.start()
        var copy = [Float](repeating: 0, count: 1_024)
        var whole = 0, refused = 0
        while played.recordedEnd < periods * 256 {
            // Behind the newest frame by up to more than the capacity: some copies are written over.
            let end = played.recordedEnd
            let frame = max(0, end - Int64((whole + refused) % 5_000))
            let ok = copy.withUnsafeMutableBufferPointer { played.copy(from: frame, count: 1_024, into: $0.baseAddress!) }
            guard ok else {
                refused += 1
                continue
            }
            whole += 1
            for index in 0..<1_024 where copy[index] != Float(frame + Int64(index)) {
                Issue.record("frame \(frame + Int64(index)) read as \(copy[index])")
                return
            }
        }
        #expect(whole > 0)
    }
}
