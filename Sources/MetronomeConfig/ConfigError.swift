import MetronomeTiming

/// What went wrong with the config file or a preset, as the user sees it: one
/// line. The kind says what happened; the command gives each its exit status.
package typealias ConfigError = LayerError<ConfigFailure>

package enum ConfigFailure: Sendable, Equatable {
    /// The file named cannot be read.
    case unreadable
    /// The file is not TOML, or holds a key, type or value the options don't take: `file:line:column: …`.
    case malformed
    /// `--preset` names a preset the file does not have.
    case unknownPreset
}
