import SystemPackage

/// Where a setting of a run comes from.
package enum SettingOrigin: Sendable, Equatable {
    case commandLine
    /// A preset's key: its name, and the file and line.
    case preset(String, path: String, line: Int)
    /// The config file's top level.
    case file(path: String, line: Int)
}

/// One setting a run uses: an option's name, its value, and where it comes from.
package struct Setting: Sendable, Equatable {
    package let key: String
    package let value: ConfigEntry.Value
    package let origin: SettingOrigin
}

/// The command line with the config file's defaults and a preset's keys put
/// in front of it: the command line overrides the preset, the preset the
/// defaults. A key given above drops the same key below, and so does any key
/// of another family of its group (`alternatives`): a `--tempo-map` typed
/// drops the file's `bpm`, an `--output` its `device`.
package struct ConfigResolution: Sendable, Equatable {
    /// The arguments to parse: the file's and the preset's first, then the command line's.
    package let arguments: [String]
    /// Every setting the run takes, the command line's included, in that order.
    package let settings: [Setting]
    /// The file's and preset's settings that a higher one dropped.
    package let dropped: [Setting]

    /// The typed line alone: no file, nothing to list.
    package init(unchanged commandLine: [String]) {
        arguments = commandLine
        settings = []
        dropped = []
    }

    /// - Parameters:
    ///   - commandLine: the arguments as typed, without the program's name.
    ///   - file: the config file read, or nil for none.
    ///   - preset: `--preset`'s name.
    ///   - options: every option a file may set.
    ///   - alternatives: groups of families of options that exclude each other.
    ///   - prerequisites: the options a file's key is used with only, any one of them: without, it is dropped.
    ///   - home: `$HOME`, for a path written `~/…`.
    package init(commandLine: [String], file: ConfigFile?, preset: String?, options: [ConfigurableOption],
                 alternatives: [[Set<String>]], prerequisites: [String: Set<String>] = [:], home: String?) throws(ConfigError) {
        var presetEntries: [ConfigEntry] = []
        if let preset {
            guard let file else { throw ConfigError(.unknownPreset, "--preset '\(preset)': there is no config file to read it from") }
            guard let entries = file.presets[preset] else {
                let names = file.presets.keys.sorted()
                let known = names.isEmpty ? "it has no presets" : "its presets are " + names.joined(separator: ", ")
                let hint = nearest(to: preset, among: names).map { "did you mean '\($0)'? " } ?? ""
                throw ConfigError(.unknownPreset, "--preset '\(preset)': no such preset in '\(file.path)'; \(hint)\(known)")
            }
            presetEntries = entries
        }
        let typed = Self.settings(of: commandLine, options: options)
        // Keys named above drop the same keys below; only those that are on (not a switch
        // set false) drop the other families of their groups.
        var named = Set(typed.map(\.key)), on = named
        var keptPreset = presetEntries.filter { !Self.excluded($0.key, named: named, on: on, alternatives) }
        named.formUnion(keptPreset.map(\.key))
        on.formUnion(keptPreset.filter(\.isOn).map(\.key))
        var keptDefaults = (file?.defaults ?? []).filter { !Self.excluded($0.key, named: named, on: on, alternatives) }
        // A file's key that goes only with options the run has none of is left out (a default
        // `subdivision-volume` waits for a `--subdivide`), until none is left to leave out.
        while true {
            let present = Set(typed.map(\.key)).union((keptPreset + keptDefaults).filter(\.isOn).map(\.key))
            func usable(_ entry: ConfigEntry) -> Bool {
                !entry.isOn || prerequisites[entry.key].map { !$0.isDisjoint(with: present) } ?? true
            }
            let (preset, defaults) = (keptPreset.filter(usable), keptDefaults.filter(usable))
            if preset.count == keptPreset.count, defaults.count == keptDefaults.count { break }
            (keptPreset, keptDefaults) = (preset, defaults)
        }

        let directory = FilePath(file?.path ?? "").removingLastComponent()
        func setting(_ entry: ConfigEntry, _ origin: SettingOrigin) -> Setting {
            guard case .text(let text) = entry.value, options.first(where: { $0.name == entry.key })?.namesFile == true else {
                return Setting(key: entry.key, value: entry.value, origin: origin)
            }
            return Setting(key: entry.key, value: .text(Self.path(text, from: directory, home: home)), origin: origin)
        }
        let fromFile = file.map { file in keptDefaults.map { setting($0, .file(path: file.path, line: $0.line)) } } ?? []
        let fromPreset = file.map { file in keptPreset.map { setting($0, .preset(preset ?? "", path: file.path, line: $0.line)) } } ?? []
        var arguments: [String] = []
        for setting in fromFile + fromPreset {
            switch setting.value {
            case .flag(true): arguments.append("--" + setting.key)
            case .flag(false): break
            case .text(let text): arguments += ["--" + setting.key, text]
            }
        }
        self.arguments = arguments + commandLine
        self.settings = fromFile + fromPreset + typed
        let droppedPreset = presetEntries.filter { entry in !keptPreset.contains(entry) }
        let droppedDefaults = (file?.defaults ?? []).filter { entry in !keptDefaults.contains(entry) }
        self.dropped = file.map { file in
            droppedDefaults.map { Setting(key: $0.key, value: $0.value, origin: .file(path: file.path, line: $0.line)) }
                + droppedPreset.map { Setting(key: $0.key, value: $0.value, origin: .preset(preset ?? "", path: file.path, line: $0.line)) }
        } ?? []
    }

    /// Whether a key below is dropped by those above: the same key `named`, or a key `on` of another family of a group.
    static func excluded(_ key: String, named: Set<String>, on: Set<String>, _ alternatives: [[Set<String>]]) -> Bool {
        if named.contains(key) { return true }
        for group in alternatives {
            guard let own = group.firstIndex(where: { $0.contains(key) }) else { continue }
            for (index, family) in group.enumerated() where index != own && !family.isDisjoint(with: on) { return true }
        }
        return false
    }

    /// The options the command line names, with their values: `--key value`, `--key=value` or a switch.
    static func settings(of commandLine: [String], options: [ConfigurableOption]) -> [Setting] {
        var settings: [Setting] = []
        var index = 0
        while index < commandLine.count {
            defer { index += 1 }
            let argument = commandLine[index]
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            guard let option = options.first(where: { $0.name == name }) else { continue }
            if option.isFlag {
                settings.append(Setting(key: name, value: .flag(true), origin: .commandLine))
            } else if let equals = body.firstIndex(of: "=") {
                settings.append(Setting(key: name, value: .text(String(body[body.index(after: equals)...])), origin: .commandLine))
            } else if index + 1 < commandLine.count {
                index += 1
                settings.append(Setting(key: name, value: .text(commandLine[index]), origin: .commandLine))
            }
        }
        return settings
    }

    /// A file's path as written in the config file: `~/` is the home folder, a relative one is from the file's folder.
    static func path(_ text: String, from directory: FilePath, home: String?) -> String {
        if text.hasPrefix("~/"), let home { return FilePath(home).appending(String(text.dropFirst(2))).string }
        if text.isEmpty || text.hasPrefix("/") || text == "-" { return text }
        return directory.appending(text).string
    }
}
