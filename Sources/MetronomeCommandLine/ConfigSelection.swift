import FoundationEssentials
import Glibc
import ArgumentParser
import MetronomeConfig
import MetronomeSession

/// The config file and preset the typed line asks for, put in front of it:
/// what `runAsMain` parses. `--help` and `--version` read no file.
package enum ConfigSelection {
    /// Options that choose the file or say what to do once, never a default in it.
    static let notSettable: Set<String> = ["config", "no-config", "preset", "print-config", "list-devices", "help", "version"]

    /// Options that only a live run takes: a file's default of one is dropped when the line renders to a file.
    static let liveSections: Set<String> = ["Device", "JACK", "Playing with others", "Listening back", "Remote control"]

    /// The typed line with the config file's defaults and the preset's keys in front.
    package static func resolve(_ typed: [String], environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) throws -> ConfigResolution {
        let asked = scan(typed)
        guard !asked.builtIn else { return ConfigResolution(unchanged: typed) }
        if asked.none, asked.path != nil { throw SessionError.badRequest("--config and --no-config contradict each other: give one") }
        if asked.none, asked.preset != nil { throw SessionError.badRequest("--preset needs a config file: drop --no-config") }
        if asked.path?.isEmpty == true { throw SessionError.badRequest("--config needs a file name") }
        let path = asked.path ?? (asked.none ? nil : defaultPath(environment).flatMap { access($0, F_OK) == 0 ? $0 : nil })
        // No file and nothing to list: the line as typed, without asking the parser for its options.
        guard path != nil || asked.preset != nil || asked.printConfig else { return ConfigResolution(unchanged: typed) }
        let options = configurableOptions
        let file = try path.map { path throws in try read(path, options: options) }
        return try ConfigResolution(commandLine: typed, file: file, preset: asked.preset, options: options,
                                    alternatives: alternatives(options), prerequisites: prerequisites, home: environment("HOME"))
    }

    /// `$XDG_CONFIG_HOME/metronome/config.toml`, or under `~/.config` without it.
    static func defaultPath(_ environment: (String) -> String?) -> String? {
        let base = environment("XDG_CONFIG_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? environment("HOME").map { $0 + "/.config" }
        return base.map { $0 + "/metronome/config.toml" }
    }

    /// The file read and each value checked as its option checks it typed: a bad one is `file:line:column` and 78.
    static func read(_ path: String, options: [ConfigurableOption]) throws -> ConfigFile {
        let file = try ConfigFile.read(path, options: options, notSettable: notSettable)
        // The values of a table parsed together, as one line (a parse is most of the cost);
        // only when that fails, each alone, to name the one refused.
        for entries in [file.defaults] + file.presets.keys.sorted().compactMap({ file.presets[$0] }) {
            let values = entries.compactMap { entry -> (ConfigEntry, String)? in
                if case .text(let text) = entry.value { (entry, text) } else { nil }
            }
            guard (try? checkValues(values.flatMap { ["--" + $0.0.key, $0.1] })) == nil else { continue }
            for (entry, text) in values {
                do { try checkValues(["--" + entry.key, text]) } catch {
                    let message = CommandFailure.from(error)?.message ?? "\(error)"
                    throw ConfigError(.malformed, "\(path):\(entry.line):\(entry.column): \(message)")
                }
            }
        }
        return file
    }

    /// Parses `arguments` and reads each value as its option's type does.
    private static func checkValues(_ arguments: [String]) throws {
        try (MetronomeCommand.parseAsRoot(arguments) as? MetronomeCommand)?.checkValues()
    }

    /// What the typed line says of the config: `--config FILE`, `--no-config`, `--preset NAME`, `--print-config`, or help asked for.
    static func scan(_ typed: [String]) -> (path: String?, none: Bool, preset: String?, printConfig: Bool, builtIn: Bool) {
        var path: String?, none = false, preset: String?, printConfig = false, builtIn = false
        var index = 0
        while index < typed.count {
            let argument = typed[index]
            func value(_ name: String) -> String? {
                if argument.hasPrefix(name + "=") { return String(argument.dropFirst(name.count + 1)) }
                guard argument == name, index + 1 < typed.count else { return nil }
                index += 1
                return typed[index]
            }
            if let given = value("--config") { path = given }
            else if let given = value("--preset") { preset = given }
            else if argument == "--no-config" { none = true }
            else if argument == "--print-config" { printConfig = true }
            else if ["-h", "--help", "--version", "--experimental-dump-help", "--generate-completion-script"].contains(argument) || argument.hasPrefix("--generate-completion-script=") { builtIn = true }
            index += 1
        }
        return (path, none, preset, printConfig, builtIn)
    }

    /// Families of options that exclude each other, whatever the file sets: what plays
    /// (a tempo, a map, a setlist), a file or the live run's devices, ALSA or JACK, and the either-or switches.
    static func alternatives(_ options: [ConfigurableOption]) -> [[Set<String>]] {
        let live = Set(options.filter { $0.section.map(liveSections.contains) == true }.map(\.name))
        let jack = Set(options.filter { $0.section == "JACK" }.map(\.name))
        return [
            [["bpm", "meter", "pattern", "step", "until", "when-tight", "step-back"], ["tempo-map", "start-at", "loop"], ["setlist", "song"]],
            [["output", "format"], live],
            [["device", "latency"], jack],
            [["verbose"], ["quiet"]],
            [["inspect"], ["calibrate"]],
            [["connect"], ["no-connect"]],
        ]
    }

    /// The options a file's default is used with only: without any of them, the run leaves it out.
    static let prerequisites: [String: Set<String>] = {
        var needs: [String: Set<String>] = [
            "subdivision-volume": ["subdivide", "swing"], "subdivision-sound": ["subdivide", "swing"],
            "polyrhythm-sound": ["polyrhythm"], "seed": ["random-mute"], "step": ["until"], "until": ["step"],
            "start-at": ["tempo-map"], "loop": ["tempo-map"], "song": ["setlist"], "format": ["output"],
            "input-device": ["inspect", "calibrate"], "input-latency": ["inspect"], "report": ["inspect"],
            "when-tight": ["inspect"], "step-back": ["when-tight"],
            "link-start-stop": ["link"], "osc-host": ["osc"], "osc-tcp": ["osc"], "osc-allow-files": ["osc"],
            "midi-connect": ["midi-notes", "midi-clock"], "midi-map": ["midi-in"], "midi-learn": ["midi-in"],
        ]
        for option in ["jack-name", "jack-ports", "connect", "no-connect", "transport", "midi-notes", "midi-clock", "midi-in",
                       "follow-midi-clock"] {
            needs[option] = ["jack"]
        }
        return needs
    }()

    /// Every option a config file may set, as the command's own help lists them.
    static let configurableOptions: [ConfigurableOption] = {
        let dump: String
        do {
            _ = try MetronomeCommand.parseAsRoot(["--experimental-dump-help"])
            return []
        } catch {
            dump = MetronomeCommand.fullMessage(for: error)
        }
        // The fields of swift-argument-parser's ToolInfo that say what an option is.
        struct Dump: Decodable {
            struct Command: Decodable { let arguments: [Argument]? }
            struct Argument: Decodable {
                struct Name: Decodable { let kind: String; let name: String }
                let kind: String
                let names: [Name]?
                let valueName: String?
                let sectionTitle: String?
                let completionKind: [String: EmptyObject]?
            }
            struct EmptyObject: Decodable {}
            let command: Command
        }
        guard let arguments = (try? JSONDecoder().decode(Dump.self, from: Data(dump.utf8)))?.command.arguments else { return [] }
        return arguments.compactMap { argument in
            guard let name = argument.names?.first(where: { $0.kind == "long" })?.name, !notSettable.contains(name) else { return nil }
            return ConfigurableOption(name: name, isFlag: argument.kind == "flag",
                                      namesFile: argument.completionKind?["file"] != nil || argument.valueName == "file",
                                      section: argument.sectionTitle)
        }
    }()
}
