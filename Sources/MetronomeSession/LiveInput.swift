/// What wakes the live loop between frames: a signal or a key. `LiveTerminal`
/// in a run (one `poll` for both); a test's plays a script.
protocol LiveInput: AnyObject {
    /// Waits up to `milliseconds` for a signal or a key: the signal taken, if one came, and whether a key is waiting.
    func wait(milliseconds: Int) -> (signal: Int32?, keyReady: Bool)
    /// The bytes typed since the last call (a bounded piece of a paste).
    func readKeys() -> [UInt8]
}
