import Glibc
import Testing
@testable import MetronomeConfig
@testable import MetronomeCommandLine
import MetronomeTiming
import MetronomeSession
import MetronomeTestSupport

/// The config file: defaults under each option's long name, presets, and the
/// command line over both; read in-process through the same resolution the
/// binary runs, and through the binary itself.
@Suite struct ConfigFileTests {
    let directory = TemporaryDirectory()

    static let file = """
        # defaults
        volume = 0.5
        bpm = 100
        rate = 44100
        device = "null"

        [preset.fast]
        bpm = 150
        volume = 0.7

        [preset.song]
        tempo-map = "song.txt"
        """

    func write(_ text: String, _ name: String = "config.toml") -> String {
        let path = directory.file(name)
        let file = fopen(path, "w")!
        fputs(text, file)
        fclose(file)
        return path
    }

    /// The settings the typed line gets with `config` as its config file.
    func settings(_ typed: [String], config: String? = nil) throws -> Settings {
        let path = write(config ?? Self.file)
        let resolution = try ConfigSelection.resolve(["--config", path] + typed, environment: { _ in nil })
        return try parsedSettings(resolution.arguments)
    }

    /// The failure the typed line ends with, with `config` as its config file.
    func failure(_ typed: [String], config: String) -> CommandFailure? {
        let path = write(config)
        do {
            let resolution = try ConfigSelection.resolve(["--config", path] + typed, environment: { _ in nil })
            _ = try parsedSettings(resolution.arguments)
            return nil
        } catch {
            return CommandFailure.from(error)
        }
    }

    @Test func theCommandLineOverridesThePresetAndThePresetTheFile() throws {
        let defaults = try settings([])
        #expect(defaults.tempo == Tempo(bpm: 100)! && defaults.volume == 0.5 && defaults.rate.framesPerSecond == 44_100)
        let preset = try settings(["--preset", "fast"])
        #expect(preset.tempo == Tempo(bpm: 150)! && preset.volume == 0.7 && preset.rate.framesPerSecond == 44_100)
        let typed = try settings(["--preset", "fast", "--volume", "0.9", "--bpm=90"])
        #expect(typed.tempo == Tempo(bpm: 90)! && typed.volume == 0.9 && typed.rate.framesPerSecond == 44_100)
        // Without the file, the built-in defaults.
        let none = try parsedSettings(try ConfigSelection.resolve(["--no-config"], environment: { _ in nil }).arguments)
        #expect(none.tempo == Tempo(bpm: 120)! && none.volume == 1 && none.rate == .standard)
    }

    @Test func aKeyTypedDropsTheFilesKeysThatExcludeIt() throws {
        let map = write("a: 2 4/4 90\n", "map.txt")
        let render = try settings(["--tempo-map", map, "--output", directory.file("x.wav")])
        // The file's bpm and device would each refuse this line: a map sets the tempo, a render has no device.
        guard case .plan = render.program, case .file = render.destination else { Issue.record("\(render)"); return }
        #expect(render.volume == 0.5)
        let live = try settings([])
        guard case .live(let destination) = live.destination else { Issue.record("\(live.destination)"); return }
        #expect(destination.device == "null")
    }

    @Test func aDefaultThatGoesWithAnOptionWaitsForIt() throws {
        let config = "subdivision-volume = 0.5\nseed = 7\nosc-host = \"::\"\njack-name = \"click\"\n"
        // Alone each would refuse the line ("--subdivision-volume ... need --subdivide N"): here they wait.
        let plain = try settings(["--bpm", "90"], config: config)
        #expect(plain.rhythm.subdivision.clicksPerBeat == 1)
        let subdivided = try settings(["--bpm", "90", "--subdivide", "2"], config: config)
        #expect(subdivided.rhythm.subdivision.clicksPerBeat == 2 && subdivided.rhythm.subdivisionLevel == 0.5)
        let resolution = try ConfigSelection.resolve(["--config", directory.file("config.toml"), "--bpm", "90"], environment: { _ in nil })
        #expect(Set(resolution.dropped.map(\.key)) == ["subdivision-volume", "seed", "osc-host", "jack-name"])
    }

    @Test func aSwitchSetFalseDropsOnlyItsOwnKey() throws {
        let config = "bpm = 100\njack = false\njack-name = \"click\"\nloop = true\n[preset.plain]\nloop = false\n"
        // `loop = false` is no tempo map: the file's bpm stays; `jack = false` is no JACK: jack-name waits.
        let plain = try settings(["--preset", "plain"], config: config)
        #expect(plain.tempo == Tempo(bpm: 100)!)
        guard case .live(let live) = plain.destination, case .alsa = live.output else { Issue.record("\(plain.destination)"); return }
    }

    @Test func aPresetsFileIsReadFromTheConfigFilesFolder() throws {
        _ = write("a: 2 3/4 90\n", "song.txt")
        let song = try settings(["--preset", "song", "--output", directory.file("x.wav")])
        guard case .plan(.map(let map, _, _)) = song.program else { Issue.record("\(song.program)"); return }
        #expect(map.entries.first?.meter == Meter(beatsPerBar: 3, noteValue: 4))
        let resolution = try ConfigSelection.resolve(["--config", directory.file("config.toml"), "--preset", "song"], environment: { _ in nil })
        #expect(resolution.arguments.contains(directory.file("song.txt")))
    }

    static let badFiles: [(String, String)] = [
        ("vollume = 1\n", "1:1: unknown key 'vollume'; did you mean 'volume'?"),
        ("volume = 1\n[preset.x]\n  loop = \"yes\"\n", "3:3: 'loop' is a switch: true or false"),
        ("bpm = 0\n", "1:1: bpm '0'"),
        ("[preset.x]\nbpm = [90]\n", "2:1: 'bpm' takes one value, a string or a number, not an array"),
        ("preset = 3\n", "1:1: 'preset' is a table of presets"),
        ("list-devices = true\n", "1:1: 'list-devices' is not a default: give it on the command line"),
        ("volume = [1,\n", "1:14: "),
        ("easing = \"bouncy\"\n", "1:1: "),
        ("\"tempo\".\"map\" = \"x\"\n", "1:1: unknown key 'tempo'"),
    ]

    @Test(arguments: badFiles)
    func aBadFileIsOneLineWithItsPlaceAnd78(text: String, message: String) {
        let refused = failure([], config: text)
        #expect(refused?.status == 78, "\(String(describing: refused))")
        #expect(refused?.message.hasPrefix(directory.file("config.toml") + ":" + message) == true, "\(String(describing: refused))")
        #expect(refused?.message.contains("\n") == false)
    }

    @Test func anUnknownPresetIsNamedWithTheNearestAnd64() {
        let unknown = failure(["--preset", "fats"], config: Self.file)
        #expect(unknown?.status == 64)
        #expect(unknown?.message == "--preset 'fats': no such preset in '\(directory.file("config.toml"))'; did you mean 'fast'? its presets are fast, song")
        let contradiction = failure(["--no-config"], config: Self.file)
        #expect(contradiction?.status == 64 && contradiction?.message.hasPrefix("--config and --no-config") == true)
    }

    @Test func aMissingFileNamedIs66AndAMissingDefaultFileIsNone() throws {
        #expect(throws: ConfigError(.unreadable, "cannot read config file '\(directory.file("none.toml"))': No such file or directory")) {
            _ = try ConfigSelection.resolve(["--config", directory.file("none.toml")], environment: { _ in nil })
        }
        let resolution = try ConfigSelection.resolve(["--bpm", "90"], environment: { $0 == "XDG_CONFIG_HOME" ? directory.path : nil })
        #expect(resolution.arguments == ["--bpm", "90"])
    }

    @Test func numbersKeepTheirWrittenDigitsAndPlacesFollowHeadersAndDottedKeys() throws {
        let text = "volume = 0.60\nbpm = 1_20\n[ preset . 'slow' ]\n  bpm = 72.50 # comment\n[preset]\nfast.bpm = 160\n"
        let file = try ConfigFile(parsing: text, path: "c.toml", options: ConfigSelection.configurableOptions)
        #expect(file.defaults.map(\.value) == [.text("0.60"), .text("120")])
        #expect(file.presets["slow"] == [ConfigEntry(key: "bpm", value: .text("72.50"), line: 4, column: 3)])
        #expect(file.presets["fast"] == [ConfigEntry(key: "bpm", value: .text("160"), line: 6, column: 6)])
    }

    @Test func everyOptionButTheOnesThatChooseTheFileCanBeSet() {
        let names = Set(ConfigSelection.configurableOptions.map(\.name))
        #expect(names.isSuperset(of: ["bpm", "meter", "tempo-map", "loop", "volume", "device", "jack", "style", "osc", "inspect", "quiet"]))
        #expect(names.isDisjoint(with: ConfigSelection.notSettable))
        #expect(ConfigSelection.configurableOptions.first { $0.name == "tempo-map" }?.namesFile == true)
        #expect(ConfigSelection.configurableOptions.first { $0.name == "loop" }?.isFlag == true)
    }
}

/// The binary with a config file where XDG puts it: `--print-config`, a render
/// from a preset, and a bad file.
@Suite struct ConfigFileBinaryTests {
    let home = TemporaryDirectory()

    @Test func theBinaryReadsItsXDGFileAndPrintsWhereEachSettingComesFrom() throws {
        let folder = home.file("metronome")
        mkdir(folder, 0o755)
        let (beat, bell) = try writeImpulseSoundFiles(in: home, rate: .standard)
        let config = folder + "/config.toml"
        let file = fopen(config, "w")!
        fputs("volume = 0.5\nbeat-sound = \"../\(beat.split(separator: "/").last!)\"\nbell-sound = \"\(bell)\"\n[preset.ballad]\nbpm = 72\nmeter = \"3/4\"\n", file)
        fclose(file)
        defer { unlink(config); rmdir(folder) }
        let environment = ["XDG_CONFIG_HOME": home.path]
        let printed = try run(metronomeBinary(), ["--print-config", "--preset", "ballad", "--bars", "2"], environment: environment)
        #expect(printed.status == 0, "\(printed.standardError)")
        let lines = printed.standardOutput.split(separator: "\n").map { String($0) }
        #expect(lines.contains { $0.hasPrefix("volume = 0.5 ") && $0.hasSuffix("# \(config):1") })
        #expect(lines.contains { $0.hasPrefix("beat-sound = \"\(folder)/../") })
        #expect(lines.contains { $0.hasPrefix("bpm = 72 ") && $0.hasSuffix("# preset ballad, \(config):5") })
        #expect(lines.contains { $0.hasPrefix("bars = 2 ") && $0.hasSuffix("# command line") })

        // The preset's tempo and meter, the file's sounds (one relative to it) and volume, rendered.
        let output = home.file("ballad.wav")
        let rendered = try run(metronomeBinary(), ["--preset", "ballad", "--bars", "2", "--output", output], environment: environment)
        #expect(rendered.status == 0, "\(rendered.standardError)")
        let clicks = onsets(try readSoundFile(output).samples)
        let beatFrames = Int64(48_000 * 60 / 72)
        #expect(clicks.map(\.frame) == (0..<6).map { Int64($0) * beatFrames })
        #expect(clicks.map(\.value) == [-0.375, 0.125, 0.125, -0.375, 0.125, 0.125])
    }

    @Test func aBadFileStopsTheRunWithOneLineAnd78AndWritesNothing() throws {
        let config = home.file("bad.toml")
        let file = fopen(config, "w")!
        fputs("volume = 0.5\n\n[preset.a]\n    subdivide = 12\n", file)
        fclose(file)
        let output = home.file("x.wav")
        let result = try run(metronomeBinary(), ["--config", config, "--bars", "1", "--output", output])
        #expect(result.status == 78)
        #expect(result.standardError.hasPrefix("metronome: \(config):4:5: "), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(!home.contents().contains("x.wav"))
    }
}
