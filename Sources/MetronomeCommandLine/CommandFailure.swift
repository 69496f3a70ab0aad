import ArgumentParser
import Metronome

/// Every way the command can fail, as the user sees it: one line and a
/// sysexits status. The one place errors become exit codes.
public struct CommandFailure: Error, Equatable, Sendable {
    public let status: Int32
    public let message: String

    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// The failure `error` stands for; nil for help and `--version`, which are no failures.
    public static func from(_ error: any Error) -> CommandFailure? {
        if let error = error as? MetronomeError { return CommandFailure(status: error.exit.rawValue, message: error.message) }
        let exit = MetronomeCommand.exitCode(for: error)
        if exit == .success { return nil }
        // The whole message, not its first line: a value holding a newline is shown escaped, not cut.
        let message = MetronomeCommand.message(for: error)
        if let own = OptionValue.rejection(behind: message) { return CommandFailure(status: own.exit.rawValue, message: own.message) }
        let line = message.isEmpty ? "invalid arguments" : message
        return CommandFailure(status: exit.rawValue == 1 ? SysExit.software.rawValue : exit.rawValue,
                              message: line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)
    }
}
