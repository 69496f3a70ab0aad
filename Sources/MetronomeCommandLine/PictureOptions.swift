import ArgumentParser
import MetronomePendulum
import MetronomeSession

/// The pendulum on the terminal.
struct PictureOptions: ParsableArguments {
    @Flag(name: .long, help: "Sound only: no pendulum on the terminal.")
    var noPendulum = false

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("How far the pendulum swings each way, 1 to 90 degrees (e.g. --angle 20). Default 30.", valueName: "degrees"))
    var angle: OptionValue<SwingAngle>?

    @Option(name: .long, help: ArgumentHelp("The pendulum's motion between clicks. Default ease-in-out.", valueName: "curve"))
    var easing: Easing?

    @Option(name: .long, help: ArgumentHelp("Where the click falls in the swing. Default edge.", valueName: "position"))
    var clickAt: PendulumMotion.ClickPosition?

    @Option(name: .long, help: ArgumentHelp("How the pendulum is drawn; unicode draws lines and the rod in braille dots (needs a UTF-8 terminal). Default ascii.", valueName: "style"))
    var style: PictureStyle?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Show the picture this many ms later than the sound (negative: earlier), for Bluetooth or slow displays (e.g. --visual-offset 40).", valueName: "ms"))
    var visualOffset: OptionValue<VisualOffset>?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Pictures drawn per second, 1 to 240 (e.g. --fps 30). Default 60.", valueName: "n"))
    var fps: OptionValue<PictureRate>?

    @Flag(name: .long, help: "A visual beat: the picture in reverse video for 100 ms after each bell (at most half a beat), the status line after each other beat.")
    var flash = false

    /// The picture these options ask for, the rest as by default.
    func settings() throws -> Settings.Picture {
        if flash, noPendulum { throw SessionError.badRequest("--flash is drawn on the picture: it does not go with --no-pendulum") }
        let standard = Settings.Picture()
        return Settings.Picture(pendulum: !noPendulum, swingAngle: try angle?.value().degrees ?? standard.swingAngle,
                                easing: easing ?? standard.easing, clickAt: clickAt ?? standard.clickAt, style: style ?? standard.style,
                                visualOffsetMicroseconds: try visualOffset?.value().microseconds ?? standard.visualOffsetMicroseconds,
                                framesPerSecond: try fps?.value().framesPerSecond ?? standard.framesPerSecond, flash: flash)
    }
}
