import MetronomeConfig
import MetronomeSupport

/// `--print-config`: the settings a run takes, as TOML a config file could
/// hold, each with where it comes from; the file's settings that the line or
/// the preset overrode follow as comments.
struct SettingsListing {
    let text: String

    init(_ resolution: ConfigResolution) {
        var lines = ["# The settings this run takes; every other option keeps its default (metronome --help)."]
        let rows = resolution.settings.map { (Self.assignment($0), Self.origin($0.origin)) }
        let width = rows.map(\.0.count).max() ?? 0
        lines += rows.map { $0.0.padding(to: width) + "  # " + $0.1 }
        if !resolution.dropped.isEmpty {
            lines.append("# Not used: overridden by the command line or the preset, or without the option they go with:")
            lines += resolution.dropped.map { "# " + Self.assignment($0) + "  (" + Self.origin($0.origin) + ")" }
        }
        text = lines.joined(separator: "\n") + "\n"
    }

    /// `key = value` in TOML: a switch true or false, a plain number bare, anything else a quoted string.
    static func assignment(_ setting: Setting) -> String {
        switch setting.value {
        case .flag(let on): "\(setting.key) = \(on)"
        case .text(let text): "\(setting.key) = \(isPlainNumber(text) ? text : quotedString(text))"
        }
    }

    static func origin(_ origin: SettingOrigin) -> String {
        switch origin {
        case .commandLine: "command line"
        case .preset(let name, let path, let line): "preset \(name), \(path):\(line)"
        case .file(let path, let line): "\(path):\(line)"
        }
    }

    static func isPlainNumber(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
            && !(parts[0].count > 1 && parts[0].hasPrefix("0"))
    }
}

extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
