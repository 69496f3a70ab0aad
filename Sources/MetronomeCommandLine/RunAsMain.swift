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
        do {
            let resolution = try ConfigSelection.resolve(Array(CommandLine.arguments.dropFirst()))
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
}
