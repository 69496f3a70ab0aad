import ArgumentParser
import Glibc
import MetronomePendulum
import MetronomeSession
import MetronomeStats
import MetronomeTerminal

/// `metronome stats`: what the practice log holds, as charts on a terminal,
/// a table in a pipe, or JSON.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "What you practised: minutes a day, totals by preset and song, the tempo reached, the inspector's spread.",
        discussion: """
            Reads the practice log every live run appends to ($XDG_STATE_HOME/metronome/practice.jsonl, \
            ~/.local/state/metronome/practice.jsonl). On a terminal it draws charts to its width; \
            piped, it prints tab-separated tables; --json prints the same figures as JSON. \
            Lines of the log that are not practice log lines are skipped and counted.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Count runs from this day on (YYYY-MM-DD).", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Count only runs that played this song (a setlist's) or preset.", valueName: "name"))
    var song: String?

    @Option(name: .long, help: ArgumentHelp("Weeks the chart of minutes a day covers, up to today, 1 to 52. Default 4.", valueName: "n"))
    var weeks: Int?

    @Flag(name: .long, help: "Print the figures as one JSON object (totalSeconds, days, presets, pieces, tempos, takes).")
    var json = false

    @Option(name: .long, help: ArgumentHelp("ascii (default) or unicode (bars in eighths of a cell; needs a UTF-8 terminal).", valueName: "style"))
    var style: PictureStyle?

    @Option(name: .long, help: ArgumentHelp("Read this log instead of the practice log.", valueName: "file"), completion: .file())
    var log: String?

    init() {}

    func run() throws {
        let since = try self.since.map { text throws(SessionError) -> CivilDate in
            guard let date = CivilDate(prefixOf: text), text.utf8.count == 10 else {
                throw .badRequest("--since '\(text)' is not a date: use YYYY-MM-DD, e.g. 2026-11-01")
            }
            return date
        }
        if let weeks, !(1...52).contains(weeks) { throw SessionError.badRequest("--weeks \(weeks) is out of range: use 1 to 52") }
        let environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }
        guard let path = log ?? PracticeLogTarget.defaultPath(environment) else {
            throw SessionError.badRequest("no practice log: neither XDG_STATE_HOME nor HOME is set; give --log FILE")
        }
        let summing: PracticeStats.Summing, skipped: Int
        switch PracticeStats.Summing.read(path, into: PracticeStats.Summing(today: .today(), weeks: weeks ?? 4, since: since, piece: song)) {
        case .success(let read)?: (summing, skipped) = read
        case .failure(let error)?: throw SessionError(.unreadable, "cannot read practice log '\(path)': \(error.description)")
        case nil:
            guard log == nil else { throw SessionError(.unreadable, "cannot read practice log '\(path)': No such file or directory") }
            StandardError.report("no practice logged yet in '\(path)': every live run adds a line when it ends")
            (summing, skipped) = (PracticeStats.Summing(today: .today(), weeks: weeks ?? 4, since: since, piece: song), 0)
        }
        let stats = summing.stats
        let report = StatsReport(stats: stats, skipped: skipped)
        if json {
            print(report.json(), terminator: "")
        } else if isatty(STDOUT_FILENO) == 1 {
            print(report.charts(width: TerminalScreen.columns(), unicode: style == .unicode), terminator: "")
        } else {
            print(report.table(), terminator: "")
        }
    }
}
