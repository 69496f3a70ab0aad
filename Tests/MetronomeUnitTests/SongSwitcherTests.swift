import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

/// A setlist's songs switched on the track itself, block by block: at the
/// next bar line, one switch at a time, and nothing allocated on the audio thread's side.
@Suite struct SongSwitcherTests {
    let rate = SampleRate.standard

    /// A track playing song `current` of `list`, with its switcher, as `Session.play` makes them.
    func setUp(_ list: SongList) -> (ClickTrack, PlanFeeder, SongSwitcher) {
        let plan = TempoPlan(list.songs[list.current].source, rate: rate, rhythm: .plain)
        let feeder = PlanFeeder(plan)
        let sounds = ClickSounds(beat: Sound(samples: [0.1], rate: rate), bell: Sound(samples: [0.2], rate: rate))
        let track = ClickTrack(plan: plan, feeder: feeder, sounds: sounds)
        let plans = (feeder.queue, LockFreeQueue<Passage>(capacity: 256))
        track.songPlans = plans
        track.songLog = LockFreeQueue<SongStart>(capacity: 64)
        track.clickLog = ClickLog(capacity: 1 << 16)
        track.passageLog = LockFreeQueue(capacity: 1 << 12)
        return (track, feeder, SongSwitcher(list: list, feeder: feeder, plans: plans, rate: rate, rhythm: .plain))
    }

    let list = SongList(songs: [SongList.Song(name: "A", source: SongList.constant(Tempo(bpm: 240)!, meter: .common)),
                                SongList.Song(name: "B", source: SongList.constant(Tempo(bpm: 180)!, meter: Meter(beatsPerBar: 3, noteValue: 4)!)),
                                SongList.Song(name: "C", source: SongList.constant(Tempo(bpm: 120)!, meter: Meter(beatsPerBar: 2, noteValue: 4)!))],
                        current: 0)

    /// Renders `blocks` blocks of 256 frames, sending `commands` before the block of their index
    /// and the switcher's follow-up commands as the live loop does; returns the allocations of the render side.
    func play(_ track: ClickTrack, _ switcher: SongSwitcher, feeder: PlanFeeder, blocks: Int, commands: [Int: PracticeCommand],
              starts: inout [(song: Int, frame: Int64)]) -> Int {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        track.render(into: buffer, count: 256)
        var allocations = 0
        var queued: [PracticeCommand] = []
        queued.reserveCapacity(8)
        for index in 0..<blocks {
            feeder.feed()
            if let command = commands[index] { queued.append(command) }
            while let start = track.songLog?.pop() {
                if let (song, next) = switcher.started(start) {
                    starts.append((song, start.frame))
                    if let next { queued.append(next) }
                }
            }
            metronome_counting_begin()
            // A while loop: a debug build's array iterator may allocate.
            var next = 0
            while next < queued.count {
                track.apply(queued[next])
                next += 1
            }
            track.render(into: buffer, count: 256)
            allocations += Int(metronome_counting_end())
            queued.removeAll(keepingCapacity: true)
        }
        return allocations
    }

    @Test func twoPressesMoveTwoSongsEachAtTheNextBarLineAndTheRenderAllocatesNothing() throws {
        let (track, feeder, switcher) = setUp(list)
        let first = try #require(switcher.move(by: 1))
        // Pressed again before the first switch is done: asked for once it is.
        #expect(switcher.move(by: 1) == nil)
        var starts: [(song: Int, frame: Int64)] = []
        // From frame 256 * 100: A's bar lines are every 48000 frames.
        let allocations = play(track, switcher, feeder: feeder, blocks: 1_500, commands: [100: first], starts: &starts)
        if metronome_counting_available() != 0 { #expect(allocations == 0) }
        #expect(starts.map(\.song) == [1, 2])
        #expect(starts.first?.frame == 48_000)
        // B's bars are 3 * 16000 frames: C starts at B's next bar line once the switch to B was seen
        // (its first, when the audio thread has not yet started it).
        let second = try #require(starts.last)
        #expect((second.frame - 48_000) % 48_000 == 0 && second.frame >= 48_000)
        let clicks = track.clickLog!.drain()
        for click in clicks where click.frame < 48_000 { #expect(click.frame == click.click * 12_000) }
        for click in clicks where click.frame >= 48_000 && click.frame < second.frame {
            #expect((click.frame - 48_000) % 16_000 == 0 && click.bell == ((click.frame - 48_000) / 16_000 % 3 == 0))
        }
        let inC = clicks.filter { $0.frame >= second.frame }
        #expect(inC.count >= 4)
        for (j, click) in inC.enumerated() { #expect(click.frame == second.frame + Int64(j) * 24_000 && click.bell == (j % 2 == 0)) }
        #expect(clicks.map(\.click) == Array(0..<Int64(clicks.count)))
        // Past the last song n stays there; before the first p does.
        #expect(switcher.move(by: 1) == nil && switcher.playing == 2)
    }

    @Test func theFirstSongBeforeTheFirstStaysThere() {
        let (_, _, switcher) = setUp(list)
        #expect(switcher.move(by: -1) == nil && switcher.playing == 0)
    }
}
