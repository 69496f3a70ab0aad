/// An option a config file may give a default for, as the command line knows it.
package struct ConfigurableOption: Sendable, Equatable {
    /// The long name without its dashes: `tempo-map`.
    package let name: String
    /// A switch (`--loop`): true or false in the file.
    package let isFlag: Bool
    /// Its value names a file: a relative path is read from the config file's folder.
    package let namesFile: Bool
    /// The group the option is listed under in `--help`.
    package let section: String?

    package init(name: String, isFlag: Bool, namesFile: Bool = false, section: String? = nil) {
        self.name = name
        self.isFlag = isFlag
        self.namesFile = namesFile
        self.section = section
    }
}

/// The name among `names` nearest to `name` by edit distance, if it is near enough to be a typo.
package func nearest(to name: String, among names: [String]) -> String? {
    let typed = Array(name)
    var best: (name: String, distance: Int)?
    for candidate in names {
        let distance = editDistance(typed, Array(candidate))
        if distance < best?.distance ?? .max { best = (candidate, distance) }
    }
    guard let best, best.distance <= max(2, typed.count / 3) else { return nil }
    return best.name
}

/// Levenshtein's distance: insertions, deletions and substitutions.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...max(a.count, 1) where !a.isEmpty {
        current[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return a.isEmpty ? b.count : previous[b.count]
}
