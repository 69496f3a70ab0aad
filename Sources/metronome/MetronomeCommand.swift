import ArgumentParser
import Metronome

/// `metronome`: the command line, read top to bottom.
struct MetronomeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metronome",
        abstract: "A sample-accurate metronome: a beat on every beat, a bell on the first beat of every bar.",
        discussion: """
            Plays through ALSA until you press q or Ctrl-C, or renders a click track to a file.
            On a terminal it draws a pendulum that reaches its extreme exactly when each click
            is heard; when stdout is not a terminal it prints a line per bar.

            Examples:
              metronome --bpm 90
              metronome --bpm 132.5 --meter 3/4 --volume 0.6
              metronome --bpm 160 --meter 2+2+3/8 --subdivide 2 --count-in 1
              metronome --bpm 100 --polyrhythm 3:2 --gap 3:1
              metronome --bpm 80 --step 2/4 --until 120
              metronome --tempo-map song.txt --start-at chorus --loop
              metronome --tempo-map song.txt --output song.wav
              metronome --bpm 137 --output click.wav --duration 1h
              metronome --bpm 120 --output click.flac --bars 64 --rate 44100

            Exit status: 0 done, 64 bad option, 65 malformed tempo map,
            66 unreadable sound file or tempo map,
            69 audio device unavailable, 73 output cannot be created,
            74 audio device or file failed midway, 128+N stopped by signal N.
            """,
        version: MetronomeVersion.current
    )

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tempo in beats per minute, 1 to 1000, up to 3 decimals (e.g. --bpm 92.5).", valueName: "bpm"))
    var bpm: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Beats per bar / note value; the bell rings on beat 1 (e.g. --meter 3/4). Default 4/4.", valueName: "n/d"))
    var meter: String?

    @Option(name: .long, help: ArgumentHelp("One character a beat: X bell, x beat, . silent; as long as the bar (e.g. --pattern X.xx).", valueName: "pattern"))
    var pattern: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Clicks a beat, 2 to 9: the ones between beats play a softer tick (e.g. --subdivide 3).", valueName: "n"))
    var subdivide: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Swing: the second of two clicks a beat falls at this share of the beat, 0.5 to 0.75 (e.g. --swing 0.667).", valueName: "ratio"))
    var swing: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Level of the clicks between beats, 0 to 1. Default 1.", valueName: "0..1"))
    var subdivisionVolume: String?

    @Option(name: .long, help: ArgumentHelp("Sound of the clicks between beats. Default: the built-in sub.wav.", valueName: "file"), completion: .file())
    var subdivisionSound: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A second voice of A clicks against every B beats, from each bar start (e.g. --polyrhythm 3:2).", valueName: "a:b"))
    var polyrhythm: String?

    @Option(name: .long, help: ArgumentHelp("Sound of the second voice. Default: the built-in poly.wav.", valueName: "file"), completion: .file())
    var polyrhythmSound: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Bars of count-in before bar 1, played 6 dB softer (e.g. --count-in 1).", valueName: "n"))
    var countIn: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Gap trainer: play P bars, then mute M bars, over and over (e.g. --gap 3:1).", valueName: "p:m"))
    var gap: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Mute this percentage of beats at random (e.g. --random-mute 20).", valueName: "pct"))
    var randomMute: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seed for --random-mute: the same seed mutes the same beats.", valueName: "n"))
    var seed: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Speed trainer: every M bars move the tempo S bpm (negative slows down); needs --until (e.g. --step 5/4).", valueName: "s/m"))
    var step: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Speed trainer: the tempo to stop at, then keep (e.g. --until 140).", valueName: "bpm"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("Play a klick tempo map: lines of '[label:] bars [n/d] tempo[-tempo2|,t2,...] [pattern] [volume]', tempo in quarter notes a minute.", valueName: "file"), completion: .file())
    var tempoMap: String?

    @Option(name: .long, help: ArgumentHelp("Start the tempo map at the entry with this label (e.g. --start-at chorus).", valueName: "label"))
    var startAt: String?

    @Flag(name: .long, help: "Repeat the tempo map (from --start-at, if given) until stopped.")
    var loop = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Volume from 0 to 1 (e.g. --volume 0.5). Default 1.", valueName: "0..1"))
    var volume: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz, 8000 to 192000 (e.g. --rate 44100). Default 48000.", valueName: "hz"))
    var rate: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Stop after N bars and the ring of the last sound (e.g. --bars 16).", valueName: "n"))
    var bars: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Stop after this long: 90, 90s, 10m, 1h30m, 2.5m (a bare number is seconds).", valueName: "time"))
    var duration: String?

    @Option(name: .long, help: ArgumentHelp("Beat sound, any file libsndfile reads (e.g. --beat-sound tick.flac).", valueName: "file"), completion: .file())
    var beatSound: String?

    @Option(name: .long, help: ArgumentHelp("Bell sound for the first beat of each bar (e.g. --bell-sound bell.ogg).", valueName: "file"), completion: .file())
    var bellSound: String?

    @Option(name: .long, help: ArgumentHelp("ALSA device to play on: default, pipewire, pulse, hw:0, plughw:1,0, null (--list-devices shows them). Default: default.", valueName: "name"))
    var device: String?

    @Flag(name: .long, help: "Print the playback devices ALSA knows, one a line with its description, and exit.")
    var listDevices = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Output latency in ms, the ALSA buffer (e.g. --latency 20). Default: what the device holds: 1024-frame periods, four of them, on a sound server (pipewire, pulse, jack); two 256-frame periods on a card.", valueName: "ms"))
    var latency: String?

    @Option(name: .long, help: ArgumentHelp("Render to a file instead of playing: .wav, .flac, .ogg or .aiff; needs --bars or --duration (e.g. --output click.wav).", valueName: "file"), completion: .file())
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Sample format of --output: pcm16 (default) or float (wav, aiff).", valueName: "pcm16|float"))
    var format: String?

    @Flag(name: .long, help: "Replace an existing --output file even if it is read-only.")
    var force = false

    @Flag(name: .long, help: "Sound only: no pendulum on the terminal.")
    var noPendulum = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How far the pendulum swings each way, 1 to 90 degrees (e.g. --angle 20). Default 30.", valueName: "degrees"))
    var angle: String?

    @Option(name: .long, help: ArgumentHelp("The pendulum's motion between clicks: linear, ease-in-out (default) or sine (e.g. --easing sine).", valueName: "curve"))
    var easing: String?

    @Option(name: .long, help: ArgumentHelp("Where the click falls in the swing: edge (default) or center (e.g. --click-at center).", valueName: "edge|center"))
    var clickAt: String?

    @Option(name: .long, help: ArgumentHelp("How the pendulum is drawn: ascii (default) or unicode (line drawing, the rod in braille dots; needs a UTF-8 terminal).", valueName: "ascii|unicode"))
    var style: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Show the picture this many ms later than the sound (negative: earlier), for Bluetooth or slow displays (e.g. --visual-offset 40).", valueName: "ms"))
    var visualOffset: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pictures drawn per second, 1 to 240 (e.g. --fps 30). Default 60.", valueName: "n"))
    var fps: String?

    @Option(name: .long, help: ArgumentHelp("Write JSON Lines of clicks, drawn frames and tempo to FILE (e.g. --trace run.jsonl).", valueName: "file"), completion: .file())
    var trace: String?

    @Flag(name: .long, help: "When stdout is not a terminal, print a line per click instead of per bar.")
    var verbose = false

    @Flag(name: .long, help: "Print nothing on stdout: no pendulum and no lines.")
    var quiet = false

    func settings() throws(MetronomeError) -> Settings {
        try Settings(bpm: bpm, meter: meter, rate: rate, volume: volume, bars: bars, duration: duration,
                     output: output, format: format, device: device, latency: latency,
                     beatSound: beatSound, bellSound: bellSound, pendulum: !noPendulum,
                     angle: angle, easing: easing, clickAt: clickAt, style: style, visualOffset: visualOffset, fps: fps,
                     trace: trace, verbose: verbose, quiet: quiet, force: force,
                     rhythm: RhythmOptions(pattern: pattern, subdivide: subdivide, swing: swing,
                                           subdivisionVolume: subdivisionVolume, subdivisionSound: subdivisionSound,
                                           polyrhythm: polyrhythm, polyrhythmSound: polyrhythmSound, countIn: countIn,
                                           gap: gap, randomMute: randomMute, seed: seed),
                     plan: PlanOptions(tempoMap: tempoMap, startAt: startAt, loop: loop, step: step, until: until))
    }

    func validate() throws {
        do {
            _ = try settings()
        } catch where error.exit == .usage {
            throw ValidationError(error.message)
        } catch {
            // A malformed tempo map (65), an unreadable one (66): `run` reports it with its own status.
        }
    }

    func run() throws {
        if listDevices {
            for device in PlaybackDevice.all() { print(device.line) }
            return
        }
        let status = try Session.run(try settings())
        if status != 0 { throw ExitCode(status) }
    }
}
