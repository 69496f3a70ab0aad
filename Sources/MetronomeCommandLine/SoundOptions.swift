import ArgumentParser
import MetronomeTiming
import MetronomeSession

/// What the clicks sound like: their files, level and sample rate.
struct SoundOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Volume from 0 to 1 (e.g. --volume 0.5). Default 1.", valueName: "0..1"))
    var volume: OptionValue<Volume>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Sample rate in Hz, 8000 to 192000 (e.g. --rate 44100). Default 48000.", valueName: "hz"))
    var rate: OptionValue<SampleRate>?

    @Option(name: .long, help: ArgumentHelp("Beat sound, any file libsndfile reads (e.g. --beat-sound tick.flac).", valueName: "file"), completion: .file())
    var beatSound: String?

    @Option(name: .long, help: ArgumentHelp("Bell sound for the first beat of each bar (e.g. --bell-sound bell.ogg).", valueName: "file"), completion: .file())
    var bellSound: String?

    @Option(name: .long, help: ArgumentHelp("Sound of the clicks between beats. Default: the built-in sub.wav.", valueName: "file"), completion: .file())
    var subdivisionSound: String?

    @Option(name: .long, help: ArgumentHelp("Sound of the second voice. Default: the built-in poly.wav.", valueName: "file"), completion: .file())
    var polyrhythmSound: String?

    /// A sound's file named, if at all, by a name.
    func checkFileNames() throws {
        for (option, path) in [("--beat-sound", beatSound), ("--bell-sound", bellSound),
                               ("--subdivision-sound", subdivisionSound), ("--polyrhythm-sound", polyrhythmSound)] where path?.isEmpty == true {
            throw SessionError.badRequest("\(option) needs a file name")
        }
    }
}
