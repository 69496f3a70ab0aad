import CToml
import MetronomeSupport

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

    /// Whether it asks for anything: a value, or a switch set true.
    package var isOn: Bool { value != .flag(false) }
}

/// `config.toml`: a default for any option, under its long name and in its
/// own type (`volume = 0.6`, `device = "pipewire"`, `loop = true`), and named
/// presets (`[preset.ballad]`) of the same keys. Read by toml++ (`CToml`).
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
        return try ConfigFile(parsing: bytes, path: path, options: options, notSettable: notSettable)
    }

    package init(parsing text: String, path: String, options: [ConfigurableOption], notSettable: Set<String> = []) throws(ConfigError) {
        try self.init(parsing: Array(text.utf8), path: path, options: options, notSettable: notSettable)
    }

    /// `bytes` read as TOML and checked: every key an option of `options`, each of its type.
    package init(parsing bytes: [UInt8], path: String, options: [ConfigurableOption], notSettable: Set<String> = []) throws(ConfigError) {
        self.path = path
        let nodes = try Self.nodes(bytes, path: path)
        let reader = EntryReader(path: path, options: options, notSettable: notSettable)
        var defaults: [ConfigEntry] = []
        var presets: [String: [ConfigEntry]] = [:]
        for (index, node) in nodes.enumerated() where node.parent == -1 {
            guard node.key == "preset" else {
                defaults.append(try reader.entry(node))
                continue
            }
            guard node.kind == MTL_TOML_TABLE else {
                throw reader.error(at: node, "'preset' is a table of presets: [preset.NAME] and its keys")
            }
            for (presetIndex, preset) in nodes.enumerated() where preset.parent == index {
                guard preset.kind == MTL_TOML_TABLE else {
                    throw reader.error(at: preset, "preset '\(preset.key)' is a table: [preset.\(preset.key)] and its keys")
                }
                presets[preset.key] = try nodes.filter { $0.parent == presetIndex }.map { node throws(ConfigError) in try reader.entry(node) }
                    .sorted { ($0.line, $0.column) < ($1.line, $1.column) }
            }
        }
        self.defaults = defaults.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        self.presets = presets
    }

    /// A node of the document, copied out of toml++'s.
    struct Node {
        let parent: Int
        let key: String
        let kind: mtl_toml_kind
        let text: String?
        let integer: Int64
        let boolean: Bool
        let line: Int
        let column: Int
    }

    /// The document's nodes, or where and why it is no TOML.
    static func nodes(_ bytes: [UInt8], path: String) throws(ConfigError) -> [Node] {
        var error = [CChar](repeating: 0, count: 256)
        var line: Int32 = 1, column: Int32 = 1
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                error.withUnsafeMutableBufferPointer { mtl_toml_parse(text.baseAddress, text.count, $0.baseAddress, $0.count, &line, &column) }
            }
        }
        guard let parsed else {
            let description = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ConfigError(.malformed, "\(path):\(line):\(column): \(lowercasedFirst(description))")
        }
        defer { mtl_toml_free(parsed) }
        return (0..<mtl_toml_count(parsed)).map { index in
            let node = mtl_toml_node_at(parsed, index).pointee
            let text = node.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: node.length), as: UTF8.self) }
            return Node(parent: Int(node.parent), key: String(cString: node.key), kind: node.kind, text: text, integer: node.integer,
                        boolean: node.boolean != 0, line: Int(node.line), column: Int(node.column))
        }
    }

    static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

/// Reads one key's value into an entry, or says where and why it cannot.
private struct EntryReader {
    let path: String
    let options: [ConfigurableOption]
    let notSettable: Set<String>

    func error(at node: ConfigFile.Node, _ message: String) -> ConfigError {
        ConfigError(.malformed, "\(path):\(node.line):\(node.column): \(message)")
    }

    func entry(_ node: ConfigFile.Node) throws(ConfigError) -> ConfigEntry {
        let key = node.key
        guard let option = options.first(where: { $0.name == key }) else {
            if notSettable.contains(key) { throw error(at: node, "'\(key)' is not a default: give it on the command line") }
            let hint = nearest(to: key, among: options.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
            throw error(at: node, "unknown key '\(key)'\(hint)")
        }
        let value: ConfigEntry.Value
        switch (option.isFlag, node.kind) {
        case (true, MTL_TOML_BOOLEAN): value = .flag(node.boolean)
        case (true, _): throw error(at: node, "'\(key)' is a switch: true or false")
        case (false, MTL_TOML_STRING): value = .text(node.text ?? "")
        case (false, MTL_TOML_INTEGER): value = .text(String(node.integer))
        // A number as written (0.60 stays 0.60), the digits' underscores dropped.
        case (false, MTL_TOML_FLOAT): value = .text((node.text ?? "").filter { $0 != "_" })
        case (false, let kind):
            throw error(at: node, "'\(key)' takes one value, a string or a number, not \(Self.name(of: kind))")
        }
        return ConfigEntry(key: key, value: value, line: node.line, column: node.column)
    }

    static func name(of kind: mtl_toml_kind) -> String {
        switch kind {
        case MTL_TOML_TABLE: "a table"
        case MTL_TOML_ARRAY: "an array"
        case MTL_TOML_BOOLEAN: "true or false"
        case MTL_TOML_DATE: "a date"
        case MTL_TOML_TIME: "a time"
        default: "a date and time"
        }
    }
}
