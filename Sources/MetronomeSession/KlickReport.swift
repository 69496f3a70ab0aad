import MetronomeTiming
import MetronomeOSC

/// What klick's OSC queries report of a run: the parts its settings fix
/// (the kind of metronome, the trainer, the pattern, the map),
/// and the rest read from the view each time (tempo, volume, meter, playing).
struct KlickReport {
    private var fixed: KlickState

    /// The map `/klick/map/load_file` loaded: `/klick/map/query` reports its file.
    mutating func loaded(mapFile: String) {
        fixed.mapFile = mapFile
        fixed.type = .map
    }

    init(settings: Settings, live: Settings.Live) {
        var type = KlickState.MetronomeType.simple
        var increment: Float = 0, start: Float = 0, limit: Float = 0
        switch settings.program {
        case .steady: break
        case .plan(.trainer(let first, let step, let barsPerStep, let until, _)):
            // klick's trainer: bpm a bar, from a start tempo up to a limit.
            increment = Float(step) / 1_000 / Float(barsPerStep)
            start = Self.bpm(first)
            limit = Self.bpm(until)
        case .adaptive(let rule):
            // The adaptive trainer's steps, at the bars they take when every one is tight.
            increment = Float(rule.step) / 1_000 / Float(rule.barsPerStep)
            start = Self.bpm(rule.start)
            limit = Self.bpm(rule.until)
        case .plan(.map), .setlist: type = .map
        }
        if live.output.jackSettings?.transport == .follow { type = .jack }
        fixed = KlickState(type: type, volume: settings.volume, active: true, tempo: Self.bpm(settings.tempo), currentTempo: Self.bpm(settings.tempo),
                           tempoIncrement: increment, tempoStart: start, tempoLimit: limit,
                           beatsPerBar: settings.meter.beatsPerBar, noteValue: settings.meter.noteValue,
                           pattern: settings.rhythm.pattern?.description ?? "", mapFile: live.osc?.mapFile ?? "",
                           // klick's preroll: -1 for none.
                           preroll: settings.rhythm.countInBars > 0 ? Int(settings.rhythm.countInBars) : -1)
    }

    /// The state with the tempo asked for, the volume and whether it plays from the
    /// controller, and the tempo and meter of the passage heard now.
    func state(controller: PracticeController, heard passage: Passage, playing: Bool) -> KlickState {
        var state = fixed
        state.tempo = Self.bpm(controller.tempo)
        state.currentTempo = Self.bpm(passage.tempo)
        state.volume = Float(controller.volumePercent) / 100
        state.active = playing
        state.beatsPerBar = passage.meter.beatsPerBar
        state.noteValue = passage.meter.noteValue
        return state
    }

    private static func bpm(_ tempo: Tempo) -> Float { Float(tempo.millibeatsPerMinute) / 1_000 }
}
