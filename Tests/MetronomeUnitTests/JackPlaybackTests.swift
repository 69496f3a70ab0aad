import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The JACK process callback's work, cycle by cycle: the cycles are made here
/// (JACK's frame time, its microseconds, a port's latency), so every run is
/// the same. The real server's tests are `JackClientPlaybackTests`.
@Suite struct JackPlaybackTests {
    let rate = SampleRate.standard

    /// A client that is never activated: the test calls `process` itself.
    final class Unplugged: JackHost, @unchecked Sendable {
        let rate: SampleRate
        let name = "metronome"
        var isShutDown = false
        var catchesUp = false
        var drivesTransport = false
        var transportCalls: [String] = []
        func startTransport() { transportCalls.append("start") }
        func stopTransport() { transportCalls.append("stop") }
        init(rate: SampleRate) { self.rate = rate }
        func close() {}
    }

    func makePlayback(_ bpm: String, length: TrackLength = .endless, catchesUp: Bool = false) throws -> (JackPlayback, Unplugged) {
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: try Tempo(parsing: bpm), rate: rate),
                               beat: sounds.beat, bell: sounds.bell, length: length)
        let host = Unplugged(rate: rate)
        host.catchesUp = catchesUp
        let playback = JackPlayback(track: track, host: host)
        playback.start()
        return (playback, host)
    }

    /// Runs cycles of `frames` from frame time `start`; `gap(index)` adds frame
    /// time, and real time in frames, before cycle `index` (equal: cycles
    /// skipped; time alone: the server stopped). Returns the port's output
    /// placed by the real time of each cycle, in frames from the first.
    func play(_ playback: JackPlayback, cycles: Int, frames: Int = 1024, latency: Int = 2048, start: UInt32 = 5_000,
              gap: (Int) -> (frameTime: UInt32, realFrames: Int64) = { _ in (0, 0) }) -> [Float] {
        var frameTime = start
        var at: Int64 = 0
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { buffer.deallocate() }
        var heard = [Float]()
        for index in 0..<cycles {
            let (skipped, lost) = gap(index)
            frameTime &+= skipped
            at += lost
            let microseconds = 1_000_000 + UInt64(FrameTime.nanoseconds(inFrames: at, at: rate.framesPerSecond) / 1_000)
            playback.process(JackCycle(firstFrame: frameTime, microseconds: microseconds, frames: frames, latency: latency), into: buffer)
            heard += [Float](repeating: 0, count: Int(at) + frames - heard.count)
            for offset in 0..<frames { heard[Int(at) + offset] = buffer[offset] }
            frameTime &+= UInt32(frames)
            at += Int64(frames)
        }
        return heard
    }

    @Test func everyClickIsOnItsFrameOfTheCycle() throws {
        let (playback, _) = try makePlayback("137")
        let heard = play(playback, cycles: 470)  // 10 s
        let found = onsets(heard).map(\.frame)
        #expect(found.count == 23)  // 470 cycles, 10.03 s
        #expect(found == (0..<Int64(found.count)).map { playback.track.schedule.frame(ofClick: $0) })
        #expect(playback.underruns == 0)
    }

    /// Cycles JACK skipped (its frame time jumped) and a server that stopped
    /// (its frame time did not move, its clock did): the clicks due in the gap
    /// are dropped, every other is where real time puts it.
    @Test(arguments: [UInt32(9_600), 0])
    func timeLostDropsTheClicksDueInItAndKeepsTheGrid(skipped: UInt32) throws {
        let (playback, _) = try makePlayback("137")
        let heard = play(playback, cycles: 470) { $0 == 100 ? (skipped, 9_600) : (0, 0) }
        let found = onsets(heard).map(\.frame)
        let grid = (0..<Int64(30)).map { playback.track.schedule.frame(ofClick: $0) }
        let gapStart = Int64(100 * 1024), gapEnd = gapStart + 9_600
        #expect(found.allSatisfy { grid.contains($0) }, "\(found) \(grid)")
        #expect(grid.filter { $0 < Int64(heard.count) - 2_000 && !($0 > gapStart - 1_000 && $0 < gapEnd) }.allSatisfy { found.contains($0) })
        #expect(playback.underruns == 1)
    }

    /// PipeWire's JACK, catching up after its server stalled, at times runs a
    /// client twice in one cycle: the second run at the same frame time and
    /// microseconds, into another buffer, which the graph keeps. That run
    /// writes the first one's audio again: the click in that cycle is heard,
    /// and every later click stays on its frame, not a cycle early.
    @Test func aCycleRunTwiceAtOneFrameTimeIsTheSameAudioAgain() throws {
        let (playback, _) = try makePlayback("120")
        let first = UnsafeMutablePointer<Float>.allocate(capacity: 1024), again = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { first.deallocate(); again.deallocate() }
        var heard = [Float](repeating: 0, count: 300 * 1024)
        for index in 0..<300 {
            let cycle = JackCycle(firstFrame: 5_000 + UInt32(index * 1024), microseconds: UInt64(1_000_000 + index * 21_333), frames: 1024,
                                  latency: 2048)
            playback.process(cycle, into: first)
            var kept = first
            // Click 4 (frame 96000) falls in cycle 93; the buffer of the second run holds an older cycle's audio.
            if index == 93 {
                again.update(repeating: 0.25, count: 1024)
                playback.process(cycle, into: again)
                kept = again
            }
            for offset in 0..<1024 { heard[index * 1024 + offset] = kept[offset] }
        }
        #expect(onsets(heard).map(\.frame) == (0..<13).map { playback.track.schedule.frame(ofClick: $0) })
        #expect(playback.underruns == 0)
    }

    /// PipeWire's JACK catching up after a stall runs the cycles it owes in a
    /// burst, each after its end; what a client writes then may reach the sink
    /// a cycle later than its frame time says. Those cycles are time lost: the
    /// click due in them is dropped (one underrun for the burst), every other
    /// stays on its frame. jackd's late callbacks run on its schedule and lose
    /// nothing this way (its own stall is measured by the callbacks' lead).
    @Test(arguments: [true, false])
    func cyclesRunAfterTheirEndOnPipeWireAreSilence(catchesUp: Bool) throws {
        let (playback, _) = try makePlayback("120", catchesUp: catchesUp)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        var heard = [Float](repeating: 0, count: 300 * 1024)
        for index in 0..<300 {
            // Click 4 (frame 96000) falls in cycle 93, in a burst of cycles 88 to 97 each run after its end.
            let cycle = JackCycle(firstFrame: 5_000 + UInt32(index * 1024), microseconds: UInt64(1_000_000 + index * 21_333), frames: 1024,
                                  latency: 2048, ranLate: (88...97).contains(index))
            playback.process(cycle, into: buffer)
            for offset in 0..<1024 { heard[index * 1024 + offset] = buffer[offset] }
        }
        let grid = (0..<13).map { playback.track.schedule.frame(ofClick: Int64($0)) }
        #expect(onsets(heard).map(\.frame) == (catchesUp ? grid.filter { $0 != 96_000 } : grid))
        #expect(playback.underruns == (catchesUp ? 1 : 0))
        #expect(playback.track.position == 300 * 1024)
    }

    @Test func aClockThatJittersLosesNoTime() throws {
        let (playback, _) = try makePlayback("120")
        // Each cycle up to 4 ms late or early against the last: a non-real-time server's wakes.
        var microseconds: UInt64 = 1_000_000
        var frameTime: UInt32 = 0
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        for index in 0..<500 {
            let jitter: Int64 = index % 2 == 0 ? 4_000 : -4_000
            playback.process(JackCycle(firstFrame: frameTime, microseconds: UInt64(Int64(microseconds) + jitter), frames: 1024, latency: 0), into: buffer)
            frameTime &+= 1024
            microseconds += 21_333
        }
        #expect(playback.underruns == 0)
        #expect(playback.track.position == 500 * 1024)
    }

    @Test func aFrameTimeThatGoesBackLosesNoTime() {
        var lost = JackLostTime(catchesUp: false)
        #expect(lost.lost(before: JackCycle(firstFrame: 90_000, microseconds: 5_000_000, frames: 1024, latency: 0), rate: 48_000) == 0)
        #expect(lost.lost(before: JackCycle(firstFrame: 4_096, microseconds: 5_021_333, frames: 1024, latency: 0), rate: 48_000) == 0)
    }

    /// jackd stopped for 200 ms, as measured: its frame time moves a cycle, its
    /// cycle start (a filter's estimate) jumps, then runs a cycle at once with a
    /// start 154 ms back, then 25 ms a cycle while the callbacks run on time.
    /// The time lost is the callbacks' lead over their schedule: 180 ms, once.
    @Test func aStoppedServerLosesTheTimeItsCallbacksRanLate() {
        var lost = JackLostTime(catchesUp: false)
        var found: [Int64] = []
        var woke: Int64 = 1_000_000_000, microseconds: Int64 = 1_000_000
        for index in 0..<200 {
            var step = 21_333_333, start = 21_333
            if index == 100 { step = 201_220_000; start = 201_224 }
            if index == 101 { step = 172_000; start = -154_258 }
            if index > 101 { step = 21_333_333 + (index % 3 - 1) * 40_000; start = 25_000 }
            if index > 0 { woke += Int64(step); microseconds += Int64(start) }
            let cycle = JackCycle(firstFrame: UInt32(index * 1024), microseconds: UInt64(microseconds),
                                  wokeAt: MonotonicInstant(nanoseconds: woke), frames: 1024, latency: 0)
            found.append(lost.lost(before: cycle, rate: 48_000))
        }
        #expect(found.filter { $0 != 0 } == [FrameTime.frames(inNanoseconds: 201_220_000 - 21_333_333 + 10_416, at: 48_000)])
        #expect(found[100] > 8_600 && found[100] < 8_640)
    }

    /// PipeWire's JACK runs the cycles it missed in a burst: the callbacks' lead
    /// over their schedule goes as its frame time catches up, and is no loss.
    @Test func aServerThatCatchesUpLosesOnlyItsFrameTimesJumps() {
        var lost = JackLostTime(catchesUp: true)
        var found: [Int64] = []
        for index in 0..<100 {
            // 300 ms stopped before cycle 50, then 14 cycles 25 µs apart, the first 2048 frames on.
            let frame = index * 1024 + (index >= 50 ? 1024 : 0)
            let woke: Int64 = index < 50 ? Int64(index) * 21_333_333 : index < 64 ? 49 * 21_333_333 + 300_000_000 + Int64(index - 50) * 25_000
                : Int64(index + 1) * 21_333_333
            found.append(lost.lost(before: JackCycle(firstFrame: UInt32(frame), microseconds: UInt64(frame) * 1_000_000 / 48_000,
                                                     wokeAt: MonotonicInstant(nanoseconds: woke), frames: 1024, latency: 0), rate: 48_000))
        }
        #expect(found.filter { $0 != 0 } == [1024])
    }

    /// A callback that runs late while the server keeps its schedule loses nothing.
    @Test func aLateCallbackOnTheServersScheduleLosesNothing() {
        var lost = JackLostTime(catchesUp: false)
        for index in 0..<500 {
            let late: Int64 = index % 50 == 7 ? 15_000_000 : index % 3 == 0 ? 300_000 : 0
            let cycle = JackCycle(firstFrame: UInt32(index * 1024), microseconds: UInt64(index * 21_333),
                                  wokeAt: MonotonicInstant(nanoseconds: Int64(index) * 21_333_333 + late), frames: 1024, latency: 0)
            #expect(lost.lost(before: cycle, rate: 48_000) == 0)
        }
    }

    @Test func jacksFrameTimeWrappingLosesNoTime() throws {
        let (playback, _) = try makePlayback("120")
        let heard = play(playback, cycles: 100, start: UInt32.max - 50 * 1024 + 7)
        #expect(playback.underruns == 0)
        #expect(onsets(heard).map(\.frame) == (0..<5).map { playback.track.schedule.frame(ofClick: $0) })
    }

    /// At the cycle's start the frame heard is the one written a latency earlier.
    @Test func theFrameHeardIsTheCyclesFirstLessThePortsLatency() throws {
        let (playback, _) = try makePlayback("120")
        _ = play(playback, cycles: 10, latency: 3_000)
        let sample = playback.position.snapshot()
        #expect(sample.heard == 9 * 1024 - 3_000)
        #expect(sample.at.nanoseconds == 1_192_000_000)  // 9 cycles of 1024 frames after the first, at 1 s
        #expect(sample.written == 10 * 1024)
        #expect(playback.latencyTenths == 625)
    }

    /// A stop fades out within 5 ms, then silence; the run ends once that was heard.
    @Test func aStopFadesAndEndsWhenTheLastFrameIsHeard() throws {
        let (playback, host) = try makePlayback("120")
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        func cycle(_ index: Int) {
            playback.process(JackCycle(firstFrame: UInt32(index * 1024), microseconds: UInt64(1_000 + index * 21_333), frames: 1024, latency: 2048),
                             into: buffer)
        }
        for index in 0..<20 { cycle(index) }
        playback.stop()
        var cycles = 0
        while !playback.isFinished, cycles < 10 {
            cycle(20 + cycles)
            cycles += 1
            if cycles > 1 { #expect((0..<1024).allSatisfy { buffer[$0] == 0 }) }
        }
        // The stop's cycle (240 frames of fade), then until its end is at the ear, 2048 frames later.
        #expect(cycles == 4)
        #expect(playback.failure == nil)
        host.isShutDown = true
        #expect(playback.failure == .serverGone)
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func aCycleAllocatesNothing() throws {
        let (playback, _) = try makePlayback("240")
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        playback.process(JackCycle(firstFrame: 0, microseconds: 1_000, frames: 1024, latency: 1024), into: buffer)
        playback.send(.pause)
        playback.send(.resume)
        metronome_counting_begin()
        for cycle in 1..<400 {
            playback.process(JackCycle(firstFrame: UInt32(cycle * 1024), microseconds: UInt64(1_000 + cycle * 21_333), frames: 1024, latency: 1024),
                             into: buffer)
        }
        let counted = metronome_counting_end()
        #expect(counted == 0)
    }

    /// Following a transport: the clicks are the master's beats, where it says
    /// they fall, and silence while it stands; Space starts and stops it.
    @Test func followingTheClicksAreTheMastersBeatsAndSpaceDrivesTheTransport() throws {
        let (playback, host) = try makePlayback("90")
        host.drivesTransport = true
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        // A master at 150 bpm in 3/4 (19 200 frames a beat) from transport frame 0, rolling for 100 cycles, then stopped.
        var heard = [Float]()
        for index in 0..<140 {
            let frame = Int64(index * 1024)
            let rolling = index < 100
            let beat = frame / 19_200, tick = (frame % 19_200) * 1920 / 19_200
            let bbt = MasterPosition.BBT(bar: beat / 3 + 1, beat: beat % 3 + 1, tick: tick, ticksPerBeat: 1920, beatsPerBar: 3,
                                         beatType: 4, beatsPerMinute: 150)
            playback.process(JackCycle(firstFrame: UInt32(index * 1024), microseconds: UInt64(1_000 + index * 21_333), frames: 1024, latency: 0,
                                       transport: MasterPosition(rolling: rolling, frame: rolling ? frame : 99 * 1024, frameRate: 48_000, bbt: bbt)),
                             into: buffer)
            heard += UnsafeBufferPointer(start: buffer, count: 1024)
        }
        let found = onsets(heard)
        #expect(found.map(\.frame) == evenFrames(6, every: 19_200))
        #expect(found.map { $0.value < 0 } == [true, false, false, true, false, false])
        playback.send(.pause)
        playback.send(.resume)
        #expect(host.transportCalls == ["stop", "start"])
    }
}
