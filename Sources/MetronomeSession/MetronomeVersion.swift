/// The metronome's version, as `--version` prints it.
package enum MetronomeVersion {
    package static let current = "0.1.0"
}
