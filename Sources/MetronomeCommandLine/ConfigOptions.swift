import ArgumentParser

/// Which config file and preset a run reads, and whether it logs itself. These are read from the line
/// before it is parsed (`ConfigSelection`); they are declared here for `--help`.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read defaults and presets from this TOML file instead of $XDG_CONFIG_HOME/metronome/config.toml (~/.config/metronome/config.toml).", valueName: "file"), completion: .file())
    var config: String?

    @Flag(name: .long, help: "Read no config file.")
    var noConfig = false

    @Option(name: .long, help: ArgumentHelp("Use the config file's [preset.NAME]: its keys override the file's defaults, and the command line overrides both.", valueName: "name"))
    var preset: String?

    @Flag(name: .long, help: "Append nothing to the practice log ($XDG_STATE_HOME/metronome/practice.jsonl, ~/.local/state/metronome/practice.jsonl), where each live run otherwise adds a line: when, how long, what tempos, the inspector's take.")
    var noLog = false

    @Flag(name: .long, help: "Print the settings this run would use, each with where it comes from (the command line, a preset, the config file), and exit.")
    var printConfig = false
}
