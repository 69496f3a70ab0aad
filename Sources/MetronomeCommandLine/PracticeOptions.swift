import ArgumentParser
import MetronomeSupport
import MetronomeTiming
import MetronomeTerminal
import MetronomeSession

/// What is played in each bar besides the beat: accents, subdivisions, a
/// second voice, a count-in, muted bars and beats; and how the tempo moves:
/// the speed trainer or a tempo map.
struct PracticeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("One character a beat: X bell, x beat, . silent; as long as the bar (e.g. --pattern X.xx).", valueName: "pattern"))
    var pattern: OptionValue<BeatPattern.Written>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Clicks a beat, 2 to 9: the ones between beats play a softer tick (e.g. --subdivide 3).", valueName: "n"))
    var subdivide: OptionValue<Subdivision.Clicks>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Swing: the second of two clicks a beat falls at this share of the beat, 0.5 to 0.75 (e.g. --swing 0.667).", valueName: "ratio"))
    var swing: OptionValue<Subdivision.Swing>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Level of the clicks between beats, 0 to 1. Default 1.", valueName: "0..1"))
    var subdivisionVolume: OptionValue<SubdivisionVolume>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A second voice of A clicks against every B beats, from each bar start (e.g. --polyrhythm 3:2).", valueName: "a:b"))
    var polyrhythm: OptionValue<Polyrhythm.Written>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Bars of count-in before bar 1, played 6 dB softer (e.g. --count-in 1).", valueName: "n"))
    var countIn: OptionValue<CountIn>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Gap trainer: play P bars, then mute M bars, over and over (e.g. --gap 3:1).", valueName: "p:m"))
    var gap: OptionValue<BeatMuting.Gap>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Mute this percentage of beats at random (e.g. --random-mute 20).", valueName: "pct"))
    var randomMute: OptionValue<BeatMuting.RandomMute>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seed for --random-mute: the same seed mutes the same beats.", valueName: "n"))
    var seed: OptionValue<BeatMuting.Seed>?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Speed trainer: every M bars move the tempo S bpm (negative slows down); needs --until (e.g. --step 5/4).", valueName: "s/m"))
    var step: OptionValue<TrainerStep>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Speed trainer: the tempo to stop at, then keep (e.g. --until 140).", valueName: "bpm"))
    var until: OptionValue<Tempo>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Adaptive trainer, with --inspect: move the tempo a --step only after its M bars had every note within this many ms of its click and none missed (e.g. --when-tight 15).", valueName: "ms"))
    var whenTight: OptionValue<TightWindow>?

    @Flag(name: .long, help: "Adaptive trainer: a bar with a note outside --when-tight, or a click missed, steps the tempo back a step (never past --bpm).")
    var stepBack = false

    @Option(name: .long, help: ArgumentHelp("Play a klick tempo map: lines of '[label:] bars [n/d] tempo[-tempo2|,t2,...] [pattern] [volume]', tempo in quarter notes a minute; or a MIDI file's tempo map (a DAW's export: its tempo and time signatures, its markers as labels).", valueName: "file"), completion: .file())
    var tempoMap: String?

    @Option(name: .long, help: ArgumentHelp("Start the tempo map at the entry with this label, or a MIDI file's marker (e.g. --start-at chorus).", valueName: "label"))
    var startAt: String?

    @Flag(name: .long, help: "Repeat the tempo map (from --start-at, if given) until stopped.")
    var loop = false

    /// The checks that need no file: which options go together.
    func check(bpm: Tempo?, meter: Meter?) throws {
        if let tempoMap {
            guard !tempoMap.isEmpty else { throw SessionError.badRequest("--tempo-map needs a file name") }
            guard bpm == nil, meter == nil, pattern == nil, step == nil, until == nil else {
                throw SessionError.badRequest("--tempo-map sets the tempo, meter and pattern of every bar: drop --bpm, --meter, --pattern, --step and --until")
            }
        } else if startAt != nil || loop {
            throw SessionError.badRequest("--start-at and --loop are for a --tempo-map")
        }
        if whenTight != nil, step == nil || until == nil {
            throw SessionError.badRequest("--when-tight makes the speed trainer adaptive: give --step S/M and --until T too, e.g. --step 5/4 --until 140 --when-tight 15")
        }
        if seed != nil, randomMute == nil { throw SessionError.badRequest("--seed chooses the beats --random-mute mutes: give --random-mute PCT too") }
    }

    /// The rhythm these options make in bars of `meter`.
    func rhythm(meter: Meter, subdivisionSound: String?, polyrhythmSound: String?) throws -> Rhythm {
        var rhythm = Rhythm()
        if let pattern { rhythm.pattern = try pattern.value().fitted(beatsPerBar: meter.beatsPerBar) }
        rhythm.subdivision = try Subdivision(clicks: subdivide?.value(), swing: swing?.value())
        if let subdivisionVolume { rhythm.subdivisionLevel = try subdivisionVolume.value().level.value }
        if rhythm.subdivision.clicksPerBeat == 1, subdivisionVolume != nil || subdivisionSound != nil {
            throw SessionError.badRequest("--subdivision-volume and --subdivision-sound need --subdivide N")
        }
        if let polyrhythm { rhythm.polyrhythm = try polyrhythm.value().fitted(beatsPerBar: meter.beatsPerBar) }
        if rhythm.polyrhythm == nil, polyrhythmSound != nil { throw SessionError.badRequest("--polyrhythm-sound needs --polyrhythm A:B") }
        if let countIn { rhythm.countInBars = try countIn.value().bars }
        rhythm.muting = try BeatMuting(gap: gap?.value(), randomMute: randomMute?.value(), seed: seed?.value())
        return rhythm
    }

    /// The map, read and checked once, or nil: a file that cannot be read is
    /// exit 66, a malformed one `path:line:column: what is wrong` and exit 65.
    func readMap() throws -> TempoMap? {
        guard let path = tempoMap else { return nil }
        let bytes = try readInputFile(path, cannotRead: "cannot read tempo map '\(path)'")
        // A MIDI file by its `MThd` whatever its name, or by a `.mid` name on bytes that are no text.
        if MIDIFile.isMIDIFile(bytes, name: path) { return try TempoMap(midi: try MIDIFile(parsing: bytes, name: path), name: path) }
        return try TempoMap(parsing: bytes, name: path)
    }

    /// What plans the tempo: the map from its `--start-at` entry, the speed trainer, or nothing.
    func source(map: TempoMap?, tempo: Tempo, meter: Meter) throws -> TempoPlan.Source? {
        if let map, let tempoMap {
            var first = 0
            if let startAt {
                guard let index = map.entry(labelled: startAt) else {
                    let labels = map.entries.compactMap(\.label)
                    // A few labels, not a line as long as the map.
                    let shown = labels.prefix(5).joined(separator: ", ")
                    let known = labels.isEmpty ? "it has no labels"
                        : labels.count <= 5 ? "its labels are " + shown
                        : "its labels are \(shown) and \(labels.count - 5) more"
                    throw SessionError.badRequest("--start-at '\(startAt)': no entry of '\(tempoMap)' has that label; \(known)")
                }
                first = index
            }
            return .map(map, first: first, loops: loop)
        }
        switch (step, until) {
        case (nil, nil):
            return nil
        case (.some, nil), (nil, .some):
            throw SessionError.badRequest("the speed trainer needs both --step S/M and --until T, e.g. --step 5/4 --until 140")
        case (.some(let given), .some(let until)):
            let step = try given.value(), target = try until.value()
            guard target != tempo else { throw SessionError.badRequest("--until \(target) is the starting tempo: nothing to train") }
            let slower = step.millibeatsPerMinute < 0
            guard (target > tempo) != slower else {
                throw SessionError.badRequest("--step \(given.text) moves away from --until \(target): use a \(slower ? "positive" : "negative") step to go from \(tempo) to \(target)")
            }
            return .trainer(start: tempo, step: step.millibeatsPerMinute, barsPerStep: step.bars, until: target, meter: meter)
        }
    }

    /// The program these options play: the speed trainer's plan made adaptive by `--when-tight`
    /// (which listens, so needs `--inspect`), or `source` as it is.
    func program(_ source: TempoPlan.Source?, inspecting: Bool) throws -> Settings.Program {
        guard let whenTight else {
            if stepBack { throw SessionError.badRequest("--step-back is for the adaptive trainer: give --when-tight MS with --step and --until") }
            return source.map(Settings.Program.plan) ?? .steady
        }
        guard case .trainer(let start, let step, let bars, let until, _)? = source else {
            throw SessionError.badRequest("--when-tight makes the speed trainer adaptive: give --step S/M and --until T too, e.g. --step 5/4 --until 140 --when-tight 15")
        }
        guard inspecting else {
            throw SessionError.badRequest("--when-tight moves the tempo by what it hears: give --inspect (and --input-device) too")
        }
        return .adaptive(AdaptiveTrainer.Rule(start: start, step: step, barsPerStep: bars, until: until,
                                              toleranceMicroseconds: try whenTight.value().microseconds, stepsBack: stepBack))
    }
}
