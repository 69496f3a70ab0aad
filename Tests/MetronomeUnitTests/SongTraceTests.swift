import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

/// When the trace records a setlist's song: once it plays, each song once.
@Suite struct SongTraceTests {
    /// What the trace gets, in order: a song (index, frame) or a click's frame.
    enum Event: Equatable {
        case song(Int, Int64)
        case click(Int64)
    }

    @Test func aSongIsTracedOnceItPlaysAndOneReplacedAtItsFrameNever() {
        var trace = SongTrace()
        #expect(trace.started(1, at: 48_000) == nil)
        // Chosen again before a click played it, at the same frame: the first never played.
        #expect(trace.started(2, at: 48_000) == nil)
        #expect(trace.clicks(through: 47_999) == nil)
        #expect(trace.clicks(through: 48_000).map { [$0.song, Int($0.frame)] } == [2, 48_000])
        #expect(trace.clicks(through: 60_000) == nil)
        // Started at a later frame, the song before it played (its frames in between) though no click came.
        #expect(trace.started(0, at: 96_000) == nil)
        #expect(trace.started(1, at: 144_000).map { [$0.song, Int($0.frame)] } == [0, 96_000])
        // The run ends with the last one.
        #expect(trace.finish().map { [$0.song, Int($0.frame)] } == [1, 144_000])
        #expect(trace.finish() == nil)
    }

    /// Block by block as the live loop takes the track's logs: `n` pressed twice while paused
    /// starts two songs at the pause's frame; only the second is traced, before its first click.
    @Test func twoSongsChosenWhilePausedLeaveTheSecondInTheTraceBeforeItsClicks() throws {
        let switching = SongSwitcherTests()
        let (track, feeder, switcher) = switching.setUp(switching.list)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        var trace = SongTrace()
        var events: [Event] = []
        var starts: [SongStart] = []
        for index in 0..<600 {
            feeder.feed()
            if index == 100 { track.apply(.pause) }
            if index == 110 {
                track.apply(try #require(switcher.move(by: 1)))
                #expect(switcher.move(by: 1) == nil)
            }
            if index == 200 { track.apply(.resume) }
            while let start = track.songLog?.pop() {
                starts.append(start)
                guard let (song, next) = switcher.started(start) else { continue }
                if let played = trace.started(song, at: start.frame) { events.append(.song(played.song, played.frame)) }
                if let next { track.apply(next) }
            }
            let clicks = track.clickLog!.drain()
            if let last = clicks.last, let song = trace.clicks(through: last.frame) { events.append(.song(song.song, song.frame)) }
            events += clicks.map { .click($0.frame) }
            track.render(into: buffer, count: 256)
        }
        if let song = trace.finish() { events.append(.song(song.song, song.frame)) }
        // Both songs started where the pause began.
        try #require(starts.count == 2)
        let paused = starts[0].frame
        #expect(starts[1].frame == paused)
        #expect(events.filter { if case .song = $0 { true } else { false } } == [.song(2, paused)])
        let traced = try #require(events.firstIndex(of: .song(2, paused)))
        #expect(events[..<traced].allSatisfy { if case .click(let frame) = $0 { frame < paused } else { false } })
        #expect(events[(traced + 1)...].allSatisfy { if case .click(let frame) = $0 { frame >= paused } else { false } })
        #expect(events.count > traced + 4)
    }
}
