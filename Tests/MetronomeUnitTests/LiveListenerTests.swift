import Glibc
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeListening
import MetronomeTestSupport

/// The inspector on its own thread: the clicks and a bound handed in, the notes taken out,
/// and the end of a take, which finds the rest on the caller's thread.
@Suite struct LiveListenerTests {
    let rate = SampleRate.standard
    /// Hits at these offsets (frames) from clicks 24 000 frames apart, hit k on click k + 1.
    let offsets: [Int64] = [0, -1_680, 817, -48, 48, 1_680, -1_000, 333]

    /// A listener on a log holding the whole take, its input and output on one line
    /// (capture frame f taken when output frame f is heard), every click handed in.
    func makeListener() throws -> (listener: LiveListener, log: CaptureLog, chunks: Int) {
        let signal = SyntheticHits(rate: rate, count: offsets.count, bpm: 120, offsets: offsets).signal()
        let start: Int64 = 5_000_000_000
        func instant(_ frame: Int64) -> MonotonicInstant {
            MonotonicInstant(nanoseconds: start + FrameTime.nanoseconds(inFrames: frame, at: rate.framesPerSecond))
        }
        let chunks = signal.count / CapturedChunk.capacity
        let log = CaptureLog(capacity: chunks + 1)
        for index in 0..<chunks {
            let first = index * CapturedChunk.capacity, end = Int64(first + CapturedChunk.capacity)
            var chunk = CapturedChunk(firstFrame: Int64(first), count: CapturedChunk.capacity, stampFrame: end,
                                      stampNanoseconds: instant(end).nanoseconds)
            for offset in 0..<CapturedChunk.capacity { chunk.samples[offset] = signal[first + offset] }
            #expect(log.tryPush(chunk))
        }
        let inspector = try #require(Inspector(log: log, rate: rate, roundTripFrames: 0))
        // Only the listener's thread reads the clock once it starts.
        let clock = ManualClock()
        let heard = Int64(signal.count), at = instant(heard)
        clock.sleep(until: at)
        let listener = LiveListener(inspector: inspector, clock: clock) { (heard, at, heard + 4_096) }
        listener.receive(clicks: (0..<Int64(offsets.count + 2)).map {
            StartedClick(click: $0, frame: 24_000 * $0, bar: $0 / 4, beatInBar: Int32($0 % 4), sound: .beat)
        })
        return (listener, log, chunks)
    }

    func expectMatched(_ heard: [LiveListener.Heard], from hit: Int) throws {
        for (index, note) in heard.enumerated() {
            let match = try #require(note.note.match)
            #expect(note.beat == Int64(hit + index + 1))
            #expect(abs(match.offsetFrames - offsets[hit + index]) <= 48, "hit \(hit + index): \(match.offsetFrames)")
        }
    }

    /// The thread listens as far as it is let (the hits up to frame 120 000: four), the rest of the
    /// input left in the log; after the thread, `finish` finds the other four.
    @Test func theThreadListensAsFarAsItIsLetAndTheEndFindsTheRest() throws {
        let (listener, log, chunks) = try makeListener()
        listener.start()
        listener.listen(through: 120_000)
        var heard: [LiveListener.Heard] = []
        waitUntil(seconds: 10, every: .milliseconds(1)) {
            while let note = listener.next() { heard.append(note) }
            return heard.count >= 4
        }
        // Time to go further than it was let, were it to.
        usleep(50_000)
        while let note = listener.next() { heard.append(note) }
        listener.stop()
        listener.join()
        try #require(heard.count == 4)
        try expectMatched(heard, from: 0)
        let left = log.drain()
        #expect(left.count == chunks - 120_000 / CapturedChunk.capacity)
        for chunk in left { #expect(log.tryPush(chunk)) }
        let rest = listener.finish()
        try #require(rest.count == offsets.count - 4)
        try expectMatched(rest, from: 4)
        #expect(log.pop() == nil)
    }

    /// Let to the end, the loop takes a note, then the thread is stopped wherever it is:
    /// `finish` hands over the others in order, those the thread found first.
    @Test func theEndHandsOverEveryNoteTheLoopHasNotTakenInOrder() throws {
        let (listener, log, _) = try makeListener()
        listener.start()
        listener.listen(through: .max)
        var first: LiveListener.Heard?
        waitUntil(seconds: 10, every: .milliseconds(1)) {
            first = listener.next()
            return first != nil
        }
        listener.stop()
        listener.join()
        let heard = try [#require(first)] + listener.finish()
        try #require(heard.count == offsets.count)
        try expectMatched(heard, from: 0)
        #expect(log.pop() == nil)
    }
}
