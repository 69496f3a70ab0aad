import ArgumentParser
import SystemPackage
import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeTerminal
import MetronomeSession

/// `--setlist FILE` and `--song NAME`: a show's songs, and the one to start with.
struct SetlistOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Play a show's songs, one a line: 'name: TEMPO [METER]' or 'name: FILE' (a klick map or MIDI file, relative to the setlist), # comments; keys n and p move to the next and previous song at the next bar line.", valueName: "file"), completion: .file())
    var setlist: String?

    @Option(name: .long, help: ArgumentHelp("Start the setlist at the song of this name (e.g. --song Waltz).", valueName: "name"))
    var song: String?

    /// The checks that need no file: which options go together.
    func check(tempoMap: String?, bpm: Tempo?, meter: Meter?, trainer: Bool, startAt: String?, loop: Bool) throws {
        guard let setlist else {
            if song != nil { throw SessionError.badRequest("--song picks a song of a --setlist: add --setlist FILE") }
            return
        }
        guard !setlist.isEmpty else { throw SessionError.badRequest("--setlist needs a file name") }
        guard tempoMap == nil, bpm == nil, meter == nil, !trainer, startAt == nil, !loop else {
            throw SessionError.badRequest("--setlist sets each song's tempo and meter: drop --tempo-map, --bpm, --meter, --step, --until, --start-at and --loop")
        }
    }

    /// The setlist read, each song's file read and parsed: any bad line or
    /// file stops here, before anything plays. `files` are the songs' files, by song.
    func read() throws -> (songs: SongList, files: [(song: String, path: String)])? {
        guard let path = setlist else { return nil }
        let bytes = try readInputFile(path, cannotRead: "cannot read setlist '\(path)'")
        let list = try Setlist(parsing: bytes, name: path)
        let directory = FilePath(path).removingLastComponent()
        var songs: [SongList.Song] = []
        var files: [(song: String, path: String)] = []
        for song in list.songs {
            switch song.kind {
            case .tempo(let tempo, let meter):
                songs.append(SongList.Song(name: song.name, source: SongList.constant(tempo, meter: meter)))
            case .file(let file):
                let resolved = file.hasPrefix("/") || path == "-" ? file : directory.appending(file).string
                files.append((song.name, resolved))
                let contents = try readInputFile(resolved, cannotRead: "\(path):\(song.line):\(song.column): cannot read '\(resolved)'")
                let map: TempoMap
                do {
                    map = MIDIFile.isMIDIFile(contents, name: resolved)
                        ? try TempoMap(midi: try MIDIFile(parsing: contents, name: resolved), name: resolved)
                        : try TempoMap(parsing: contents, name: resolved)
                } catch {
                    // The song's line first: which line of the show pointed to the file, then the file's own place.
                    throw TimingError(error.kind, "\(path):\(song.line):\(song.column): song '\(song.name)': \(error.message)")
                }
                songs.append(SongList.Song(name: song.name, source: .map(map, first: 0, loops: false)))
            }
        }
        var current = 0
        if let name = song {
            guard let index = list.index(named: name) else {
                let names = list.songs.prefix(5).map(\.name).joined(separator: ", ")
                let more = list.songs.count > 5 ? " and \(list.songs.count - 5) more" : ""
                throw SessionError.badRequest("--song '\(name)': '\(path)' has no song of that name; its songs are \(names)\(more)")
            }
            current = index
        }
        return (SongList(songs: songs, current: current), files)
    }
}
