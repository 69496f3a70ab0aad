/// The ports of `--jack-ports split`, one a `ClickVoice`: `bell`, `beat`,
/// `sub` and `poly`, registered in that order (the order
/// `JackConnectionPlan` pairs them with destinations in), and each cycle
/// their buffers. Plain values the process callback copies without allocating.
struct JackVoices {
    let bell: JackPort
    let beat: JackPort
    let subdivision: JackPort
    let polyrhythm: JackPort

    /// Registers the four outputs on `client`.
    init(registeringOn client: JackClient) throws(JackError) {
        bell = try client.registerOutput(ClickVoice.bell.portName)
        beat = try client.registerOutput(ClickVoice.beat.portName)
        subdivision = try client.registerOutput(ClickVoice.subdivision.portName)
        polyrhythm = try client.registerOutput(ClickVoice.polyrhythm.portName)
    }

    /// The ports in `ClickVoice` order, for connecting.
    var ports: [JackPort] { [bell, beat, subdivision, polyrhythm] }

    /// The four ports' buffers this cycle; nil when JACK gave one none. Only inside the process callback.
    func buffers(frames: UInt32) -> VoiceBuffers? {
        guard let bell = bell.audioBuffer(frames: frames).baseAddress, let beat = beat.audioBuffer(frames: frames).baseAddress,
              let subdivision = subdivision.audioBuffer(frames: frames).baseAddress,
              let polyrhythm = polyrhythm.audioBuffer(frames: frames).baseAddress else { return nil }
        return VoiceBuffers(bell: bell, beat: beat, subdivision: subdivision, polyrhythm: polyrhythm)
    }

    /// The largest playback latency of the four: a port connected nowhere has none,
    /// so this is the latency of the ports that are heard.
    func playbackLatency(on client: JackClient) -> UInt32 {
        max(client.playbackLatency(of: bell).upperBound, client.playbackLatency(of: beat).upperBound,
            client.playbackLatency(of: subdivision).upperBound, client.playbackLatency(of: polyrhythm).upperBound)
    }
}
