import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeListening
import SystemPackage

/// Where a live run logs itself, and what the command line knows of it.
package struct PracticeLogTarget: Sendable, Equatable {
    /// `$XDG_STATE_HOME/metronome/practice.jsonl`.
    package let path: String
    /// `--preset`'s name.
    package let preset: String?
    /// `--setlist`'s file.
    package let setlist: String?

    package init(path: String, preset: String? = nil, setlist: String? = nil) {
        self.path = path
        self.preset = preset
        self.setlist = setlist
    }

    /// `$XDG_STATE_HOME/metronome/practice.jsonl`, or under `~/.local/state` without it; nil without either.
    package static func defaultPath(_ environment: (String) -> String?) -> String? {
        let base = environment("XDG_STATE_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? environment("HOME").map { $0 + "/.local/state" }
        return base.map { $0 + "/metronome/practice.jsonl" }
    }
}

/// What a live run did, tallied by the loop as it plays: the time it played
/// (not paused), the tempos its beats played at, the songs it started.
struct PracticeTally {
    private(set) var playingNanoseconds: Int64 = 0
    private var last: (at: MonotonicInstant, playing: Bool)?
    private(set) var slowest: Tempo?
    private(set) var fastest: Tempo?
    private(set) var lastTempo: Tempo?
    private(set) var beats = 0
    /// The meter of the first beat.
    private(set) var meter: Meter?
    private(set) var songs: [String] = []

    /// The loop woke at `now`, playing or not since the last wake.
    mutating func wake(at now: MonotonicInstant, playing: Bool) {
        if let last, last.playing { playingNanoseconds += max(0, now.nanoseconds - last.at.nanoseconds) }
        last = (now, playing)
    }

    /// A beat played at `tempo` in a bar of `meter`.
    mutating func beat(at tempo: Tempo, in meter: Meter) {
        if beats == 0 { self.meter = meter }
        beats += 1
        lastTempo = tempo
        if slowest.map({ tempo < $0 }) ?? true { slowest = tempo }
        if fastest.map({ tempo > $0 }) ?? true { fastest = tempo }
    }

    mutating func started(song name: String) { songs.append(name) }
}

/// A wall-clock instant as ISO 8601 with the local offset: `2026-11-28T00:41:02+01:00`.
struct WallClockStamp {
    let text: String

    static func now() -> WallClockStamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec, parts = tm()
        localtime_r(&seconds, &parts)
        let offset = parts.tm_gmtoff / 60
        let sign = offset < 0 ? "-" : "+"
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(parts.tm_year + 1900)-\(two(Int(parts.tm_mon) + 1))-\(two(Int(parts.tm_mday)))"
        let time = "\(two(Int(parts.tm_hour))):\(two(Int(parts.tm_min))):\(two(Int(parts.tm_sec)))"
        return WallClockStamp(text: "\(date)T\(time)\(sign)\(two(abs(offset) / 60)):\(two(abs(offset) % 60))")
    }
}

/// One line of the practice log: a JSON object a run appends when it ends.
struct PracticeRecord {
    var start: WallClockStamp
    var end: WallClockStamp
    var tally: PracticeTally
    var target: PracticeLogTarget
    var meter: Meter
    /// The speed trainer's start tempo, if it ran.
    var trainerStart: Tempo?
    /// `--inspect`'s take.
    var take: TakeStatistics?

    /// The record as one line of JSON, newline included.
    var line: String {
        var fields = ["\"start\":\(Self.string(start.text))", "\"end\":\(Self.string(end.text))",
                      "\"playingSeconds\":\(Self.decimal(tally.playingNanoseconds / 1_000_000, places: 3))"]
        if let preset = target.preset { fields.append("\"preset\":\(Self.string(preset))") }
        if let setlist = target.setlist { fields.append("\"setlist\":\(Self.string(setlist))") }
        if !tally.songs.isEmpty { fields.append("\"songs\":[\(tally.songs.map(Self.string).joined(separator: ","))]") }
        if let slowest = tally.slowest, let fastest = tally.fastest {
            fields.append("\"bpmMin\":\(Self.bpm(slowest))")
            fields.append("\"bpmMax\":\(Self.bpm(fastest))")
        }
        fields.append("\"meter\":\(Self.string("\(tally.meter ?? meter)"))")
        if let trainerStart {
            fields.append("\"trainerStart\":\(Self.bpm(trainerStart))")
            if let reached = tally.lastTempo { fields.append("\"trainerEnd\":\(Self.bpm(reached))") }
        }
        if let take {
            var figures = ["\"notes\":\(take.hits)", "\"misses\":\(take.misses)"]
            if let mean = take.mean, mean.isFinite { figures.append("\"meanMs\":\(Self.rounded(mean))") }
            if let spread = take.standardDeviation, spread.isFinite { figures.append("\"spreadMs\":\(Self.rounded(spread))") }
            fields.append("\"take\":{\(figures.joined(separator: ","))}")
        }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    static func bpm(_ tempo: Tempo) -> String { decimal(tempo.millibeatsPerMinute, places: 3) }

    /// `value` in units of 10^-places, written shortest: 72000 at 3 places is `72`, 72500 `72.5`.
    static func decimal(_ value: Int64, places: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let sign = value < 0 ? "-" : "", magnitude = value.magnitude
        var fraction = String(magnitude % UInt64(scale))
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return sign + String(magnitude / UInt64(scale)) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// Milliseconds to the microsecond.
    static func rounded(_ milliseconds: Double) -> String {
        decimal(Int64((milliseconds * 1_000).rounded()), places: 3)
    }

    static func string(_ text: String) -> String { quotedString(text) }
}

/// Appends one line to the practice log in one `write` with `O_APPEND`: two
/// runs logging at once never interleave, and a line is whole or absent.
enum PracticeLog {
    /// Appends `line` to `path`, making its folders; says why not when it could not.
    static func append(_ line: String, to path: String) -> String? {
        // Mode 0700, as the XDG base directories ask.
        if let failure = FilePath.makeDirectories(FilePath.directory(of: path), mode: 0o700) {
            return "cannot make \(failure.directory): \(failure.error.description)"
        }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return Errno(rawValue: errno).description }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        // The blocks reserved first: on a full disk the line is refused whole, not written in part.
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
            let reserved = reserveBlocks(descriptor, 1 /* FALLOC_FL_KEEP_SIZE */, status.st_size, off_t(bytes.count))
            if reserved != 0, errno == ENOSPC || errno == EDQUOT { return Errno(rawValue: errno).description }
        }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written == bytes.count { return nil }
        let reason = written < 0 ? Errno(rawValue: errno).description : "only \(written) of \(bytes.count) bytes written"
        // A part written anyway is taken back: the file ends where it did.
        if written > 0 { ftruncate(descriptor, lseek(descriptor, 0, SEEK_CUR) - off_t(written)) }
        return reason
    }
}

/// glibc's `fallocate(2)`, which its Swift module leaves out (it is a GNU extension).
@_silgen_name("fallocate")
private func reserveBlocks(_ descriptor: Int32, _ mode: Int32, _ offset: off_t, _ length: off_t) -> Int32
