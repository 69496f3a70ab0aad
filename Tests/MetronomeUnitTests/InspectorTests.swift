import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeListening
import MetronomeTestSupport

/// The listening side on synthetic input: chunks with their stamps, as the
/// capture thread hands them over, and the clicks the track started.
@Suite struct InspectorTests {
    /// The input started `shift` frames after the output (its frame c is the output's c + shift... in time:
    /// capture frame c is taken when output frame c + shift is heard); hits played at
    /// `offsets` from clicks 24 000 frames apart; chunks numbered `skipped` are dropped.
    func take(shift: Int64, offsets: [Int64], skipped: Set<Int> = []) throws -> (notes: [Inspector.Note], inspector: Inspector) {
        let rate = SampleRate.standard
        let interval: Int64 = 24_000
        let clicks = (0..<Int64(offsets.count + 2)).map { StartedClick(click: $0, frame: interval * $0, bar: $0 / 4, beatInBar: Int32($0 % 4), sound: .beat) }
        // The hits in capture frames: output frame f is capture frame f - shift.
        let hits = SyntheticHits(rate: rate, count: offsets.count, bpm: 120, offsets: offsets.map { $0 - shift })
        let signal = hits.signal()
        let log = CaptureLog(capacity: 8_192)
        let start: Int64 = 5_000_000_000
        func instant(ofOutputFrame frame: Int64) -> MonotonicInstant {
            MonotonicInstant(nanoseconds: start + FrameTime.nanoseconds(inFrames: frame, at: rate.framesPerSecond))
        }
        let inspector = try #require(Inspector(log: log, rate: rate, roundTripFrames: 0))
        inspector.receive(clicks: clicks)
        var notes: [Inspector.Note] = []
        var chunkIndex = 0
        var first = 0
        while first + CapturedChunk.capacity <= signal.count {
            let end = Int64(first + CapturedChunk.capacity)
            // Stamped when the chunk's last frame was taken: capture frame `end` at the instant output frame end + shift is heard.
            var chunk = CapturedChunk(firstFrame: Int64(first), count: CapturedChunk.capacity, stampFrame: end,
                                      stampNanoseconds: instant(ofOutputFrame: end + shift).nanoseconds)
            for index in 0..<CapturedChunk.capacity { chunk.samples[index] = signal[first + index] }
            if !skipped.contains(chunkIndex) { #expect(log.tryPush(chunk)) }
            chunkIndex += 1
            first += CapturedChunk.capacity
            if chunkIndex % 64 == 0 {
                let now = instant(ofOutputFrame: end + shift)
                notes += inspector.listen(sample: (heard: end + shift, at: now, written: end + shift + 4_096), now: now)
            }
        }
        return (notes, inspector)
    }

    /// An input that hands over frames faster than real time (ALSA's `null`) must not hold the
    /// UI loop in one `listen`: each call takes `chunksPerListen` chunks at most, the rest the next.
    @Test func oneListenTakesABoundedShareOfABacklog() throws {
        let log = CaptureLog(capacity: 4_096)
        let inspector = try #require(Inspector(log: log, rate: .standard, roundTripFrames: 0))
        let backlog = Inspector.chunksPerListen + 1_000
        for index in 0..<backlog {
            #expect(log.tryPush(CapturedChunk(firstFrame: Int64(index * CapturedChunk.capacity), count: CapturedChunk.capacity,
                                              stampFrame: 0, stampNanoseconds: 0)))
        }
        let now = MonotonicInstant(nanoseconds: 1_000_000_000)
        _ = inspector.listen(sample: (heard: 0, at: MonotonicInstant(nanoseconds: 0), written: 0), now: now)
        let left = log.drain()
        #expect(left.count == backlog - Inspector.chunksPerListen)
        // The next call takes the rest.
        for chunk in left { #expect(log.tryPush(chunk)) }
        _ = inspector.listen(sample: (heard: 0, at: MonotonicInstant(nanoseconds: 0), written: 0), now: now)
        #expect(log.pop() == nil)
    }

    @Test func notesArePlacedOnTheOutputsFramesByBothStamps() throws {
        let offsets: [Int64] = [0, -1_680, 817, -48, 48, 1_680, -1_000, 333]
        for shift: Int64 in [0, 12_345, -7_000] {
            let (notes, inspector) = try take(shift: shift, offsets: offsets)
            try #require(notes.count == offsets.count, "shift \(shift): \(notes.count) notes")
            for (index, (note, offset)) in zip(notes, offsets).enumerated() {
                let match = try #require(note.match)
                // Hit k of SyntheticHits falls on beat k + 1 (a beat is 24 000 frames at 120 bpm).
                #expect(inspector.beat(of: match) == Int64(index + 1))
                #expect(abs(match.offsetFrames - offset) <= 48, "shift \(shift), hit \(index): \(match.offsetFrames) for \(offset)")
            }
            #expect(inspector.statistics(through: 24_000 * Int64(offsets.count)).extras == 0)
        }
    }

    @Test func chunksTheCaptureThreadDroppedDoNotMoveTheNotesAfter() throws {
        let offsets: [Int64] = [0, -1_680, 817, -48, 48, 1_680, -1_000, 333]
        // Chunks in the silence between the first and the second hit (frames 30 000 to 40 000).
        let (notes, _) = try take(shift: 0, offsets: offsets, skipped: Set(470..<620))
        try #require(notes.count == offsets.count)
        for (note, offset) in zip(notes, offsets) {
            let match = try #require(note.match)
            #expect(abs(match.offsetFrames - offset) <= 48, "\(match.offsetFrames) for \(offset)")
        }
    }

    /// Each frame fed keeps the capture frame of the piece it came in; a piece long past is forgotten.
    @Test func fedFramesKeepTheirCaptureFramesAcrossGaps() {
        var frames = FedFrames()
        frames.append(chunkAt: 100, count: 64, keeping: 1_000)
        frames.append(chunkAt: 164, count: 64, keeping: 1_000)
        frames.append(chunkAt: 2_000, count: 64, keeping: 1_000)
        #expect(frames.count == 192)
        #expect(frames.captureFrame(ofFed: 0) == 100 && frames.captureFrame(ofFed: 127) == 227)
        #expect(frames.captureFrame(ofFed: 128) == 2_000 && frames.captureFrame(ofFed: 191) == 2_063)
        // Two thousand frames on, the first piece is forgotten: an index that early is placed by the second.
        frames.append(chunkAt: 2_064 + 2_000, count: 2_000, keeping: 1_000)
        frames.append(chunkAt: 9_000, count: 64, keeping: 1_000)
        #expect(frames.captureFrame(ofFed: 2_192) == 9_000)
        #expect(frames.captureFrame(ofFed: 0) == 4_064 - 192)
    }

    /// Chunks dropped just after a hit began, before aubio (4.3 hops behind) found it: the
    /// note is placed by the frames before the gap, the later notes by those after it.
    @Test func chunksDroppedWhileANoteIsBeingFoundDoNotMoveIt() throws {
        let offsets: [Int64] = [0, -1_680, 817, -48]
        // Hit 0 starts at frame 24 000, in chunk 375; chunks 376 to 399 (1 536 frames, 32 ms) are lost.
        let (notes, _) = try take(shift: 0, offsets: offsets, skipped: Set(376..<400))
        try #require(notes.count == offsets.count, "\(notes.count) notes")
        for (note, offset) in zip(notes, offsets) {
            let match = try #require(note.match)
            #expect(abs(match.offsetFrames - offset) <= 48, "\(match.offsetFrames) for \(offset)")
        }
    }
}

extension InspectorTests {
    /// The listening thread is let listen only so far: a chunk that ends after the bound stays in the log.
    @Test func aListenTakesNoChunkThatEndsAfterItsBound() throws {
        let log = CaptureLog(capacity: 64)
        let inspector = try #require(Inspector(log: log, rate: .standard, roundTripFrames: 0))
        for index in 0..<10 {
            #expect(log.tryPush(CapturedChunk(firstFrame: Int64(index * CapturedChunk.capacity), count: CapturedChunk.capacity)))
        }
        let bound = Int64(6 * CapturedChunk.capacity - 1)
        #expect(inspector.hasInput(through: bound))
        _ = inspector.listen(sample: (heard: 0, at: MonotonicInstant(nanoseconds: 0), written: 0),
                             now: MonotonicInstant(nanoseconds: 1_000_000_000), through: bound)
        #expect(!inspector.hasInput(through: bound) && inspector.hasInput(through: bound + 1))
        #expect(log.drain().map(\.firstFrame) == (5..<10).map { Int64($0 * CapturedChunk.capacity) })
    }
}
