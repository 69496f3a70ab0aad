/// What the status line shows, as `/metronome/query` answers it and registered
/// clients are told when it changes: one message, `/metronome/status`, its
/// arguments in a fixed order (see `message`).
package struct MetronomeStatus: Sendable, Equatable {
    /// The tempo heard now, in bpm.
    package var tempo: Float
    package var beatsPerBar: Int
    package var noteValue: Int
    /// The bar heard now (from 1; the count-in's 0 and below) and its beat (from 1); 0 0 before the first click.
    package var bar: Int
    package var beat: Int
    package var playing: Bool
    package var muted: Bool
    /// 0 to 1.
    package var volume: Float
    package var underruns: Int
    /// A setlist's song playing (its place and name as the status line shows it), else empty.
    package var song: String
    /// Link's peers; -1 without Link.
    package var linkPeers: Int

    package init(tempo: Float, beatsPerBar: Int, noteValue: Int, bar: Int, beat: Int, playing: Bool, muted: Bool, volume: Float,
                 underruns: Int, song: String = "", linkPeers: Int = -1) {
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.noteValue = noteValue
        self.bar = bar
        self.beat = beat
        self.playing = playing
        self.muted = muted
        self.volume = volume
        self.underruns = underruns
        self.song = song
        self.linkPeers = linkPeers
    }

    /// `/metronome/status ,fiiiiiifisi`: tempo, beats per bar, note value, bar, beat,
    /// playing, muted, volume, underruns, song, Link's peers.
    package var message: OSCMessage {
        OSCMessage("/metronome/status", [.float(tempo), .int32(Int32(beatsPerBar)), .int32(Int32(noteValue)), .int32(Int32(clamping: bar)),
                                         .int32(Int32(beat)), .int32(playing ? 1 : 0), .int32(muted ? 1 : 0), .float(volume),
                                         .int32(Int32(clamping: underruns)), .string(song), .int32(Int32(clamping: linkPeers))])
    }

    /// Whether a registered client is told of the change from `old`: anything but the bar and beat,
    /// which move every beat (the beat feed carries them).
    package func differs(from old: MetronomeStatus) -> Bool {
        var moved = old
        moved.bar = bar
        moved.beat = beat
        return moved != self
    }
}
