import MetronomeTiming

/// What the status line says.
package struct PendulumStatus: Sendable, Equatable {
    package var tempo: Tempo
    package var meter: Meter
    /// Bar and beat being heard, from 1; nil before the first click.
    package var bar: Int64?
    package var beatInBar: Int
    package var elapsedSeconds: Int64
    package var underruns: Int
    /// Whether the first beat of a bar rings the bell (`0` turns it off).
    package var bell: Bool
    package var paused: Bool
    package var muted: Bool
    /// Whether `bar` is a bar of the count-in (counted from 1 within it).
    package var countIn: Bool
    /// The output latency the device granted, in tenths of a millisecond; nil without a device.
    package var latencyTenths: Int64?
    /// A setlist's song: its place and name, `3/12 Waltz`.
    package var song: String?
    /// The other peers of the Ableton Link session played in; nil without Link.
    package var linkPeers: Int?
    /// What the practice inspector heard so far; nil without `--inspect`.
    package var practice: PracticeReadout?
    /// Following a MIDI clock: whether it plays (false: the clicks wait for it); nil when not following one.
    package var midiClockPlays: Bool?
    /// The adaptive trainer: what it waits for; nil without one.
    package var trainer: TrainerReadout?

    package init(tempo: Tempo, meter: Meter, bar: Int64?, beatInBar: Int, elapsedSeconds: Int64, underruns: Int,
                bell: Bool = true, paused: Bool = false, muted: Bool = false, countIn: Bool = false, latencyTenths: Int64? = nil,
                song: String? = nil, linkPeers: Int? = nil, practice: PracticeReadout? = nil, midiClockPlays: Bool? = nil,
                trainer: TrainerReadout? = nil) {
        self.midiClockPlays = midiClockPlays
        self.trainer = trainer
        self.tempo = tempo
        self.meter = meter
        self.bar = bar
        self.beatInBar = beatInBar
        self.elapsedSeconds = elapsedSeconds
        self.underruns = underruns
        self.bell = bell
        self.paused = paused
        self.muted = muted
        self.countIn = countIn
        self.latencyTenths = latencyTenths
        self.song = song
        self.linkPeers = linkPeers
        self.practice = practice
    }

    /// `link: 2 peers`, `link: 1 peer`.
    package static func linkText(peers: Int) -> String { "link: \(peers) peer\(peers == 1 ? "" : "s")" }

    /// Whether the beat being heard is the one and rings the bell: the weight and the indicator mark it.
    var ringsTheBell: Bool { bell && bar != nil && beatInBar == 1 }

    static func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `137 bpm  4/4  12:3  [1] 2  3  4   01:23  link: 1 peer  latency 85.3 ms  ? keys  q quit`, as much as fits.
    package func text(width: Int) -> String {
        var beats = ""
        if meter.beatsPerBar <= 12 {
            for beat in 1...meter.beatsPerBar {
                beats += bar != nil && beat == beatInBar ? "[\(beat)]" : " \(beat) "
            }
        }
        let position = bar.map { (countIn ? "count-in " : "") + "\($0):\(beatInBar)" } ?? "-:-"
        let clock = Self.twoDigits(elapsedSeconds / 60) + ":" + Self.twoDigits(elapsedSeconds % 60)
        let place = (song.map { [$0] } ?? []) + ["\(tempo) bpm", bell ? meter.description : "\(meter) no bell", position]
        var state = [clock]
        if paused { state.append("PAUSED") }
        if midiClockPlays == false { state.append("waiting for MIDI clock") }
        if muted { state.append("muted") }
        if underruns > 0 { state.append("underruns \(underruns)") }
        if let linkPeers { state.append(Self.linkText(peers: linkPeers)) }
        if let trainer { state.append(trainer.text) }
        let latency = latencyTenths.map { ["latency \($0 / 10).\($0 % 10) ms"] } ?? []
        let boxes = beats.isEmpty ? [] : [beats]
        let notes = practice.map { [$0.text] } ?? [], summary = practice.map { [$0.summaryText] } ?? []
        // Where the width is short the latency goes first, then the last notes (their mean and spread stay),
        // then the beat boxes, then the help key, then the mean; the quit key stays.
        let lines = [place + boxes + state + notes + latency + ["? keys", "q quit"],
                     place + boxes + state + notes + ["? keys", "q quit"],
                     place + boxes + state + summary + ["? keys", "q quit"],
                     place + state + summary + ["? keys", "q quit"],
                     place + state + summary + ["q quit"],
                     place + state + ["q quit"]].lazy.map { $0.joined(separator: "  ") }
        // Joined one at a time until one fits: most often the first.
        let line = lines.first { $0.utf8.count <= width } ?? lines[lines.index(before: lines.endIndex)]
        return String(line.utf8.prefix(width)) ?? ""
    }
}
