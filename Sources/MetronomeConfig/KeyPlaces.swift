/// Where each `key = value` of a TOML text is, and the value as written:
/// TOMLKit gives the values but not their places, which a message names.
///
/// A line scan, not a parser (TOMLKit has parsed the text by then): headers,
/// dotted keys and quoted keys are followed; a key it cannot place is
/// reported at its table's header.
struct KeyPlaces {
    struct Place: Equatable {
        let line: Int
        let column: Int
        /// The value's text up to a comment, trimmed.
        let literal: String
    }

    private var keys: [String: Place] = [:]
    private var tables: [String: Place] = [:]

    init(_ text: String) {
        var table = "", inMultilineString = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let quotes = line.ranges(of: "\"\"\"").count + line.ranges(of: "'''").count
            defer { if quotes % 2 == 1 { inMultilineString.toggle() } }
            if inMultilineString { continue }
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            let body = line.dropFirst(indent)
            if body.hasPrefix("[") {
                let inside = body.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.normalized(inside)
                if tables[table] == nil { tables[table] = Place(line: index + 1, column: indent + 1, literal: "") }
            } else if !body.hasPrefix("#"), let equals = body.firstIndex(of: "=") {
                let key = Self.normalized(body[..<equals])
                guard !key.isEmpty else { continue }
                let full = table.isEmpty ? key : table + "." + key
                let (owner, name) = full.lastIndex(of: ".").map { (String(full[..<$0]), String(full[full.index(after: $0)...])) } ?? ("", full)
                let value = body[body.index(after: equals)...]
                let literal = (value.firstIndex(of: "#").map { value[..<$0] } ?? value).trimmingSpaces
                if keys[owner + "\u{0}" + name] == nil {
                    keys[owner + "\u{0}" + name] = Place(line: index + 1, column: indent + 1, literal: String(literal))
                }
            }
        }
    }

    /// Where `key` of the table named `table` (`""` the top, `preset.ballad`) is written.
    func place(of key: String, in table: String) -> Place? {
        keys[table + "\u{0}" + key] ?? tables[table]
    }

    /// A key or header as dotted names: spaces around the dots and quotes dropped.
    private static func normalized(_ text: Substring) -> String {
        text.split(separator: ".").map { part in
            let trimmed = part.trimmingSpaces
            let unquoted = trimmed.count >= 2 && (trimmed.first == "\"" || trimmed.first == "'") && trimmed.last == trimmed.first
                ? trimmed.dropFirst().dropLast() : trimmed
            return String(unquoted)
        }.joined(separator: ".")
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var trimmed = self
        while let first = trimmed.first, first == " " || first == "\t" { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
