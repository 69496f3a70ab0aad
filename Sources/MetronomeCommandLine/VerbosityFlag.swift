import ArgumentParser
import MetronomeSession

/// `--verbose` or `--quiet`: more lines than a run prints, or none.
enum VerbosityFlag: EnumerableFlag {
    case verbose
    case quiet

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .verbose: "When stdout is not a terminal, print a line per click instead of per bar."
        case .quiet: "Print nothing on stdout: no pendulum and no lines."
        }
    }

    /// The verbosity the flags ask for, each given as often as wished, not both.
    static func verbosity(given flags: [Self]) throws(SessionError) -> Settings.Verbosity {
        if Set(flags).count > 1 { throw .badRequest("--verbose and --quiet contradict each other: give one") }
        return switch flags.first {
        case nil: .normal
        case .verbose: .verbose
        case .quiet: .quiet
        }
    }
}
