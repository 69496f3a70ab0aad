@testable import MetronomeCommandLine
import CSndFile
import Glibc
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeRender
@testable import MetronomeSession
import MetronomeTestSupport

@Suite struct SoundTests {
    let directory = TemporaryDirectory()

    /// A test sound: silence with one spike at `spike`, then a short decay.
    func spikeSound(frames: Int, spike: Int, rate: SampleRate) -> Sound {
        var samples = [Float](repeating: 0, count: frames)
        for index in 0..<40 where spike + index < frames { samples[spike + index] = 0.8 * Float(40 - index) / 40 }
        return Sound(samples: samples, rate: rate)
    }

    @Test(arguments: ["wav", "flac", "ogg", "aiff"])
    func everyContainerLoadsBack(container: String) throws {
        let rate = SampleRate.standard
        let sound = spikeSound(frames: 4_800, spike: 1_000, rate: rate)
        let path = directory.file("spike.\(container)")
        try sound.write(to: path, format: OutputFormat(path: path, sampleFormat: .pcm16))
        let loaded = try Sound.load(contentsOf: path, rate: rate)
        #expect(abs(loaded.samples.count - 4_800) <= 64)  // Vorbis may pad a little
        let loudest = loaded.samples.indices.max(by: { abs(loaded.samples[$0]) < abs(loaded.samples[$1]) })!
        #expect(abs(loudest - 1_000) <= (container == "ogg" ? 3 : 0))
        #expect(abs(loaded.peak - 0.8) < (container == "ogg" ? 0.1 : 0.001))
    }

    @Test func stereoIsDownmixedToTheMeanOfTheChannels() throws {
        let path = directory.file("stereo.wav")
        let file = try SoundFile.create(writing: path, format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT), channels: 2, rate: 48_000)
        let interleaved: [Float] = [0.5, 0.1, -0.5, -0.3, 0.2, 0.2]
        try interleaved.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: 3) }
        try file.close()
        let loaded = try Sound.load(contentsOf: path, rate: .standard)
        #expect(loaded.samples == [0.3, -0.4, 0.2])
    }

    @Test func otherRatesAreConvertedKeepingTheOnset() throws {
        let source = try #require(SampleRate(44_100))
        let path = directory.file("cd.wav")
        try spikeSound(frames: 44_100, spike: 4_410, rate: source)
            .write(to: path, format: OutputFormat(path: path, sampleFormat: .float))
        let loaded = try Sound.load(contentsOf: path, rate: .standard)
        #expect(abs(loaded.samples.count - 48_000) <= 2)
        let loudest = loaded.samples.indices.max(by: { abs(loaded.samples[$0]) < abs(loaded.samples[$1]) })!
        #expect(abs(loudest - 4_800) <= 1)  // 0.1 s in, at either rate
    }

    @Test func unusableFilesAreNoInputErrorsNamingTheFile() throws {
        let text = directory.file("notes.txt")
        let handle = fopen(text, "w")
        fputs("not audio at all\n", handle)
        fclose(handle)
        let empty = directory.file("empty.wav")
        try Sound(samples: [], rate: .standard).write(to: empty, format: OutputFormat(path: empty, sampleFormat: .pcm16))
        for path in [directory.file("missing.wav"), text, empty, directory.path] {
            #expect {
                _ = try Sound.load(contentsOf: path, rate: .standard)
            } throws: { error in
                let failure = CommandFailure.from(error)
                return failure?.status == SysExit.noInput.rawValue && failure?.message.contains(path) == true
            }
        }
    }

    @Test func shippedSoundsAreMonoDryAndDifferent() throws {
        for (name, maximumSeconds) in [("beat.wav", 0.1), ("bell.wav", 1.0)] {
            let path = try SoundLibrary.builtIn(name)
            let file = try readSoundFile(path)
            #expect(file.channels == 1 && file.rate == 48_000)
            #expect(Double(file.samples.count) / 48_000 < maximumSeconds)
            let peak = file.samples.map(abs).max() ?? 0
            #expect(peak > 0.5 && peak < 0.8)  // normalised with headroom
            #expect(file.samples[0] != 0)        // the sound starts on its first frame
        }
    }
}
