import MetronomeSupport

/// Where the live loop shows a run: a picture drawn from a grid, or plain
/// lines, and the terminal given back around a stop. `LiveTerminal` in a
/// run; a test's records what it is given.
protocol LiveScreen: AnyObject {
    /// Whether a picture is drawn; without one the loop prints lines.
    var showsPicture: Bool { get }
    /// Whether the run shows nothing: a stop came while it waited in the background for the terminal.
    var showsNothing: Bool { get }
    /// Columns and rows.
    func size() -> (width: Int, height: Int)
    /// Shows `grid`, writing what changed since the last one drawn.
    func draw(_ grid: TextGrid)
    /// Forgets what is shown, so the next grid is drawn whole (after a resize).
    func invalidate()
    /// Prints lines.
    func emit(_ text: String)
    /// Ctrl-Z: gives the terminal back and stops the process until it is continued.
    /// Returns whether the terminal is the run's again; false when it went on in the background.
    func suspend() -> Bool
    /// Gives the terminal back for good; safe to call more than once.
    func leave()
}
