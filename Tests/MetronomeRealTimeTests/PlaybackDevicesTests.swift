import Foundation
import Testing
@testable import MetronomeAudio
import MetronomeTestSupport

@Suite struct PlaybackDevicesTests {
    /// ALSA's configuration names these whether or not a server runs; pipewire-alsa and libasound2-plugins add theirs.
    @Test func listDevicesPrintsALSAsPlaybackDevicesWithDescriptions() throws {
        let result = try run(metronomeBinary(), ["--list-devices"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
        let names = lines.map { $0[0] }
        var expected = ["default", "null"]
        if PipeWireSession.isInstalled { expected += ["pipewire", "pulse"] }
        for name in expected {
            let line = try #require(lines.first { $0[0] == name }, "\(name) missing from \(names)")
            #expect(line.count == 2 && !line[1].isEmpty, "\(line)")
        }
        #expect(Set(names).count == names.count)
        #expect(PlaybackDevice.all().map(\.name) == names)
    }

    /// A named card that is not there is exit 69 and one line naming it; `null` plays.
    @Test(arguments: ["hw:0", "plughw:1,0"])
    func aMissingCardIsExit69NamingIt(device: String) throws {
        let result = try run(metronomeBinary(), ["--device", device, "--duration", "1", "--no-pendulum"])
        #expect(result.status == 69)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("metronome: cannot open audio device '\(device)': "), "\(lines)")
    }

    /// `--verbose` starts with what the device granted: a card's two 256-frame periods, or what --latency asked.
    @Test(arguments: [([String](), "buffer 512 frames (10.7 ms), periods of 256"), (["--latency", "20"], "buffer 960 frames (20.0 ms), periods of 256")])
    func verboseShowsTheLatencyGranted(latency: [String], granted: String) throws {
        let result = try run(metronomeBinary(), ["--device", "null", "--duration", "0.1", "--verbose"] + latency)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("device 'null': \(granted) at 48000 Hz\n"), "\(result.standardOutput)")
    }

    @Test func theNullDevicePlays() throws {
        let result = try run(metronomeBinary(), ["--device", "null", "--duration", "1", "--no-pendulum", "--quiet"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }
}
