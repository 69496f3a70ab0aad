import ArgumentParser
import Testing
import MetronomeCommandLine
import MetronomeSession

/// The command line parsed in-process, as swift-argument-parser's own tests
/// parse theirs: the settings a run would get, or the failure it would report
/// (its one line and exit status), without spawning the binary.
package func parsedSettings(_ arguments: String...) throws(CommandFailure) -> Settings {
    try parsedSettings(arguments)
}

package func parsedSettings(_ arguments: [String]) throws(CommandFailure) -> Settings {
    do {
        guard case .session(let settings) = try MetronomeCommand.parse(arguments).makeRun() else {
            throw CommandFailure(status: 0, message: "not a session: \(arguments)")
        }
        return settings
    } catch {
        throw CommandFailure.from(error) ?? CommandFailure(status: 0, message: "help or version")
    }
}

/// Expects the command line to refuse `arguments` as a bad option: status 64
/// and a line that starts with `prefix`. Returns the failure, nil if none.
@discardableResult
package func expectRefused(_ arguments: [String], saying prefix: String,
                           sourceLocation: SourceLocation = #_sourceLocation) -> CommandFailure? {
    let failure = #expect(throws: CommandFailure.self, "\(arguments)", sourceLocation: sourceLocation) {
        _ = try parsedSettings(arguments)
    }
    if let failure {
        #expect(failure.status == 64 && failure.message.hasPrefix(prefix), "\(failure)", sourceLocation: sourceLocation)
    }
    return failure
}
