import ArgumentParser
import MetronomeSession

/// `metronome` with its subcommands, in swift-argument-parser's manner: `play`
/// (the default, so `metronome --bpm 90` is `metronome play --bpm 90`) and
/// `stats`; `metronome help stats` and the completions know both.
struct MetronomeRoot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metronome",
        abstract: "A sample-accurate metronome: a beat on every beat, a bell on the first beat of every bar.",
        discussion: """
            metronome play (the default) plays or renders the click; every option is listed by \
            metronome --help, metronome play --help or metronome help play. \
            metronome stats charts what the practice log holds: metronome help stats.
            """,
        version: MetronomeVersion.current,
        subcommands: [MetronomeCommand.self, StatsCommand.self],
        defaultSubcommand: MetronomeCommand.self
    )

    init() {}
}

/// The shape the completion scripts are generated from: play's options right
/// after `metronome` (the default subcommand, which swift-argument-parser's
/// scripts would only complete after the word `play`), then `stats` and
/// `play` as words of their own.
struct CompletionShape: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "metronome", subcommands: [StatsCommand.self, MetronomeCommand.self])

    @OptionGroup var play: MetronomeCommand

    init() {}
}
