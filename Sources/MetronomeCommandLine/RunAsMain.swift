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
        // `metronome stats …` reads the practice log; `metronome play …` is `metronome …`.
        if typed.first == "stats" { return run(StatsCommand.self, Array(typed.dropFirst())) }
        if typed.first == "play" { typed.removeFirst() }
        do {
            let resolution = try ConfigSelection.resolve(typed)
            var command = try parseAsRoot(resolution.arguments)
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
            guard let failure = CommandFailure.from(error) else { exit(withError: error) }
            StandardError.report(failure.message)
            return failure.status
        }
    }

    /// Runs a command of its own, `stats`, as `runAsMain` runs the metronome.
    static func run<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) -> Int32 {
        do {
            var command = try type.parse(arguments)
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
