import MetronomeSupport
import MetronomeTiming
import MetronomeAudio

/// Moves a live run through a setlist: `n` and `p` ask for the next or the
/// previous song; the song's plan is fed into the plan queue the audio thread
/// is not reading, and the track switches to it at the next bar line (at once
/// when paused) and says so (`SongStart`). One switch is under way at a time:
/// keys pressed meanwhile move the song wanted, asked for once the switch is done.
final class SongSwitcher {
    private(set) var list: SongList
    private let feeder: PlanFeeder
    private let plans: (LockFreeQueue<Passage>, LockFreeQueue<Passage>)
    private let rate: SampleRate
    /// The rhythm of every song after the first: no count-in.
    private let rhythm: Rhythm
    /// The song the track plays, and its plan queue.
    private(set) var playing: Int
    private var playingSlot = 0
    /// The switch under way: the song and its queue.
    private var asked: (song: Int, slot: Int)?
    private var wanted: Int

    init(list: SongList, feeder: PlanFeeder, plans: (LockFreeQueue<Passage>, LockFreeQueue<Passage>), rate: SampleRate, rhythm: Rhythm) {
        self.list = list
        self.feeder = feeder
        self.plans = plans
        self.rate = rate
        var rhythm = rhythm
        rhythm.countInBars = 0
        self.rhythm = rhythm
        playing = list.current
        wanted = list.current
    }

    /// `n` (+1) or `p` (-1): the command to send, if a switch starts now.
    func move(by step: Int) -> PracticeCommand? {
        wanted = min(max(wanted + step, 0), list.songs.count - 1)
        return askIfWanted()
    }

    /// A song by its index (`/metronome/song`): the command to send, if a switch starts now.
    func choose(_ index: Int) -> PracticeCommand? {
        wanted = min(max(index, 0), list.songs.count - 1)
        return askIfWanted()
    }

    /// The most songs a list holds: maps loaded over OSC past it are refused.
    static let mostSongs = 256

    /// Whether another song may be loaded.
    var hasRoom: Bool { list.songs.count < Self.mostSongs }

    /// A map loaded over OSC (`/klick/map/load_file`), while `hasRoom`: the list's last song,
    /// played from the next bar line; the command to send, if a switch starts now.
    func load(_ song: SongList.Song) -> PracticeCommand? {
        list.songs.append(song)
        return choose(list.songs.count - 1)
    }

    /// The track started the song of `start`: that song's index, and a command for a song wanted since.
    func started(_ start: SongStart) -> (song: Int, next: PracticeCommand?)? {
        guard let asked, asked.slot == start.plan else { return nil }
        playing = asked.song
        playingSlot = asked.slot
        self.asked = nil
        return (playing, askIfWanted())
    }

    private func askIfWanted() -> PracticeCommand? {
        guard asked == nil, wanted != playing else { return nil }
        let slot = 1 - playingSlot
        let plan = TempoPlan(list.songs[wanted].source, rate: rate, rhythm: rhythm)
        feeder.switchTo(plan, in: slot == 0 ? plans.0 : plans.1)
        asked = (wanted, slot)
        return .song(slot: slot)
    }
}
