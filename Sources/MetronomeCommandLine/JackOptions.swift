import ArgumentParser
import MetronomeSession
import MetronomeTiming

/// Playing as a JACK client of our own, beside the ALSA path.
struct JackOptions: ParsableArguments {
    @Flag(name: .long, help: "Play as a JACK client with its own ports (on jackd, or PipeWire's JACK under pw-jack) instead of through ALSA. A JACK server must be running: none is started.")
    var jack = false

    @Option(name: .long, help: ArgumentHelp("With --jack, the client's name (JACK adds a number if it is taken). Default: metronome.", valueName: "name"))
    var jackName: String?

    @Option(name: .long, help: ArgumentHelp("With --jack: one port 'out' (mono), or one a voice for separate monitor mixes (split: bell, the bar starts and accents; beat, the other beats; sub, the subdivisions; poly, the second voice). Default: mono.", valueName: "mono|split"))
    var jackPorts: JackPorts?

    @Option(name: .long, help: ArgumentHelp("With --jack, the ports to connect to instead of the system's playback ports, comma-separated (e.g. system:playback_1,recorder:in).", valueName: "ports"))
    var connect: String?

    @Flag(name: .long, help: "With --jack, connect the ports nowhere: leave it to a patchbay.")
    var noConnect = false

    @Flag(name: .long, help: "With --jack, the clicks as MIDI notes too, on a port 'midi_out': channel 10, GM 34 Metronome Bell on bells and accents, 33 Metronome Click on the rest, velocity from the level, 20 ms long, each at its click's frame (as --output x.mid maps them).")
    var midiNotes = false

    @Flag(name: .long, help: "With --jack, a MIDI clock on the port 'midi_out' too: 24 clocks a quarter note, each on its exact frame of the clicks' grid (tempo maps, ramps, meters, keys, setlists); Song Position Pointer and Start at bar 1 (Continue where the song is further on), Stop on a pause or at the end, Stop, Song Position and Continue at a jump.")
    var midiClock = false

    @Flag(name: .long, help: "With --jack, a MIDI input 'midi_in' whose messages act as the keys do (a pad or a foot switch: tap, start and stop, songs, tempo), by --midi-map or by default notes 36 to 39 (tap, start-stop, next song, previous song) and CC 64 (start-stop); a sequencer's Start, Continue and Stop start and stop the metronome. Connect a controller to it with a patchbay or jack_connect.")
    var midiIn = false

    @Option(name: .long, help: ArgumentHelp("With --jack, what MIDI messages do on 'midi_in' (implies --midi-in): lines such as 'note 36 tap', 'cc 64 channel 1 start-stop', 'program 2 next-song', 'cc 7 tempo 40-240' (see the README).", valueName: "file"))
    var midiMap: String?

    @Flag(name: .long, help: "With --jack, follow a MIDI clock on 'midi_in' (implies --midi-in): a click on each clock that falls on a beat (96/d clocks a beat of 1/d), on that clock's frame; Start plays from bar 1, Continue from the last Song Position Pointer, Stop stops; the tempo shown is the mean of the last 24 intervals; a clock that stops coming holds the clicks until it comes again.")
    var followMidiClock = false

    @Flag(name: .long, help: "With --jack, print each message on 'midi_in' as the --midi-map line that would bind it (implies --midi-in).")
    var midiLearn = false

    @Option(name: .long, help: ArgumentHelp("With --midi-notes or --midi-clock, the MIDI ports to connect 'midi_out' to, comma-separated (e.g. a2j:Drum_module); none by default.", valueName: "ports"))
    var midiConnect: String?

    @Option(name: .long, help: ArgumentHelp("With --jack: follow JACK's transport (tempo, meter and beats from its timebase master, silent while stopped; with no master, its start and stop start and stop the metronome), or be its timebase master (master: the BBT from this run's grid or tempo map; with --force, taken from another master). Space starts and stops the transport.", valueName: "follow|master"))
    var transport: TransportChoice?

    enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
        case follow, master
    }

    enum JackPorts: String, ExpressibleByArgument, CaseIterable {
        case mono, split
    }

    /// The client these options ask for; nil without `--jack`, which its other options need.
    func settings(device: DeviceOptions, output: OutputOptions, practice: PracticeOptions, setlist: SetlistOptions,
                  link: LinkOptions) throws -> Settings.JackClientSettings? {
        guard jack else {
            let strays = [("--jack-name", jackName != nil), ("--jack-ports", jackPorts != nil), ("--connect", connect != nil), ("--no-connect", noConnect),
                          ("--transport", transport != nil), ("--midi-notes", midiNotes), ("--midi-clock", midiClock),
                          ("--midi-connect", midiConnect != nil), ("--midi-in", midiIn), ("--midi-map", midiMap != nil), ("--midi-learn", midiLearn),
                          ("--follow-midi-clock", followMidiClock)]
            if let (option, _) = strays.first(where: { $0.1 }) { throw SessionError.badRequest("\(option) applies to --jack only") }
            return nil
        }
        if device.device != nil || device.latency != nil {
            throw SessionError.badRequest("--device and --latency are for ALSA; --jack plays on the JACK server's own ports and period")
        }
        if output.output != nil { throw SessionError.badRequest("--jack plays live; --output renders a file") }
        if let name = jackName, name.isEmpty || name.contains(":") {
            throw SessionError.badRequest("--jack-name '\(name)' cannot be used: give a name without ':', e.g. metronome")
        }
        var ports: [String]?
        if let connect {
            if noConnect { throw SessionError.badRequest("--connect and --no-connect go against each other: give one") }
            ports = try Self.portNames(connect, option: "--connect", example: "system:playback_1")
        } else if noConnect {
            ports = []
        }
        var midiPorts: [String] = []
        if let midiConnect {
            if !midiNotes, !midiClock { throw SessionError.badRequest("--midi-connect applies to --midi-notes and --midi-clock only") }
            midiPorts = try Self.portNames(midiConnect, option: "--midi-connect", example: "a2j:Drum_module")
        }
        return Settings.JackClientSettings(name: jackName ?? "metronome", split: jackPorts == .split, connect: ports,
                                           transport: try transportSetting(output: output, practice: practice, setlist: setlist, link: link),
                                           midiNotes: midiNotes, midiClock: midiClock, midiConnect: midiPorts,
                                           midiIn: midiIn || midiMap != nil || midiLearn || followMidiClock, midiMap: try readMIDIMap() ?? (midiIn || midiLearn ? .standard : nil),
                                           midiLearn: midiLearn, followMIDIClock: followMidiClock)
    }

    /// The `--midi-map` file, read and checked: one that cannot be read is
    /// exit 66, a malformed one `path:line:column: what is wrong` and exit 65.
    private func readMIDIMap() throws -> MIDIMap? {
        guard let path = midiMap else { return nil }
        return try MIDIMap(parsing: try readInputFile(path, cannotRead: "cannot read MIDI map '\(path)'"), name: path)
    }

    /// A comma-separated list of JACK port names (`client:port`).
    private static func portNames(_ list: String, option: String, example: String) throws(SessionError) -> [String] {
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        if let empty = names.firstIndex(where: { $0.isEmpty || !$0.contains(":") }) {
            throw SessionError.badRequest("\(option) '\(list)': port \(empty + 1) is not a JACK port name (client:port), e.g. \(example)")
        }
        return names
    }

    /// `--transport`, checked against what it does not mix with: following, the
    /// master's grid leads; leading, one grid is published, not a setlist's or Link's.
    private func transportSetting(output: OutputOptions, practice: PracticeOptions, setlist: SetlistOptions,
                                  link: LinkOptions) throws(SessionError) -> Settings.JackClientSettings.Transport {
        let shared: [(String, Bool)] = [("--setlist", setlist.setlist != nil), ("--link", link.link || link.linkStartStop)]
        let followRefuses: [(String, Bool)] = shared + [
            ("--tempo-map", practice.tempoMap != nil), ("--step", practice.step != nil), ("--until", practice.until != nil),
            ("--count-in", practice.countIn != nil), ("--bars", output.bars != nil),
        ]
        if followMidiClock {
            if let (option, _) = ([("--transport", transport != nil)] + followRefuses).first(where: { $0.1 }) {
                throw SessionError.badRequest("\(option) does not mix with --follow-midi-clock: the MIDI clock leads")
            }
        }
        guard let transport else { return .ignore }
        switch transport {
        case .follow:
            if let (option, _) = followRefuses.first(where: { $0.1 }) {
                throw SessionError.badRequest("\(option) does not mix with --transport follow: the transport's timebase master leads")
            }
            return .follow
        case .master:
            if let (option, _) = shared.first(where: { $0.1 }) {
                throw SessionError.badRequest("\(option) does not mix with --transport master: the transport gets one grid, this run's")
            }
            return .lead(force: output.force)
        }
    }
}
