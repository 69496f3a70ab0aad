import ArgumentParser
import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomeSession

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
        if let own = ofLayers(error) { return own }
        let exit = MetronomeCommand.exitCode(for: error)
        if exit == .success { return nil }
        // The whole message, not its first line: a value holding a newline is shown escaped, not cut.
        let message = MetronomeCommand.message(for: error)
        if let own = OptionValue.rejection(behind: message) { return own }
        let line = message.isEmpty ? "invalid arguments" : message
        return CommandFailure(status: exit.rawValue == 1 ? SysExit.software.rawValue : exit.rawValue,
                              message: line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)
    }

    /// The failure each layer's error stands for; nil for an error from no layer of ours.
    static func ofLayers(_ error: any Error) -> CommandFailure? {
        let exit: SysExit, message: String
        switch error {
        case let error as MetronomeError:
            (exit, message) = (error.exit, error.message)
        case let error as TimingError:
            (exit, message) = (error.kind == .invalid ? .usage : .dataError, error.message)
        case let error as SoundError:
            switch error.kind {
            case .unreadable: exit = .noInput
            case .unwritable: exit = .cannotCreate
            case .failed: exit = .software
            }
            message = error.message
        case let error as RenderError:
            switch error.kind {
            case .badRequest: exit = .usage
            case .cannotCreate: exit = .cannotCreate
            case .writeFailed: exit = .ioError
            }
            message = error.message
        default:
            return nil
        }
        return CommandFailure(status: exit.rawValue, message: message)
    }
}
