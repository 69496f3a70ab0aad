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
