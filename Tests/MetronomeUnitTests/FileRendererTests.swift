@testable import MetronomeCommandLine
import Glibc
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeRender
@testable import MetronomeSession
import MetronomeTestSupport

@Suite struct FileRendererTests {
    let directory = TemporaryDirectory()

    func render(bpm: String, meter: String = "4/4", rate: Int64, length: TrackLength, path: String,
                sampleFormat: SampleFormat = .pcm16, sounds: (beat: Sound, bell: Sound)? = nil) throws -> ClickSchedule {
        let sampleRate = try #require(SampleRate(rate))
        let schedule = ClickSchedule(tempo: try Tempo(parsing: bpm), meter: try Meter(parsing: meter), rate: sampleRate)
        let sounds = sounds ?? impulseSounds(rate: sampleRate)
        let track = ClickTrack(schedule: schedule, beat: sounds.beat, bell: sounds.bell, length: length)
        _ = try FileRenderer(path: path, format: OutputFormat(path: path, sampleFormat: sampleFormat)).render(track)
        return schedule
    }

    @Test(arguments: [("137.125", Int64(44_100)), ("96", 44_100), ("224", 44_100), ("90", 48_000), ("333.333", 8_000)])
    func everyRenderedClickSitsOnItsExactFrame(bpm: String, rate: Int64) throws {
        let path = directory.file("click.wav")
        let schedule = try render(bpm: bpm, rate: rate, length: .bars(60), path: path)
        let file = try readSoundFile(path)
        #expect(file.rate == rate && file.channels == 1)
        let found = onsets(file.samples)
        #expect(found.count == 240)
        for (click, onset) in found.enumerated() {
            #expect(onset.frame == schedule.frame(ofClick: Int64(click)), "click \(click)")
            // Every fourth click, starting with the first, is the bell.
            #expect((onset.value < 0) == (click % 4 == 0), "click \(click)")
        }
    }

    @Test func aDurationHoldsExactlyRoundTRFrames() throws {
        for (text, rate, frames) in [("2.5m", Int64(44_100), Int64(6_615_000)), ("1.00001", 44_100, 44_100), ("1.0000114", 44_100, 44_101), ("7", 8_000, 56_000)] {
            let path = directory.file("timed.flac")
            _ = try render(bpm: "100", rate: rate, length: .playtime(Playtime(parsing: text)), path: path)
            #expect(Int64(try readSoundFile(path).samples.count) == frames, "\(text) at \(rate)")
        }
    }

    @Test func barsEndWithTheRingOfTheLastSound() throws {
        let rate = SampleRate.standard
        let longBell = Sound(samples: [Float](repeating: 0.1, count: 100_000), rate: rate)
        let beat = Sound(samples: [0.5], rate: rate)
        let path = directory.file("ring.wav")
        let schedule = try render(bpm: "240", rate: 48_000, length: .bars(2), path: path, sounds: (beat, longBell))
        let frames = Int64(try readSoundFile(path).samples.count)
        // The last bell starts at bar 2 (frame 48000) and rings 100000 frames.
        #expect(frames == schedule.frame(ofBar: 1) + 100_000)
        // With short sounds the file ends exactly at the end of the last bar.
        let short = directory.file("short.wav")
        let plain = try render(bpm: "240", rate: 48_000, length: .bars(2), path: short)
        #expect(Int64(try readSoundFile(short).samples.count) == plain.frame(ofBar: 2))
    }

    @Test func floatFilesKeepSamplesExactly() throws {
        let path = directory.file("float.wav")
        _ = try render(bpm: "120", rate: 48_000, length: .bars(1), path: path, sampleFormat: .float)
        let file = try readSoundFile(path)
        #expect(onsets(file.samples).map(\.value) == [-0.75, 0.25, 0.25, 0.25])
    }

    @Test func anInterruptedRenderLeavesNoFile() throws {
        let path = directory.file("stopped.wav")
        let sounds = impulseSounds(rate: .standard)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!), beat: sounds.beat, bell: sounds.bell, length: .bars(1_000))
        var blocks = 0
        #expect(throws: FileRenderer.Interruption.signal(SIGINT)) {
            try FileRenderer(path: path, format: OutputFormat(path: path, sampleFormat: .pcm16)).render(track) {
                blocks += 1
                return blocks > 3 ? SIGINT : nil
            }
        }
        #expect(directory.contents().isEmpty)
    }

    @Test func anExistingFileIsReplacedOnlyWhenTheRenderCompletes() throws {
        let path = directory.file("keep.wav")
        _ = try render(bpm: "60", rate: 48_000, length: .bars(1), path: path)
        let before = try readSoundFile(path).samples.count
        let sounds = impulseSounds(rate: .standard)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 60)!), beat: sounds.beat, bell: sounds.bell, length: .bars(50))
        _ = try? FileRenderer(path: path, format: OutputFormat(path: path, sampleFormat: .pcm16)).render(track) { SIGTERM }
        #expect(try readSoundFile(path).samples.count == before)
        #expect(directory.contents() == ["keep.wav"])
    }

    @Test func anOutputThatCannotBeCreatedIsExit73() throws {
        let path = directory.file("no/such/dir/click.wav")
        #expect {
            _ = try render(bpm: "90", rate: 48_000, length: .bars(1), path: path)
        } throws: { error in
            CommandFailure.from(error)?.status == SysExit.cannotCreate.rawValue
        }
    }
}
