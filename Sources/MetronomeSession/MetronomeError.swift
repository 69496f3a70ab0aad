import MetronomeTiming

/// An error of the command itself, already as the user sees it: one line and
/// the exit status that goes with it.
public typealias MetronomeError = LayerError<SysExit>

extension LayerError where Kind == SysExit {
    public var exit: SysExit { kind }

    public static func usage(_ message: String) -> MetronomeError { MetronomeError(.usage, message) }
}
