import ArgumentParser

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
}
