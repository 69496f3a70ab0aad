import MetronomeSupport
import TOMLKit

/// One `key = value` of the config file, checked against the options: the
/// option's long name and its value as the command line would take it.
package struct ConfigEntry: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        /// An option's value, as typed after `--key` (a number as written).
        case text(String)
        /// A switch: on gives `--key`, off gives nothing.
        case flag(Bool)
    }

    package let key: String
    package let value: Value
    package let line: Int
    package let column: Int
}

/// `config.toml`: a default for any option, under its long name and in its
/// own type (`volume = 0.6`, `device = "pipewire"`, `loop = true`), and named
/// presets (`[preset.ballad]`) of the same keys.
package struct ConfigFile: Sendable, Equatable {
    package let path: String
    /// The top level's entries, in the file's order.
    package let defaults: [ConfigEntry]
    /// Each preset's entries, in the file's order.
    package let presets: [String: [ConfigEntry]]

    /// The largest config file read.
    static let limit = 1 << 20

    /// Reads and checks `path`: unreadable is `.unreadable`, anything else wrong `.malformed` with its place.
    package static func read(_ path: String, options: [ConfigurableOption], notSettable: Set<String> = []) throws(ConfigError) -> ConfigFile {
        let bytes: [UInt8]
        do { bytes = try FileContents.read(path, limit: limit) } catch {
            throw ConfigError(.unreadable, "cannot read config file '\(path)': \(error.message)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(.malformed, "\(path):1:1: not UTF-8 text")
        }
        return try ConfigFile(parsing: text, path: path, options: options, notSettable: notSettable)
    }

    /// `text` read as TOML and checked: every key an option of `options`, each of its type.
    package init(parsing text: String, path: String, options: [ConfigurableOption], notSettable: Set<String> = []) throws(ConfigError) {
        self.path = path
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigError(.malformed, "\(path):\(error.source.begin.line):\(error.source.begin.column): \(Self.lowercasedFirst(error.description))")
        } catch {
            throw ConfigError(.malformed, "\(path):1:1: \(error)")
        }
        let places = KeyPlaces(text)
        let reader = EntryReader(path: path, places: places, options: options, notSettable: notSettable)
        var defaults: [ConfigEntry] = []
        var presets: [String: [ConfigEntry]] = [:]
        for key in table.keys {
            guard let value = table[key] else { continue }
            if key == "preset" {
                guard let presetTable = value.table else {
                    throw reader.error(at: key, in: "", "'preset' is a table of presets: [preset.NAME] and its keys")
                }
                for name in presetTable.keys {
                    guard let entries = presetTable[name]?.table else {
                        throw reader.error(at: name, in: "preset", "preset '\(name)' is a table: [preset.\(name)] and its keys")
                    }
                    presets[name] = try entries.keys.map { key throws(ConfigError) in
                        try reader.entry(key, entries[key]!, in: "preset.\(name)")
                    }.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
                }
            } else {
                defaults.append(try reader.entry(key, value, in: ""))
            }
        }
        self.defaults = defaults.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        self.presets = presets
    }

    static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

/// Reads one key's value into an entry, or says where and why it cannot.
private struct EntryReader {
    let path: String
    let places: KeyPlaces
    let options: [ConfigurableOption]
    let notSettable: Set<String>

    func error(at key: String, in table: String, _ message: String) -> ConfigError {
        let place = places.place(of: key, in: table)
        return ConfigError(.malformed, "\(path):\(place?.line ?? 1):\(place?.column ?? 1): \(message)")
    }

    func entry(_ key: String, _ value: any TOMLValueConvertible, in table: String) throws(ConfigError) -> ConfigEntry {
        guard let option = options.first(where: { $0.name == key }) else {
            if notSettable.contains(key) { throw error(at: key, in: table, "'\(key)' is not a default: give it on the command line") }
            let hint = nearest(to: key, among: options.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
            throw error(at: key, in: table, "unknown key '\(key)'\(hint)")
        }
        let place = places.place(of: key, in: table)
        let read: ConfigEntry.Value
        if option.isFlag {
            guard let on = value.bool else { throw error(at: key, in: table, "'\(key)' is a switch: true or false") }
            read = .flag(on)
        } else if let text = value.string {
            read = .text(text)
        } else if let integer = value.int, value.type == .int {
            read = .text(String(integer))
        } else if let number = value.double, value.type == .double {
            // The number as written where it reads back the same (0.60 stays 0.60), else Swift's shortest form.
            let written = place?.literal.filter { $0 != "_" } ?? ""
            read = .text(Double(written) == number ? written : "\(number)")
        } else {
            let kind = "\(value.type)"
            let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            throw error(at: key, in: table, "'\(key)' takes one value, a string or a number, not \(article) \(kind)")
        }
        return ConfigEntry(key: key, value: read, line: place?.line ?? 1, column: place?.column ?? 1)
    }
}
