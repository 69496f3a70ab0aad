import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeSession
import MetronomeTestSupport

/// A tempo map's entry volumes: relative to each other, never above full scale, kept through keys.
@Suite struct MapLevelTests {
    @Test func entriesLouderThanOneAreScaledNotClipped() throws {
        let directory = TemporaryDirectory()
        let sounds = try writeImpulseSoundFiles(in: directory)
        let map = directory.file("loud.txt")
        try "1 120 2\n1 120 0.5\n".write(toFile: map, atomically: true, encoding: .utf8)
        let output = directory.file("loud.wav")
        let result = try run(metronomeBinary(), ["--tempo-map", map, "--beat-sound", sounds.beat, "--bell-sound", sounds.bell,
                                                 "--format", "float", "--output", output], environment: ["ALSA_CONFIG_PATH": "/nonexistent"])
        #expect(result.status == 0)
        let clicks = onsets(try readSoundFile(output).samples)
        #expect(clicks.count == 8)
        #expect(clicks.allSatisfy { abs($0.value) < 1 }, "no click reaches full scale: \(clicks.map(\.value))")
        // The loudest entry plays at --volume: the impulses as they are in the sound files.
        let bell = impulseSounds(rate: .standard).bell.samples[0], beat = impulseSounds(rate: .standard).beat.samples[0]
        #expect(clicks[0].value == bell && clicks[1].value == beat)
        // The other entry at a quarter of it, as 0.5 is to 2.
        #expect(clicks[4].value == bell / 4 && clicks[5].value == beat / 4)
    }

    /// Before the fix a map at 0.5 jumped 6 dB at the first tempo key: the key's gain was the plain --volume's.
    @Test func aQuietMapKeepsItsLevelAfterATempoOrVolumeKey() throws {
        let directory = TemporaryDirectory()
        let paths = try writeImpulseSoundFiles(in: directory)
        let map = directory.file("quiet.txt")
        try "64 120 0.5\n".write(toFile: map, atomically: true, encoding: .utf8)
        let settings = try parsedSettings("--beat-sound", paths.beat, "--bell-sound", paths.bell, "--tempo-map", map)
        let sounds = try Session.loadSounds(settings, rate: .standard)
        let (track, feeder, _) = Session.makeTrack(settings, sounds: sounds, rate: .standard)
        var controller = Session.practiceController(settings, track: track, sounds: sounds, rate: .standard)
        let block = 48_000
        var samples = [Float](repeating: 0, count: block)
        func play() -> [Float] {
            feeder?.feed()
            _ = samples.withUnsafeMutableBufferPointer { track.render(into: $0.baseAddress!, count: block) }
            return onsets(samples).map(\.value)
        }
        let before = play()
        if case .command(let command) = controller.press(.up, heardFrame: track.position) { track.apply(command) }
        let afterTempo = play()
        if case .command(let command) = controller.press(.character(UInt8(ascii: "+")), heardFrame: track.position) { track.apply(command) }
        let afterVolume = play()
        let beat = impulseSounds(rate: .standard).beat.samples[0]
        #expect(before.contains(beat * 0.5))
        #expect(afterTempo.contains(beat * 0.5), "a tempo key keeps the map's level: \(afterTempo)")
        // A volume key moves the level from there, by a tenth: 0.5 to 0.6.
        #expect(afterVolume.allSatisfy { abs($0) <= 1 })
        #expect(afterVolume.contains { abs($0 - beat * 0.6) < 1e-6 }, "\(afterVolume)")
    }

    /// Every passage divides by the loudest volume: it is found once, when the plan is made.
    @Test func theLoudestVolumeIsFoundOnceForTheWholeMap() throws {
        let text = (0..<1000).map { "1 120 \(Double($0 % 7 + 1) / 10)" }.joined(separator: "\n")
        let map = try TempoMap(parsing: Array(text.utf8), name: "map.txt")
        let plan = TempoPlan(.map(map, first: 0, loops: false), rate: .standard, rhythm: .plain)
        #expect(plan.loudest == 0.7)
        #expect(plan.level == 0.7)
        #expect(TempoPlan.loudest(of: .map(map, first: 0, loops: false)) == 0.7)
    }
}
