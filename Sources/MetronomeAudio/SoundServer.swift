/// The sound server behind an ALSA device, told by the I/O plugin that
/// stands for it (`ALSA <-> PipeWire PCM I/O Plugin`): none for a card.
package enum SoundServer: String, Sendable, Equatable {
    case jack = "JACK"
    case pipewire = "PipeWire"
    case pulse = "PulseAudio"
    /// An I/O plugin of another kind.
    case other

    /// Whether the writer feeding this server's plugin should ask for real-time priority.
    ///
    /// PipeWire: its threads (the plugin's in our process too) run at real-time
    /// priority 88, above ours at 20, so a real-time writer cannot starve them,
    /// and without one a loaded machine delays the writer past the buffer. Not
    /// pulse: its libpulse thread in our process runs at normal priority, and a
    /// real-time writer ahead of it makes the heard clock's samples uneven (the
    /// picture up to 9 ms off its line).
    /// Not JACK: its server may run without real time (the tests' dummy does),
    /// and a real-time client starves it into xruns.
    var wantsRealTimeWriter: Bool { self == .pipewire }

    /// How `--verbose` names it.
    package var spokenName: String { self == .other ? "an I/O plugin" : rawValue }
}

/// The sound server's plugin in an ALSA device's chain of plugins, read from
/// `snd_pcm_dump`: the one place that decides which server, if any, stands
/// behind a device.
///
/// A device is often a chain in front of the server's plugin (ALSA's recipe
/// for JACK is `type plug` over `type jack`; `softvol`, `rate` and `route` wrap
/// `pipewire` or `pulse`). The dump names every plugin, outermost first, each
/// slave after its master (after `Plug PCM: ` on the same line, else on its own
/// line after `Slave: `), each with its setup below it once there is one.
package struct ServerPlugin: Sendable, Equatable {
    package let server: SoundServer
    /// Frames the server's plugin moves a period, and its rate, from its
    /// setup; nil before the device is set up. Behind a `rate` plugin, or a
    /// `plug` that converts the rate, they are not the device's.
    package let periodFrames: Int?
    package let rate: Int64?

    init(server: SoundServer, periodFrames: Int?, rate: Int64?) {
        self.server = server
        self.periodFrames = periodFrames
        self.rate = rate
    }

    /// The first server plugin `dump` names, or nil for a chain of none (a card, `null`, `file`).
    /// An outermost I/O plugin (`snd_pcm_type` is `SND_PCM_TYPE_IOPLUG`) is one
    /// even when its name is not a server's; inside a chain only a name tells.
    package init?(dump: String, outermostIsIOPlugin: Bool) {
        let lines = dump.split(separator: "\n", omittingEmptySubsequences: false)
        let named = lines.indices.lazy.compactMap { index in Self.server(named: lines[index]).map { (index, $0) } }.first
        guard let (line, server) = named ?? (outermostIsIOPlugin ? (0, .other) : nil) else { return nil }
        self.server = server
        // The server's plugin ends the chain: the setup after its name is its own.
        let setup = lines[line...].compactMap(Self.field)
        periodFrames = setup.first { $0.key == "period_size" }.flatMap { Int($0.value) }
        rate = setup.first { $0.key == "rate" }.flatMap { Int64($0.value) }
    }

    /// The server's period in frames at `deviceRate`, rounded: what it moves at
    /// a time, counted as the device counts (941 frames at 44.1 kHz for 1024 at 48);
    /// nil before the device is set up.
    package func periodFrames(at deviceRate: Int64) -> Int? {
        guard let periodFrames, let rate, rate > 0 else { return nil }
        return Int((Int64(periodFrames) * deviceRate + rate / 2) / rate)
    }

    /// The server an I/O plugin's name on `line` stands for, after any `Slave: ` and `Plug PCM: `.
    private static func server(named line: Substring) -> SoundServer? {
        guard let arrow = line.firstRange(of: "ALSA <-> "), line[arrow.upperBound...].hasSuffix(" PCM I/O Plugin") else { return nil }
        let name = line[arrow.upperBound...].dropLast(" PCM I/O Plugin".count)
        return [.jack, .pipewire, .pulse].first { $0.rawValue == name } ?? .other
    }

    /// A setup line's key and value's first word: `  exact rate   : 48000 (48000/1)` is `exact rate`, `48000`.
    private static func field(_ line: Substring) -> (key: String, value: Substring)? {
        guard line.hasPrefix("  "), let colon = line.firstIndex(of: ":"),
              let value = line[line.index(after: colon)...].split(separator: " ").first else { return nil }
        return (line[..<colon].split(separator: " ").joined(separator: " "), value)
    }
}
