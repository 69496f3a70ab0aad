import CAlsa
import Glibc

/// The playback devices ALSA knows: its configuration's named devices
/// (`default`, `pipewire`, `pulse`, `null`, ...) and each card's `hw:`,
/// `plughw:` and friends, as `snd_device_name_hint` lists them.
package struct PlaybackDevice: Sendable, Equatable {
    /// What `--device` takes.
    package let name: String
    /// ALSA's description, its lines joined by ", "; empty when it has none.
    package let description: String

    /// Every PCM that can play (its `IOID` hint absent or `Output`), in ALSA's order.
    /// `snd_device_name_hint`, `snd_device_name_get_hint`, `snd_device_name_free_hint`.
    package static func all() -> [PlaybackDevice] {
        metronome_alsa_silence_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [PlaybackDevice] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            let direction = Self.field(hint, "IOID")
            guard direction == nil || direction == "Output", let name = Self.field(hint, "NAME") else { continue }
            let description = (Self.field(hint, "DESC") ?? "").split(separator: "\n").joined(separator: ", ")
            devices.append(PlaybackDevice(name: name, description: description))
        }
        return devices
    }

    /// One line for `--list-devices`: the name, and the description after a tab.
    package var line: String { description.isEmpty ? name : "\(name)\t\(description)" }

    private static func field(_ hint: UnsafeMutableRawPointer, _ key: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, key) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
