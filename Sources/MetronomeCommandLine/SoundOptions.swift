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

    @Option(name: .long, help: ArgumentHelp("Speak the count: voice says each beat's number in the bar instead of its click (the bell kept on each bar's first beat); voice-subdivided also says \"and\", \"and a\" or \"e and a\" on --subdivide 2, 3 or 4.", valueName: "voice|voice-subdivided"))
    var count: CountStyle?

    @Option(name: .long, help: ArgumentHelp("With --count: a folder of one's own recorded words, 1.wav to 16.wav, and.wav, e.wav and a.wav (e.g. --voice ~/count).", valueName: "folder"), completion: .directory)
    var voice: String?

    /// `--count`'s styles.
    enum CountStyle: String, ExpressibleByArgument, CaseIterable, Sendable {
        case voice
        case voiceSubdivided = "voice-subdivided"
    }

    /// The spoken count asked for, checked against what places the beats as they come
    /// (a word starts before its click, so its beats must be known ahead).
    func countSettings(link: Bool, jack: JackOptions) throws(SessionError) -> Settings.Count? {
        if voice?.isEmpty == true { throw .badRequest("--voice needs a folder name") }
        guard let count else {
            if voice != nil { throw .badRequest("--voice is the spoken count's: add --count voice") }
            return nil
        }
        let placedAsTheyCome = [("--link", link), ("--transport follow", jack.transport == .follow), ("--follow-midi-clock", jack.followMidiClock)]
        if let (option, _) = placedAsTheyCome.first(where: \.1) {
            throw .badRequest("--count speaks each word ahead of its beat; \(option) places the beats as they come: use one or the other")
        }
        return Settings.Count(subdivided: count == .voiceSubdivided, voice: voice)
    }

    /// A sound's file named, if at all, by a name.
    func checkFileNames() throws {
        for (option, path) in [("--beat-sound", beatSound), ("--bell-sound", bellSound),
                               ("--subdivision-sound", subdivisionSound), ("--polyrhythm-sound", polyrhythmSound)] where path?.isEmpty == true {
            throw SessionError.badRequest("\(option) needs a file name")
        }
    }
}
