import ArgumentParser
import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomeOSC
import MetronomeConfig
import MetronomeSession

/// Every way the command can fail, as the user sees it: one line and a
/// sysexits status. The one place errors become exit codes: the layers
/// below throw what happened, and `status(of:)` is the table.
package struct CommandFailure: Error, Equatable, Sendable {
    package let status: Int32
    package let message: String

    package init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// The failure `error` stands for; nil for help and `--version`, which are no failures.
    package static func from(_ error: any Error, command: any ParsableCommand.Type = MetronomeCommand.self) -> CommandFailure? {
        if let own = ofLayers(error) { return own }
        let exit = command.exitCode(for: error)
        if exit == .success { return nil }
        // The whole message, not its first line: a value holding a newline is shown escaped, not cut.
        let message = command.message(for: error)
        let line = message.isEmpty ? "invalid arguments" : message
        return CommandFailure(status: exit.rawValue == 1 ? SysExit.software.rawValue : exit.rawValue,
                              message: line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)
    }

    /// The status a run that did not fail ends with: 0, or 128 + N after signal N, as a shell reports it.
    static func status(of outcome: RunOutcome) -> Int32 {
        switch outcome {
        case .finished: 0
        case .stoppedBy(let signal): 128 + signal
        }
    }

    /// The failure each layer's error stands for; nil for an error from no layer of ours.
    /// The table: each layer's kind of failure and the status it ends the run with.
    static func ofLayers(_ error: any Error) -> CommandFailure? {
        let exit: SysExit
        switch error {
        case let error as SessionError:
            exit = switch error.kind {
            case .badRequest: .usage
            case .unreadable: .noInput
            case .deviceUnavailable, .jackUnavailable, .linkUnavailable, .cannotListen, .calibrationFailed: .unavailable
            case .cannotCreate: .cannotCreate
            case .deviceFailed, .writeFailed: .ioError
            }
        case let error as TimingError:
            exit = switch error.kind {
            case .invalid: .usage
            case .malformed: .dataError
            }
        case let error as SoundError:
            exit = switch error.kind {
            case .unreadable: .noInput
            case .unwritable: .cannotCreate
            case .failed: .software
            }
        case let error as OSCError:
            exit = switch error.kind {
            case .badAddress: .usage
            case .unavailable: .unavailable
            }
        case let error as ConfigError:
            exit = switch error.kind {
            case .unreadable: .noInput
            case .malformed: .config
            case .unknownPreset: .usage
            }
        case let error as RenderError:
            exit = switch error.kind {
            case .badRequest: .usage
            case .cannotCreate: .cannotCreate
            case .writeFailed: .ioError
            }
        default:
            return nil
        }
        // Each layer's error (a `LayerError`) describes itself by its one line.
        return CommandFailure(status: exit.rawValue, message: "\(error)")
    }
}
