import ArgumentParser
import MetronomeTiming
import MetronomeAudio
import MetronomeSession

/// Where live playback goes: the ALSA device and its latency.
struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("ALSA device to play on: default, pipewire, pulse, hw:0, plughw:1,0, null (--list-devices shows them). Default: default.", valueName: "name"))
    var device: String?

    @Flag(name: .long, help: "Print the playback devices ALSA knows, one a line with its description, and exit.")
    var listDevices = false

    @Flag(name: .long, help: "Play nothing and open no sound device, nor ALSA at all: the picture, --flash and the keys keep the beat by the monotonic clock.")
    var silent = false

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Output latency in ms, the ALSA buffer (e.g. --latency 20). Default: what the device holds: 1024-frame periods, four of them, on a sound server (pipewire, pulse, jack); two 256-frame periods on a card.", valueName: "ms"))
    var latency: OptionValue<Latency>?
}

extension DeviceOptions {
    /// `--silent` refuses what would play, record or open a device.
    func checkSilent(jack: Bool, output: String?, listening: Bool) throws(SessionError) {
        guard silent else { return }
        let conflicts: [(Bool, String)] = [(device != nil, "--device"), (latency != nil, "--latency"), (listDevices, "--list-devices"),
                                           (jack, "--jack"), (output != nil, "--output"), (listening, "--inspect or --calibrate")]
        if let conflict = conflicts.first(where: \.0) {
            throw .badRequest("--silent opens no sound device: it does not go with \(conflict.1)")
        }
    }
}
