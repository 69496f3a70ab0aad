import ArgumentParser
import MetronomeTiming
import MetronomePendulum
import MetronomeSession

/// The pendulum on the terminal.
struct PictureOptions: ParsableArguments {
    @Flag(name: .long, help: "Sound only: no pendulum on the terminal.")
    var noPendulum = false

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("How far the pendulum swings each way, 1 to 90 degrees (e.g. --angle 20). Default 30.", valueName: "degrees"),
            transform: OptionValue.parsed { text throws(SessionError) in
                guard let milli = ExactDecimal.parse(text, places: 3, in: 1_000...90_000) else {
                    throw .badRequest("angle '\(text)' is not allowed: use degrees from 1 to 90, e.g. 30")
                }
                return Double(milli) / 1000
            })
    var angle: Double?

    @Option(name: .long, help: ArgumentHelp("The pendulum's motion between clicks. Default ease-in-out.", valueName: "curve"))
    var easing: Easing?

    @Option(name: .long, help: ArgumentHelp("Where the click falls in the swing. Default edge.", valueName: "position"))
    var clickAt: PendulumMotion.ClickPosition?

    @Option(name: .long, help: ArgumentHelp("How the pendulum is drawn; unicode draws lines and the rod in braille dots (needs a UTF-8 terminal). Default ascii.", valueName: "style"))
    var style: PictureStyle?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Show the picture this many ms later than the sound (negative: earlier), for Bluetooth or slow displays (e.g. --visual-offset 40).", valueName: "ms"),
            transform: OptionValue.parsed { text throws(SessionError) in
                let trimmed = text.trimmingSpaces
                let negative = trimmed.hasPrefix("-")
                guard let micro = ExactDecimal.parse(String(trimmed.dropFirst(negative ? 1 : 0)), places: 3, in: 0...2_000_000) else {
                    throw .badRequest("visual offset '\(text)' is not allowed: use milliseconds from -2000 to 2000, e.g. 40")
                }
                return negative ? -micro : micro
            })
    var visualOffset: Int64?

    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Pictures drawn per second, 1 to 240 (e.g. --fps 30). Default 60.", valueName: "n"),
            transform: OptionValue.parsed { text throws(SessionError) in
                guard let value = Int(text.trimmingSpaces), (1...240).contains(value) else {
                    throw .badRequest("fps '\(text)' is not allowed: use a whole number from 1 to 240, e.g. 60")
                }
                return value
            })
    var fps: Int?

    /// Puts the picture's settings in `settings`.
    func apply(to settings: inout Settings) {
        settings.pendulum = !noPendulum
        if let angle { settings.swingAngle = angle }
        if let easing { settings.easing = easing }
        if let clickAt { settings.clickAt = clickAt }
        if let style { settings.style = style }
        if let visualOffset { settings.visualOffsetMicroseconds = visualOffset }
        if let fps { settings.framesPerSecond = fps }
    }
}
