import Foundation
import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The engine against a simulated device and a manual clock: no sound card,
/// no sleeping, the same answer every run.
@Suite struct LivePlaybackTests {
    let rate = SampleRate.standard

    func makeTrack(_ bpm: String, length: TrackLength) throws -> ClickTrack {
        let sounds = impulseSounds(rate: rate)
        return ClickTrack(schedule: ClickSchedule(tempo: try Tempo(parsing: bpm), rate: rate),
                          beat: sounds.beat, bell: sounds.bell, length: length)
    }

    @Test func playedClicksSitExactlyOnTheGrid() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        let track = try makeTrack("137", length: .playtime(Playtime(parsing: "5")))
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        let start = clock.now()
        playback.run()
        let found = onsets(device.recording)
        let grid: [Int64] = (0..<Int64(found.count)).map { track.schedule.frame(ofClick: $0) }
        #expect(found.map(\.frame) == grid)
        #expect(found.count == 12)  // 5 s at 137 bpm
        #expect(playback.underruns == 0)
        // It took the real time of the track (plus the buffer still playing at the end).
        let elapsed = clock.now().nanoseconds - start.nanoseconds
        #expect(abs(elapsed - 5_000_000_000) < 20_000_000)
    }

    /// How a device goes through a stall of the process.
    enum StallingDevice: CaseIterable {
        /// A card: it plays on, runs dry and reports an underrun.
        case playsOn
        /// ALSA's jack plugin (its JACK client runs in the process): it stops
        /// too and reports nothing; the engine's stall watch finds it.
        case stopsWithProcess
        /// ALSA's pulse plugin into pipewire-pulse: it plays on and underruns,
        /// and its delay report wanders by tens of milliseconds while the
        /// sound does not move (the frames it has taken are exact).
        case reportsAWanderingDelay
    }

    /// Whatever the device, the grid holds: the clicks due in the gap are
    /// dropped and every other lands on its frame. The lost time comes from
    /// the frames the device took and when, not from its delay report.
    @Test(arguments: StallingDevice.allCases)
    func afterAStallClicksDueInTheGapAreDroppedAndTheGridHolds(device kind: StallingDevice) throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        device.stopsWithProcess = kind == .stopsWithProcess
        if kind == .reportsAWanderingDelay { device.delayDriftPerSecond = 400 }  // 840 frames wrong by the stall, as measured
        device.stallBeforeWrite = 400            // about 2.1 s in
        device.stallNanoseconds = 1_200_000_000  // long enough to swallow two or three clicks
        let track = try makeTrack("137", length: .playtime(Playtime(parsing: "6")))
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        playback.run()
        #expect(playback.underruns == 1)
        let schedule = track.schedule
        let found = onsets(device.recording)
        var clicks: [Int64] = []
        for onset in found {
            // Each recorded click is a click of the original grid, within a frame.
            let click = schedule.firstClick(atOrAfter: onset.frame - 1)
            #expect(abs(schedule.frame(ofClick: click) - onset.frame) <= 1, "onset at \(onset.frame)")
            #expect((onset.value < 0) == schedule.isBell(click: click))
            clicks.append(click)
        }
        // Some clicks fell in the stall and were dropped, not played late; the track played on to its end.
        let missing = Set(0...clicks.last!).subtracting(clicks)
        #expect((2...3).contains(missing.count), "\(missing)")
        #expect(clicks == clicks.sorted())
        #expect(clicks.last! >= schedule.firstClick(atOrAfter: 5 * 48_000))
    }

    /// The pulse plugin's delay report wanders while the sound does not move: the
    /// frame published as heard (what the picture follows) comes from the frames
    /// taken, so after 4 s of a report growing wrong by 400 frames a second it is
    /// still within the first second's share of the error (a mean of about 200
    /// frames), not 1600 frames behind as the report would put it.
    @Test func aWanderingDelayReportDoesNotMoveTheHeardFrame() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock, periodFrames: 1024, bufferFrames: 4096)
        device.delayDriftPerSecond = 400
        let track = try makeTrack("120", length: .playtime(Playtime(parsing: "4")))
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        playback.run()
        let sample = playback.position.snapshot()
        let truth = device.played(at: sample.at)
        #expect(truth > 3 * 48_000, "the last sample, near the end: \(sample)")
        #expect(abs(sample.heard - truth) <= 400, "heard \(sample.heard), played \(truth)")
    }

    /// ALSA's pulse plugin at times reports no underrun: its server, run dry
    /// while the process was stopped, waits for more and plays on late what
    /// was queued, which cannot be taken back. A write that blocked longer
    /// than the buffer lasts starts the stream again instead: at 1000 bpm a
    /// click lies in every stale buffer, and none is heard late.
    @Test func aServerThatWaitedWhenDryIsStartedAgainNotHeardLate() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock, periodFrames: 1024, bufferFrames: 4096)
        device.waitsWhenDry = true
        device.stallBeforeWrite = 100            // about 2.1 s in
        device.stallNanoseconds = 200_000_000
        let track = try makeTrack("1000", length: .playtime(Playtime(parsing: "4")))
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        playback.run()
        #expect(playback.underruns == 1)
        let schedule = track.schedule
        let found = onsets(device.recording)
        let clicks = found.map { schedule.firstClick(atOrAfter: $0.frame - 1) }
        for (onset, click) in zip(found, clicks) {
            #expect(abs(schedule.frame(ofClick: click) - onset.frame) <= 1, "onset at \(onset.frame), click \(click)")
        }
        #expect(clicks == clicks.sorted() && Set(clicks).count == clicks.count)
        #expect(Set(0...clicks.last!).subtracting(clicks).count >= 3)
    }

    @Test func aDeviceFasterThanRealTimeIsPacedByTheClock() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        device.fasterThanRealTime = true
        let track = try makeTrack("90", length: .playtime(Playtime(parsing: "3")))
        let start = clock.now()
        LivePlayback(track: track, sink: device, clock: clock).run()
        let elapsed = clock.now().nanoseconds - start.nanoseconds
        #expect(elapsed > 2_980_000_000 && elapsed <= 3_000_000_000)
        // The track's 3 s, then a period of silence before the drain.
        #expect(device.recording.count == 144_000 + device.periodFrames)
        #expect(device.recording[144_000...].allSatisfy { $0 == 0 })
    }

    /// After the end, a period of silence goes to the device before it is drained: a
    /// plugin that leaves its last buffer in place once drained (ALSA's jack plugin,
    /// whose port JACK then played again every cycle) repeats silence, not the last click.
    @Test func theEndIsFollowedByAPeriodOfSilence() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        // At 120 bpm the click at 2 s falls in the last period of a 2.005 s track.
        let track = try makeTrack("120", length: .playtime(Playtime(parsing: "2.005")))
        LivePlayback(track: track, sink: device, clock: clock).run()
        let end = 96_240
        #expect(device.recording.count == end + device.periodFrames)
        #expect(device.recording[..<end].contains { $0 != 0 })
        #expect(device.recording[end...].allSatisfy { $0 == 0 })
    }

    @Test func theAudiblePositionIsWrittenMinusDelay() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        let track = try makeTrack("120", length: .playtime(Playtime(parsing: "1")))
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        playback.run()
        let sample = playback.position.snapshot()
        #expect(sample.written == 48_000)
        // After draining, the last publish saw at most a buffer still queued.
        #expect(sample.written - sample.heard <= 512)
        // Extrapolating 2 ms past the snapshot moves 96 frames, capped at what was written.
        let later = MonotonicInstant(nanoseconds: sample.at.nanoseconds + 2_000_000)
        #expect(playback.position.heardFrame(at: later) == min(sample.heard + 96, sample.written))
    }

    /// `top -H` and the benchmark's split of CPU by thread find the audio thread by its name.
    @Test func theAudioThreadIsNamed() throws {
        func names() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").map {
                try String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        let playback = LivePlayback(track: try makeTrack("120", length: .bars(30)), sink: SilentSink(rate: rate))
        playback.start()  // names the thread before it returns
        let running = try names()
        playback.stop()
        playback.join()
        #expect(running.contains("metronome-audio"))
    }

    @Test func stoppingFadesOutInFiveMilliseconds() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        let long = Sound(samples: [Float](repeating: 0.5, count: 48_000), rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 60)!, rate: rate), beat: long, bell: long)
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        playback.stop()  // asked before the first block: fade from frame 0
        playback.run()
        let recorded = device.recording
        #expect(recorded.count >= 240)
        #expect(recorded[0] == 0.5)
        #expect(recorded[120] < recorded[60] && recorded[60] < recorded[0])  // a falling ramp
        #expect(recorded[240...].allSatisfy { $0 == 0 })
    }
}
