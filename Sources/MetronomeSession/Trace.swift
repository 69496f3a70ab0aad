import Glibc
import MetronomeAudio
import MetronomeRender
import MetronomeSupport
import MetronomeTiming
import SystemPackage

/// `--trace FILE`: JSON Lines of what was played and drawn, written as it happens.
///
/// `click` for every sound started, `frame` for every picture drawn, `tempo`
/// when the tempo is set, `song` when a setlist's song plays, `hit` for a note
/// `--inspect` matched, `judged` for a bar the adaptive trainer judged. Bars and beats in bars count from 1, as the status
/// line shows them; `beat` counts every click from 0.
package final class Trace {
    private let descriptor: Int32
    package let path: String
    /// Lines made since the last flush.
    private var pending: [UInt8] = []
    /// Why the trace could not be written, once it could not; nothing more is written then.
    package private(set) var failure: String?
    /// How long a flush may wait for a reader that is slow to read (a FIFO, a pipe).
    static let flushWaitMilliseconds: Int32 = 2000

    /// Creates or truncates `path`, a read-only file only when `force`. Opened without
    /// blocking: a FIFO nobody reads is refused at once (`ENXIO`) instead of hanging the program.
    package init(path: String, force: Bool) throws(SessionError) {
        do {
            try OutputTarget(path: path).checkWritable(force: force)
        } catch {
            throw SessionError(.cannotCreate, error.message)
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "it is a FIFO that no process reads" : Errno(rawValue: errno).description
            throw SessionError(.cannotCreate, "cannot create trace '\(path)': \(reason)")
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Count-in bars are `-N` to `-1` with `"countIn":true`; a subdivision
    /// or a second-voice click has its `index` in its beat or bar.
    package func click(_ click: StartedClick) {
        let countIn = click.bar < 0
        var text = "{\"type\":\"click\",\"frame\":\(click.frame),\"beat\":\(click.click),\"bar\":\(countIn ? click.bar : click.bar + 1),"
        text += "\"beatInBar\":\(click.beatInBar + 1),\"sound\":\"\(click.sound)\""
        if !click.sound.isBeat { text += ",\"index\":\(click.index)" }
        if countIn { text += ",\"countIn\":true" }
        line(text + "}")
    }

    /// A picture drawn; with `--flash`, what it flashes for (`bell`, `beat`), if it does.
    package func frame(time: MonotonicInstant, audioFrame: Int64, angle: Double, flash: String? = nil) {
        let seconds = Double(time.nanoseconds) / 1e9
        let flashing = flash.map { ",\"flash\":\"\($0)\"" } ?? ""
        line("{\"type\":\"frame\",\"time\":\(seconds),\"audioFrame\":\(audioFrame),\"angle\":\(angle)\(flashing)}")
    }

    /// The first lines of a run: its first tempo, and the song playing when a setlist plays.
    func begin(tempo: Tempo, songs: SongList?) {
        self.tempo(tempo, frame: 0)
        if let songs { song(songs.current, in: songs, frame: 0) }
    }

    /// Song `index` of `list` (counted from 0), starting at `frame`.
    func song(_ index: Int, in list: SongList, frame: Int64) {
        song(index + 1, of: list.songs.count, name: list.songs[index].name, frame: frame)
    }

    /// A setlist's song, from 1 of `count`, starting at `frame` (its first bar line, or the pause it was chosen in).
    package func song(_ number: Int, of count: Int, name: String, frame: Int64) {
        line("{\"type\":\"song\",\"song\":\(number),\"of\":\(count),\"name\":\(quotedString(name)),\"frame\":\(frame)}")
    }

    /// `--inspect`: a note the player played at output frame `frame`, aimed at click `beat`, `offsetMs` off it (negative early).
    package func hit(frame: Int64, beat: Int64, offsetMilliseconds: Double) {
        line("{\"type\":\"hit\",\"frame\":\(frame),\"beat\":\(beat),\"offsetMs\":\(offsetMilliseconds)}")
    }

    /// `--when-tight`: a bar the adaptive trainer judged (from 1), its first click (`beat`), the
    /// tempo it was played at, how it was played (`tight`, with the furthest note; `off` or `missed`,
    /// with the first beat that was) and what the trainer did (`counted`, `passedOver` for a bar
    /// of a tempo it has left, `held`, `step` or `back`, with the tempo asked for from the next bar line).
    package func judged(bar: Int64, firstClick: Int64, playedAt: Tempo, verdict: AdaptiveTrainer.Verdict,
                        decision: AdaptiveTrainer.Decision, rate: SampleRate) {
        var text = "{\"type\":\"judged\",\"bar\":\(bar + 1),\"beat\":\(firstClick),\"bpm\":\"\(playedAt)\","
        let milliseconds = { (frames: Int64) in Double(frames) * 1_000 / Double(rate.framesPerSecond) }
        switch verdict {
        case .tight(let worst): text += "\"verdict\":\"tight\",\"offsetMs\":\(milliseconds(worst))"
        case .off(let beat, let offset): text += "\"verdict\":\"off\",\"beatInBar\":\(beat + 1),\"offsetMs\":\(milliseconds(offset))"
        case .missed(let beat): text += "\"verdict\":\"missed\",\"beatInBar\":\(beat + 1)"
        }
        switch decision {
        case .counted: text += ",\"decision\":\"counted\""
        case .passedOver: text += ",\"decision\":\"passedOver\""
        case .held: text += ",\"decision\":\"held\""
        case .step(let tempo): text += ",\"decision\":\"step\",\"to\":\"\(tempo)\""
        case .stepBack(let tempo): text += ",\"decision\":\"back\",\"to\":\"\(tempo)\""
        }
        line(text + "}")
    }

    package func tempo(_ tempo: Tempo, frame: Int64) {
        line("{\"type\":\"tempo\",\"bpm\":\"\(tempo)\",\"frame\":\(frame)}")
    }

    /// Writes the lines made so far; a write that fails (a full disk,
    /// `/dev/full`, a reader that went away or stopped reading) sets `failure`.
    package func flush() {
        guard failure == nil, !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        errno = 0
        if !BoundedWrite.write(descriptor, pending, waitingAtMost: Self.flushWaitMilliseconds) {
            failure = errno == 0 ? "nothing read it for \(Self.flushWaitMilliseconds / 1000) s" : Errno(rawValue: errno).description
        }
    }

    /// The error to end the run with when the trace could not be written.
    package var error: SessionError? {
        failure.map { SessionError(.writeFailed, "cannot write trace '\(path)': \($0)") }
    }

    private func line(_ text: String) {
        guard failure == nil else { return }
        pending.append(contentsOf: text.utf8)
        pending.append(10)
    }
}
