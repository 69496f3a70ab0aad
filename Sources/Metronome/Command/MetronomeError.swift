/// An error the user sees: one line of text and the exit code that goes with it.
public struct MetronomeError: Error, CustomStringConvertible, Equatable, Sendable {
    public let exit: SysExit
    public let message: String

    public init(_ exit: SysExit, _ message: String) {
        self.exit = exit
        self.message = message
    }

    public var description: String { message }

    public static func usage(_ message: String) -> MetronomeError { MetronomeError(.usage, message) }
}
