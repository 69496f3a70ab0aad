import Glibc
import MetronomeTiming
import SystemPackage

/// Finds and loads the beat and bell sounds.
///
/// The built-in sounds are looked up in `$METRONOME_SOUNDS`, then
/// `PREFIX/share/metronome/Sounds` beside an installed `PREFIX/bin/metronome`,
/// then the `Sounds` folder of the source tree the binary was built from.
package enum SoundLibrary {
    package static let environmentVariable = "METRONOME_SOUNDS"

    /// The folders searched for built-in sounds, in order.
    package static func searchPath() -> [String] {
        var folders: [String] = []
        if let override = getenv(environmentVariable), override.pointee != 0 {
            folders.append(String(cString: override))
        }
        if let executable = executablePath() {
            let bin = FilePath.directory(of: executable)
            folders.append(FilePath.directory(of: bin) + "/share/metronome/Sounds")
        }
        // Sources/MetronomeAudio/SoundLibrary.swift → the repository root.
        var source = "\(#filePath)"
        for _ in 0..<3 { source = FilePath.directory(of: source) }
        folders.append(source + "/Sounds")
        return folders
    }

    /// The path of a built-in sound, from the first folder that holds it.
    package static func builtIn(_ name: String) throws(SoundError) -> String {
        for folder in searchPath() {
            let path = "\(folder)/\(name)"
            if access(path, R_OK) == 0 { return path }
        }
        throw SoundError(.unreadable, "built-in sound '\(name)' not found in \(searchPath().joined(separator: ", ")); set \(environmentVariable)")
    }

    /// The beat and bell at `rate`: the user's files where given, else the built-in ones.
    /// `betweenPieces` runs between pieces of a long conversion (see `Resampler`).
    package static func load(beat: String?, bell: String?, rate: SampleRate,
                            betweenPieces: () -> Void = {}) throws(SoundError) -> (beat: Sound, bell: Sound) {
        let beatSound = try Sound.load(contentsOf: try path(beat, orBuiltIn: "beat.wav"), rate: rate, betweenPieces: betweenPieces)
        let bellSound = try Sound.load(contentsOf: try path(bell, orBuiltIn: "bell.wav"), rate: rate, betweenPieces: betweenPieces)
        return (beatSound, bellSound)
    }

    /// Every sound a rhythm plays at `rate`: the beat and the bell, and the
    /// subdivision tick and second voice only when the rhythm has them.
    /// `count`: the spoken count asked for, if any, and the folder of its words (nil: the built-in voice).
    package static func load(beat: String?, bell: String?, subdivision: String?, polyrhythm: String?,
                            rhythm: Rhythm, rate: SampleRate, count: (subdivided: Bool, folder: String?)? = nil,
                            betweenPieces: () -> Void = {}) throws(SoundError) -> ClickSounds {
        let (beatSound, bellSound) = try load(beat: beat, bell: bell, rate: rate, betweenPieces: betweenPieces)
        var sounds = ClickSounds(beat: beatSound, bell: bellSound)
        if rhythm.subdivision.clicksPerBeat > 1 {
            sounds.subdivision = try Sound.load(contentsOf: try path(subdivision, orBuiltIn: "sub.wav"), rate: rate, betweenPieces: betweenPieces)
        }
        if rhythm.polyrhythm != nil {
            sounds.polyrhythm = try Sound.load(contentsOf: try path(polyrhythm, orBuiltIn: "poly.wav"), rate: rate, betweenPieces: betweenPieces)
        }
        if let count {
            sounds.count = try CountVoice.load(folder: count.folder, subdivided: count.subdivided, rate: rate, betweenPieces: betweenPieces)
        }
        return sounds
    }

    private static func path(_ given: String?, orBuiltIn name: String) throws(SoundError) -> String {
        if let given { return given }
        return try builtIn(name)
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

}

/// The sounds of a run: nil where the rhythm does not use one.
package struct ClickSounds: Sendable {
    package var beat: Sound
    package var bell: Sound
    package var subdivision: Sound?
    package var polyrhythm: Sound?
    /// The spoken count's words (`--count voice`), if the beats are spoken.
    package var count: CountVoice?

    package init(beat: Sound, bell: Sound, subdivision: Sound? = nil, polyrhythm: Sound? = nil, count: CountVoice? = nil) {
        self.beat = beat
        self.bell = bell
        self.subdivision = subdivision
        self.polyrhythm = polyrhythm
        self.count = count
    }

    /// The main voice's sounds, for the headroom: what a bar of `rhythm` plays.
    package func mainVoice(rhythm: Rhythm, meter: Meter) -> [[Float]] {
        var sounds = meter.beatsPerBar > 1 || rhythm.pattern != nil ? [beat.samples, bell.samples] : [bell.samples]
        if let subdivision, rhythm.subdivision.clicksPerBeat > 1 { sounds.append(subdivision.samples) }
        // The words sound with the bell and the clicks they do not replace.
        if let count { sounds += count.sounds.map(\.samples) }
        return sounds
    }

    /// The headroom for every tempo these sounds can be played at.
    package func headroom(rhythm: Rhythm, meter: Meter) -> Headroom {
        Headroom(sounds: mainVoice(rhythm: rhythm, meter: meter), rhythm: rhythm, polyrhythmSound: polyrhythm?.samples)
    }
}
