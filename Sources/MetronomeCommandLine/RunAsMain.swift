import ArgumentParser
import Glibc
import MetronomeConfig
import MetronomeTerminal
import MetronomeSession

extension MetronomeCommand {
    /// Parses the process's arguments, with the config file's defaults and
    /// preset in front (`ConfigSelection`), runs, and returns the exit status.
    /// Every failure is one line on stderr and a sysexits status (`CommandFailure`);
    /// help and --version print as swift-argument-parser prints them.
    public static func runAsMain() -> Int32 {
        // A crash restores the terminal before it kills (and the runtime's backtracer stays off the terminal).
        TerminalRescue.install()
        var typed = Array(CommandLine.arguments.dropFirst())
        // `metronome stats …` and `metronome help …` are the root's; so are --version and the help dump
        // (the man page), which know every subcommand. `metronome --help` is play's: every option.
        if let first = typed.first, ["stats", "help", "--version", "--experimental-dump-help"].contains(first) {
            return run(MetronomeRoot.self, typed)
        }
        if let first = typed.first, first == "--generate-completion-script" || first.hasPrefix("--generate-completion-script=") {
            return run(CompletionShape.self, typed)
        }
        // `metronome play …` is `metronome …`: the config's defaults and preset go in front of what was typed.
        // Play is parsed on its own, as the root would parse it: the root's tree, its default subcommand
        // looked for among every option of every subcommand, costs each start 10 ms (300 ms in a debug build).
        if typed.first == "play" { typed.removeFirst() }
        do {
            let resolution = try ConfigSelection.resolve(typed)
            var command = try MetronomeCommand.parseAsRoot(resolution.arguments)
            if let metronome = command as? MetronomeCommand, metronome.config.printConfig {
                print(SettingsListing(resolution).text, terminator: "")
                _ = try metronome.makeRun()
                return 0
            }
            try command.run()
            return 0
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            guard let failure = CommandFailure.from(error) else { MetronomeCommand.exit(withError: error) }
            StandardError.report(failure.message)
            return failure.status
        }
    }

    /// Runs what the root parses (`stats`, `help`, --version…), reading no config file.
    static func run<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) -> Int32 {
        do {
            var command = try type.parseAsRoot(arguments)
            try command.run()
            return 0
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            guard let failure = CommandFailure.from(error, command: type) else { type.exit(withError: error) }
            StandardError.report(failure.message)
            return failure.status
        }
    }
}
