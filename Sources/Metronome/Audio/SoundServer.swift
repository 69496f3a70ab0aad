/// The sound server behind an ALSA device, told by the plugin that stands for
/// it (`snd_pcm_dump`'s first line names the plugin): none for a card.
public enum SoundServer: String, Sendable, Equatable {
    case jack = "JACK"
    case pipewire = "PipeWire"
    case pulse = "PulseAudio"
    /// An I/O plugin of another kind.
    case other

    /// The server named by a plugin's description ("ALSA <-> PipeWire PCM I/O Plugin").
    init(pluginDescription: String) {
        let first = pluginDescription.prefix { $0 != "\n" }
        self = [.jack, .pipewire, .pulse].first { first.contains("<-> \($0.rawValue) ") } ?? .other
    }

    /// Whether the writer feeding this server's plugin should ask for real-time
    /// priority. PipeWire runs its threads at real-time priority (88 through
    /// RTKit or module-rt, the plugin's own thread in our process too, above
    /// ours at 20), so a real-time writer cannot starve it, and without one a
    /// loaded machine delays the writer past the buffer (underruns in soaks
    /// under load). Not for the pulse plugin: its libpulse thread in our process
    /// runs at normal priority, and a real-time writer ahead of it made the
    /// heard clock's samples uneven (the picture off its line by up to 9 ms).
    /// Not for JACK: its server may run without real time (the tests' dummy
    /// server does), and a real-time client starved it into xruns.
    var wantsRealTimeWriter: Bool { self == .pipewire }
}
