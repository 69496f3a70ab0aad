import MetronomeTiming
import MetronomeAudio

/// A live run's output once opened: an ALSA device (or the silent sink that
/// stands in for a missing default), or a JACK client and where its port goes.
enum OpenedOutput {
    case device(any AudioSink)
    /// `client`: where its ports go, and its MIDI notes.
    case jack(JackOutput, client: Settings.JackClientSettings)

    var rate: SampleRate {
        switch self {
        case .device(let sink): sink.rate
        case .jack(let client, _): client.rate
        }
    }

    /// Frames rendered at a time: the device's period, or JACK's cycle.
    var periodFrames: Int {
        switch self {
        case .device(let sink): sink.periodFrames
        case .jack(let client, _): client.periodFrames
        }
    }

    /// Its name, in messages and as the round trips `--calibrate` saves are keyed:
    /// the ALSA device's, or `jack:` and the client's.
    var name: String {
        switch self {
        case .device(let sink): sink.name
        case .jack(let client, _): "jack:\(client.name)"
        }
    }

    /// What the device granted, for `--verbose`; nil without a device.
    var granted: String? {
        guard case .device(let sink) = self, sink is PCMDevice else { return nil }
        return Session.grantedLatency(sink)
    }
}
