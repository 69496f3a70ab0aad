import ArgumentParser
import MetronomeTiming
import MetronomeRender
import MetronomeSession

/// How long the click track is, and the files written: the rendered track and the trace.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Stop after N bars and the ring of the last sound (e.g. --bars 16).", valueName: "n"))
    var bars: OptionValue<TrackLength>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Stop after this long: 90, 90s, 10m, 1h30m, 2.5m (a bare number is seconds).", valueName: "time"))
    var duration: OptionValue<Playtime>?

    @Option(name: .long, help: ArgumentHelp("Render to a file instead of playing: .wav, .flac, .ogg, .aiff, or .mid (a Standard MIDI File: GM metronome notes on channel 10 and the tempo map); needs --bars or --duration (e.g. --output click.wav).", valueName: "file"), completion: .file())
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Sample format of --output (float: .wav and .aiff only). Default pcm16.", valueName: "format"))
    var format: SampleFormat?

    @Flag(name: .long, help: "Replace an existing --output, --trace or --report file even if it is read-only.")
    var force = false

    /// How long the track is: `--bars` or `--duration` (at least a frame at `rate`), or endless.
    func length(rate: SampleRate) throws -> TrackLength {
        switch (bars, duration) {
        case (.some, .some):
            throw SessionError.badRequest("--bars and --duration both set the length: give one of them")
        case (.some(let bars), nil):
            return try bars.value()
        case (nil, .some(let duration)):
            let playtime = try duration.value()
            guard playtime.frames(at: rate) > 0 else {
                throw SessionError.badRequest("duration '\(duration.text)' is shorter than one frame at \(rate.framesPerSecond) Hz: use e.g. 1s")
            }
            return .playtime(playtime)
        case (nil, nil):
            return .endless
        }
    }

    @Option(name: .long, help: ArgumentHelp("Write JSON Lines of clicks, drawn frames and tempo to FILE (e.g. --trace run.jsonl).", valueName: "file"), completion: .file())
    var trace: String?
}
