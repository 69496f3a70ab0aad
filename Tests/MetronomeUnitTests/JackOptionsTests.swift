import Testing
@testable import MetronomeCommandLine
@testable import MetronomeSession
import MetronomeTestSupport

/// `--jack` and its options, parsed in-process: the client asked for, or one line and 64.
struct JackOptionsTests {
    private func output(_ arguments: String...) throws -> Settings.Output? {
        guard case .live(let live) = try parsedSettings(arguments).destination else { return nil }
        return live.output
    }

    @Test func withoutJackTheClicksGoToALSA() throws {
        #expect(try output("--device", "null") == .alsa(device: "null", latency: nil))
    }

    @Test func jackAloneIsAMonoClientNamedMetronomeOnTheSystemsPorts() throws {
        #expect(try output("--jack") == .jack(Settings.JackClientSettings(name: "metronome", split: false, connect: nil)))
    }

    @Test func theNamePortsAndConnectionsAreTheOnesGiven() throws {
        #expect(try output("--jack", "--jack-name", "click", "--jack-ports", "split", "--connect", "mix:in_1,rec:in")
            == .jack(Settings.JackClientSettings(name: "click", split: true, connect: ["mix:in_1", "rec:in"])))
        #expect(try output("--jack", "--no-connect") == .jack(Settings.JackClientSettings(connect: [])))
    }

    @Test func midiNotesAddAPortConnectedWhereAskedOrNowhere() throws {
        #expect(try output("--jack", "--midi-notes") == .jack(Settings.JackClientSettings(midiNotes: true)))
        #expect(try output("--jack", "--midi-notes", "--midi-connect", "a2j:Drums,sampler:in")
            == .jack(Settings.JackClientSettings(midiNotes: true, midiConnect: ["a2j:Drums", "sampler:in"])))
    }

    @Test func midiClockSharesThePortAndItsConnections() throws {
        let clock = Settings.JackClientSettings(midiClock: true, midiConnect: ["tr8:in"])
        #expect(try output("--jack", "--midi-clock", "--midi-connect", "tr8:in") == .jack(clock))
        #expect(clock.midiOut && !Settings.JackClientSettings().midiOut)
    }

    @Test(arguments: [
        (["--jack-name", "x"], "--jack-name applies to --jack only"),
        (["--connect", "a:b"], "--connect applies to --jack only"),
        (["--no-connect"], "--no-connect applies to --jack only"),
        (["--jack-ports", "split"], "--jack-ports applies to --jack only"),
        (["--jack", "--device", "hw:0"], "--device and --latency are for ALSA"),
        (["--jack", "--latency", "20"], "--device and --latency are for ALSA"),
        (["--jack", "--connect", "a:b", "--no-connect"], "--connect and --no-connect go against each other"),
        (["--jack", "--connect", "a:b,,c:d"], "--connect 'a:b,,c:d': port 2 is not a JACK port name"),
        (["--jack", "--connect", "playback"], "--connect 'playback': port 1 is not a JACK port name"),
        (["--jack", "--jack-name", ""], "--jack-name '' cannot be used"),
        (["--jack", "--jack-name", "a:b"], "--jack-name 'a:b' cannot be used"),
        (["--jack", "--output", "x.wav", "--bars", "1"], "--jack plays live; --output renders a file"),
        (["--midi-notes"], "--midi-notes applies to --jack only"),
        (["--midi-connect", "a:b"], "--midi-connect applies to --jack only"),
        (["--jack", "--midi-connect", "a:b"], "--midi-connect applies to --midi-notes and --midi-clock only"),
        (["--midi-clock"], "--midi-clock applies to --jack only"),
        (["--follow-midi-clock"], "--follow-midi-clock applies to --jack only"),
        (["--jack", "--follow-midi-clock", "--transport", "follow"], "--transport does not mix with --follow-midi-clock: the MIDI clock leads"),
        (["--jack", "--follow-midi-clock", "--count-in", "1"], "--count-in does not mix with --follow-midi-clock: the MIDI clock leads"),
        (["--jack", "--midi-notes", "--midi-connect", "drums"], "--midi-connect 'drums': port 1 is not a JACK port name"),
    ])
    func aJackOptionThatCannotBeHadIsOneLineAnd64(arguments: [String], says: String) {
        expectRefused(arguments, saying: says)
    }

    @Test func anUnknownPortLayoutIsRefusedByTheParser() {
        #expect {
            _ = try parsedSettings("--jack", "--jack-ports", "stereo")
        } throws: { error in
            (error as? CommandFailure)?.status == 64
        }
    }
}

/// `--transport`, parsed in-process.
struct JackTransportOptionsTests {
    private func transport(_ arguments: String...) throws -> Settings.JackClientSettings.Transport? {
        guard case .live(let live) = try parsedSettings(arguments).destination, case .jack(let jack) = live.output else { return nil }
        return jack.transport
    }

    @Test func followAndMasterAndForce() throws {
        #expect(try transport("--jack") == .ignore)
        #expect(try transport("--jack", "--transport", "follow") == .follow)
        #expect(try transport("--jack", "--transport", "master") == .lead(force: false))
        #expect(try transport("--jack", "--transport", "master", "--force") == .lead(force: true))
    }

    @Test(arguments: [
        (["--transport", "follow"], "--transport applies to --jack only"),
        (["--jack", "--transport", "follow", "--tempo-map", "x.txt"], "--tempo-map does not mix with --transport follow"),
        (["--jack", "--transport", "follow", "--count-in", "1"], "--count-in does not mix with --transport follow"),
        (["--jack", "--transport", "follow", "--link"], "--link does not mix with --transport follow"),
        (["--jack", "--transport", "master", "--link"], "--link does not mix with --transport master"),
        (["--jack", "--transport", "master", "--setlist", "x.txt"], "--setlist does not mix with --transport master"),
        (["--jack", "--transport", "follow", "--force"], "--force applies to"),
    ])
    func aTransportThatCannotBeHadIsOneLineAnd64(arguments: [String], says: String) {
        expectRefused(arguments, saying: says)
    }
}
