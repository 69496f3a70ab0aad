import ArgumentParser
import MetronomeTiming
import MetronomeAudio

/// Where live playback goes: the ALSA device and its latency.
struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("ALSA device to play on: default, pipewire, pulse, hw:0, plughw:1,0, null (--list-devices shows them). Default: default.", valueName: "name"))
    var device: String?

    @Flag(name: .long, help: "Print the playback devices ALSA knows, one a line with its description, and exit.")
    var listDevices = false

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Output latency in ms, the ALSA buffer (e.g. --latency 20). Default: what the device holds: 1024-frame periods, four of them, on a sound server (pipewire, pulse, jack); two 256-frame periods on a card.", valueName: "ms"))
    var latency: OptionValue<Latency>?
}
