import ArgumentParser
import MetronomeAudio
import MetronomeTerminal
import MetronomeSession

/// `metronome`: the command line, read top to bottom. Every option's value
/// is parsed by its own type as the line is read; `run` builds the run once
/// (`makeRun`: which options go together, then the files read) and plays,
/// renders or lists the devices.
public struct MetronomeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Plays the click (the default): a beat on every beat, a bell on the first beat of every bar.",
        usage: "metronome [play] [<options>]",
        discussion: """
            Plays through ALSA until you press q or Ctrl-C, or renders a click track to a file. \
            On a terminal it draws a pendulum that reaches its extreme exactly when each click is heard; \
            when stdout is not a terminal it prints a line per bar.

            Examples:
              metronome --bpm 90
              metronome --bpm 132.5 --meter 3/4 --volume 0.6
              metronome --bpm 160 --meter 2+2+3/8 --subdivide 2 --count-in 1
              metronome --bpm 100 --polyrhythm 3:2 --gap 3:1
              metronome --bpm 80 --step 2/4 --until 120
              metronome --tempo-map song.txt --start-at chorus --loop
              metronome --link --bpm 120
              metronome --bpm 120 --osc 9000   (klick's OSC commands, UDP port 9000)
              metronome --calibrate --input-device hw:1   (once: the round trip)
              metronome --bpm 96 --inspect --input-device hw:1
              metronome --tempo-map song.txt --output song.wav
              metronome --tempo-map song.txt --output song.mid
              metronome --tempo-map daw-export.mid --start-at Chorus
              metronome --setlist tonight.txt --song Waltz   (n / p: next / previous song)
              metronome --bpm 137 --output click.wav --duration 1h
              metronome --bpm 120 --output click.flac --bars 64 --rate 44100
              metronome --bpm 100 --silent --flash   (the beat seen, not heard)
              metronome --preset ballad   (a preset of ~/.config/metronome/config.toml)
              metronome stats             (what you practised: the practice log, charted)
              metronome stats --since 2026-11-01 --song Waltz --json
              metronome help stats        (stats' options)

            Defaults for any option, under its long name, and presets come from \
            $XDG_CONFIG_HOME/metronome/config.toml (TOML: volume = 0.6, device = "pipewire", loop = true); \
            the command line overrides a preset, a preset the defaults.

            Exit status: 0 done, 64 bad option, 65 malformed tempo map or setlist (a MIDI file: at its byte offset), \
            66 unreadable sound file or tempo map, 69 audio device unavailable, \
            73 output cannot be created, 74 audio device or file failed midway, \
            78 bad config file (at its line and column), 128+N stopped by signal N.
            """,
        version: MetronomeVersion.current
    )

    @OptionGroup(title: "Tempo")
    var tempo: TempoOptions

    @OptionGroup(title: "Practice")
    var practice: PracticeOptions

    @OptionGroup(title: "Setlist")
    var setlist: SetlistOptions

    @OptionGroup(title: "Sound")
    var sound: SoundOptions

    @OptionGroup(title: "Length and files")
    var output: OutputOptions

    @OptionGroup(title: "Device")
    var device: DeviceOptions

    @OptionGroup(title: "JACK")
    var jack: JackOptions

    @OptionGroup(title: "Picture")
    var picture: PictureOptions

    @OptionGroup(title: "Playing with others")
    var link: LinkOptions

    @OptionGroup(title: "Listening back")
    var inspector: InspectorOptions

    @OptionGroup(title: "Remote control")
    var osc: OSCOptions

    @OptionGroup(title: "Config file")
    var config: ConfigOptions

    /// `--verbose` or `--quiet`, each as often as given: one of them a run.
    @Flag var verbosity: [VerbosityFlag] = []

    public init() {}

    public func run() throws {
        switch try makeRun() {
        case .listDevices:
            for device in PlaybackDevice.all() { print(device.line) }
        case .session(let settings):
            let outcome = try Session.run(settings)
            // Stopped by a signal and cleaned up: die of it, so a shell loop stops too
            // (this returns only for a signal that does not kill).
            if case .stoppedBy(let signal) = outcome { TerminationSignals.end(by: signal) }
            let status = CommandFailure.status(of: outcome)
            if status != 0 { throw ExitCode(status) }
        }
    }
}
