/// A click as a General MIDI note on the drum channel (10, counted from 1):
/// Metronome Bell (34) on bells and accents, Metronome Click (33) on beats,
/// subdivisions and the second voice, the velocity from the click's level.
/// One mapping for the `.mid` export and the live notes on JACK MIDI.
package struct ClickNote: Equatable, Sendable {
    package static let clickKey: UInt8 = 33
    package static let bellKey: UInt8 = 34
    /// The drum channel, counted from 0 as MIDI's status byte has it.
    package static let drumChannel: UInt8 = 9

    package let key: UInt8
    package let velocity: UInt8

    /// The note of `click` at the run's `volume`; nil for a click with no level (a muted accent level).
    package init?(_ click: StartedClick, volume: Float) {
        let level = click.level * volume
        guard level > 0 else { return nil }
        // A softer stroke between beats than on them.
        let stroke: Float = click.sound == .subdivision ? 0.75 : 1
        velocity = UInt8(max(1, min(127, (127 * level * stroke).rounded())))
        key = click.sound == .bell || click.sound == .accent ? Self.bellKey : Self.clickKey
    }
}
