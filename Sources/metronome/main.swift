import ArgumentParser
import Glibc
import Metronome

// A crash restores the terminal before it kills (and the runtime's backtracer stays off the terminal).
TerminalRescue.install()

// Every failure is one line on stderr and a sysexits status; help and
// --version print as swift-argument-parser prints them.
do {
    var command = try MetronomeCommand.parseAsRoot()
    try command.run()
} catch let error as MetronomeError {
    StandardError.report(error.message)
    exit(error.exit.rawValue)
} catch let error as ExitCode {
    // Stopped by a signal and cleaned up: die of it, so a shell loop stops too.
    if error.rawValue > 128, TerminationSignals.stopping.contains(error.rawValue - 128) {
        TerminationSignals.end(by: error.rawValue - 128)
    }
    exit(error.rawValue)
} catch {
    let status = MetronomeCommand.exitCode(for: error)
    if status == .success {
        MetronomeCommand.exit(withError: error)
    }
    // The whole message, not its first line: a value holding a newline is shown escaped, not cut.
    let message = MetronomeCommand.message(for: error)
    let line = message.isEmpty ? "invalid arguments" : message
    StandardError.report(line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)
    exit(status.rawValue == 1 ? SysExit.software.rawValue : status.rawValue)
}
