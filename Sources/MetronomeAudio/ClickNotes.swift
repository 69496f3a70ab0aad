import MetronomeTiming

/// The clicks as MIDI notes, cycle by cycle (`--midi-notes`): each started
/// click a note-on at its own frame, the frame its sound starts, and its
/// note-off a fixed `length` later, in whichever cycle that falls; a key that
/// sounds again before its note-off is released just before. The audio
/// thread's: fixed buffers, nothing allocated.
package struct ClickNotes {
    /// A note's length: 20 ms, short enough for a click at any tempo a
    /// metronome plays, long enough for a drum module's envelope.
    package let length: Int64
    /// The run's volume, which velocities follow (`ClickNote`).
    private let volume: Float
    /// Note-offs not yet written: (track frame, key). At most a few: a note lives 20 ms.
    private var releases: [(frame: Int64, key: UInt8)]
    private var releaseCount = 0
    static let mostReleases = 64

    package init(rate: SampleRate, volume: Float) {
        length = rate.framesPerSecond / 50
        self.volume = volume
        releases = Array(repeating: (0, 0), count: Self.mostReleases)
    }

    /// Adds to `messages` the notes of the cycle whose first track frame is
    /// `start` and which has `frames`: the note-offs due in it and a note-on
    /// for each of `started`, in order of their frames.
    package mutating func write(cycleFrom start: Int64, frames: Int, started: StartedClicks?, into messages: MIDIMessages) {
        let end = start + Int64(frames)
        let count = started?.count ?? 0
        var next = 0
        while true {
            var on: (frame: Int64, note: ClickNote)?
            while on == nil, next < count, let started {
                if let note = ClickNote(started[next], volume: volume) { on = (started[next].frame, note) } else { next += 1 }
            }
            var due: Int?
            for index in 0..<releaseCount where releases[index].frame < end {
                if due == nil || releases[index].frame < releases[due!].frame { due = index }
            }
            if let on, due == nil || on.frame < releases[due!].frame {
                // A key still held is released just before it sounds again.
                if let held = releaseIndex(of: on.note.key) {
                    removeRelease(at: held)
                    messages.append(.noteOff(on.note.key, channel: ClickNote.drumChannel), at: on.frame)
                }
                messages.append(.noteOn(on.note.key, velocity: on.note.velocity, channel: ClickNote.drumChannel), at: on.frame)
                release(on.note.key, at: on.frame + length)
                next += 1
            } else if let due {
                let release = releases[due]
                removeRelease(at: due)
                messages.append(.noteOff(release.key, channel: ClickNote.drumChannel), at: release.frame)
            } else {
                return
            }
        }
    }

    private func releaseIndex(of key: UInt8) -> Int? {
        for index in 0..<releaseCount where releases[index].key == key { return index }
        return nil
    }

    private mutating func release(_ key: UInt8, at frame: Int64) {
        guard releaseCount < Self.mostReleases else { return }
        releases[releaseCount] = (frame, key)
        releaseCount += 1
    }

    private mutating func removeRelease(at index: Int) {
        releases[index] = releases[releaseCount - 1]
        releaseCount -= 1
    }
}
