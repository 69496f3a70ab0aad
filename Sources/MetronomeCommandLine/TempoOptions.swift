import ArgumentParser
import MetronomeTiming

/// The tempo and the meter, when no tempo map gives them.
struct TempoOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Tempo in beats per minute, 1 to 1000, up to 3 decimals (e.g. --bpm 92.5).", valueName: "bpm"))
    var bpm: OptionValue<Tempo>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Beats per bar / note value; the bell rings on beat 1 (e.g. --meter 3/4). Default 4/4.", valueName: "n/d"))
    var meter: OptionValue<Meter>?
}
