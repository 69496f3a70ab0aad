import ArgumentParser
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
        return try MetronomeCommand.parse(arguments).settings()
    } catch {
        throw CommandFailure.from(error) ?? CommandFailure(status: 0, message: "help or version")
    }
}
