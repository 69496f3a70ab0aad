import MetronomeTiming

/// A setlist made ready to play: each song's plan, and the one playing.
/// `n` and `p` move through it (`SongSwitcher`); the track switches at the next bar line.
package struct SongList: Sendable, Equatable {
    package struct Song: Sendable, Equatable {
        package var name: String
        /// A tempo song plays on at its tempo; a map's song plays the map, then its last tempo on.
        package var source: TempoPlan.Source

        package init(name: String, source: TempoPlan.Source) {
            self.name = name
            self.source = source
        }
    }

    package var songs: [Song]
    package var current: Int

    package init(songs: [Song], current: Int) {
        precondition(songs.indices.contains(current), "the current song is one of the songs")
        self.songs = songs
        self.current = current
    }

    /// The index of the song `name` names (its case aside), or of the song at place `number` (from 1); nil for none.
    package func index(named name: String) -> Int? {
        songs.firstIndex { $0.name == name } ?? songs.firstIndex { $0.name.lowercased() == name.lowercased() }
    }

    /// `3/12 Waltz`: the song's place and name, as the status line shows it.
    package func place(of index: Int) -> String { "\(index + 1)/\(songs.count) \(songs[index].name)" }

    /// The plan of a song played at `tempo` in `meter`: one endless passage.
    package static func constant(_ tempo: Tempo, meter: Meter) -> TempoPlan.Source {
        .trainer(start: tempo, step: 0, barsPerStep: 1, until: tempo, meter: meter)
    }
}
