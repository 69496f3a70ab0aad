import Glibc

/// `--trace FILE`: JSON Lines of what was played and drawn, written as it happens.
///
/// `click` for every sound started, `frame` for every picture drawn, `tempo`
/// when the tempo is set. Bars and beats in bars count from 1, as the status
/// line shows them; `beat` counts every click from 0.
public final class Trace {
    private let file: UnsafeMutablePointer<FILE>
    public let path: String

    public init(path: String) throws(MetronomeError) {
        guard let file = fopen(path, "w") else {
            throw MetronomeError(.cannotCreate, "cannot create trace '\(path)': \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.path = path
    }

    deinit { fclose(file) }

    /// Count-in bars are `-N` to `-1` with `"countIn":true`; a subdivision
    /// or a second-voice click has its `index` in its beat or bar.
    public func click(_ click: StartedClick) {
        let countIn = click.bar < 0
        var text = "{\"type\":\"click\",\"frame\":\(click.frame),\"beat\":\(click.click),\"bar\":\(countIn ? click.bar : click.bar + 1),"
        text += "\"beatInBar\":\(click.beatInBar + 1),\"sound\":\"\(click.sound)\""
        if !click.sound.isBeat { text += ",\"index\":\(click.index)" }
        if countIn { text += ",\"countIn\":true" }
        line(text + "}")
    }

    public func frame(time: MonotonicInstant, audioFrame: Int64, angle: Double) {
        let seconds = Double(time.nanoseconds) / 1e9
        line("{\"type\":\"frame\",\"time\":\(seconds),\"audioFrame\":\(audioFrame),\"angle\":\(angle)}")
    }

    public func tempo(_ tempo: Tempo, frame: Int64) {
        line("{\"type\":\"tempo\",\"bpm\":\"\(tempo)\",\"frame\":\(frame)}")
    }

    /// Pushes buffered lines to the file.
    public func flush() { fflush(file) }

    private func line(_ text: String) {
        fputs(text, file)
        fputc(10, file)
    }
}

/// Which new passages change the tempo, as the trace reports it: a passage
/// at the same tempo whose clicks fall where the previous grid put them is no change.
struct TempoChanges {
    /// The passage playing before: the track's first, whose tempo the trace reports at frame 0.
    private var last: Passage

    init(after first: Passage) {
        last = first
    }

    /// The frame of the first click at the new tempo, or nil when `passage` changes nothing (or pauses).
    mutating func firstFrame(ofChangeTo passage: Passage) -> Int64? {
        guard !passage.paused else { return nil }
        defer { last = passage }
        let first = passage.frame(ofClick: passage.firstClick)
        if last.tempo == passage.tempo, last.frame(ofClick: passage.firstClick) == first { return nil }
        return first
    }
}
