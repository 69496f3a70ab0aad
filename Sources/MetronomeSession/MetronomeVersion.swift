/// The metronome's version, as `--version` prints it.
public enum MetronomeVersion {
    public static let current = "0.1.0"
}
