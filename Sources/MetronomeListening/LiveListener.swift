import Glibc
import Synchronization
import MetronomeSupport
import MetronomeTiming
import MetronomeAudio

/// Runs an `Inspector` on a thread of its own ("metronome-notes"), so that
/// finding onsets (aubio, the bleed taken out) never holds up the UI loop.
///
/// The loop hands it the clicks started and how far into the input it may
/// listen, and takes the notes heard, each way over a `LockFreeQueue`; neither
/// waits for the other. It listens only up to the frames captured before the
/// loop last handed over clicks, so every click the input may hold is a
/// target (its bleed measured) before that input is looked at.
///
/// Not real-time: it allocates, and takes a backlog `Inspector.chunksPerListen`
/// chunks at a time, looking for new clicks and a stop between. A full queue
/// drops what it is handed: a click that is no target, a note the loop does
/// not hear of (the inspector's figures still count it).
package final class LiveListener: @unchecked Sendable {
    /// A note heard, and the click number (`beat` in the trace) of the click it matched; nil for an extra.
    package struct Heard: Equatable, Sendable, BitwiseCopyable {
        package let note: Inspector.Note
        package let beat: Int64?
    }

    /// Owned by the thread while it runs; by the caller before `start()` and after `join()`.
    package let inspector: Inspector
    /// The output's audible position (`AudiblePosition.snapshot`), read before each listen.
    private let sample: @Sendable () -> (heard: Int64, at: MonotonicInstant, written: Int64)
    private let clock: any Timekeeper
    private let clicks: LockFreeQueue<StartedClick>
    private let notes: LockFreeQueue<Heard>
    /// `Inspector.heardThrough` after the notes of the last listen were handed over; `Int64.min` before it is known.
    private let settled = Atomic<Int64>(.min)
    /// The capture frame the thread may listen up to.
    private let allowed = Atomic<Int64>(0)
    private let stopRequested = Atomic<Bool>(false)
    /// Posted when there is more to do (`sem_post`, which never blocks the poster).
    private let wake: UnsafeMutablePointer<sem_t>
    private var thread: pthread_t?

    package init(inspector: Inspector, clock: any Timekeeper = MonotonicClock(), capacity: Int = 4_096,
                sample: @escaping @Sendable () -> (heard: Int64, at: MonotonicInstant, written: Int64)) {
        self.inspector = inspector
        self.clock = clock
        self.sample = sample
        clicks = LockFreeQueue(capacity: capacity)
        notes = LockFreeQueue(capacity: capacity)
        wake = .allocate(capacity: 1)
        sem_init(wake, 0, 0)
    }

    deinit {
        sem_destroy(wake)
        wake.deallocate()
    }

    /// Starts the thread; without one (out of threads) the notes are found by `finish()` at the end.
    package func start() {
        thread = NamedThread.start(named: "metronome-notes") { self.run() }
    }

    /// The clicks the track started: the notes' targets.
    package func receive(clicks started: [StartedClick]) {
        for click in started { clicks.push(click) }
    }

    /// Lets the thread listen up to capture frame `captureFrame` (never back); returns at once.
    package func listen(through captureFrame: Int64) {
        if captureFrame > allowed.load(ordering: .relaxed) { allowed.store(captureFrame, ordering: .releasing) }
        sem_post(wake)
    }

    /// The output frame (round trip off) up to which every note played has been found: read
    /// before the notes are taken, every note placed at or before it is among them. Nil before it is known.
    package var heardThrough: Int64? {
        let frame = settled.load(ordering: .acquiring)
        return frame == .min ? nil : frame
    }

    /// The next note the thread heard, oldest first.
    package func next() -> Heard? { notes.pop() }

    /// Asks the thread to end after the listen under way; returns at once.
    package func stop() {
        stopRequested.store(true, ordering: .releasing)
        sem_post(wake)
    }

    /// Waits for the thread to end.
    package func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// After `join()`, on the caller's thread: what the thread heard and the loop has not
    /// taken, then the rest of the input, however much (a listen takes a bounded share),
    /// and the frames held back for the bleed.
    package func finish() -> [Heard] {
        var found: [Heard] = []
        while let note = notes.pop() { found.append(note) }
        takeClicks()
        repeat {
            found += inspector.listen(sample: sample(), now: clock.now()).map(heard)
        } while inspector.hasInput(through: .max)
        return found + inspector.finish().map(heard)
    }

    private func run() {
        while !stopRequested.load(ordering: .acquiring) {
            // The bound first: the clicks handed over before it are then all in the queue.
            let through = allowed.load(ordering: .acquiring)
            takeClicks()
            if inspector.hasInput(through: through) {
                for note in inspector.listen(sample: sample(), now: clock.now(), through: through) { notes.push(heard(note)) }
                if let frame = inspector.heardThrough { settled.store(frame, ordering: .releasing) }
                continue
            }
            while sem_wait(wake) != 0, errno == EINTR {}
            // Every post so far is seen by the look that follows.
            while sem_trywait(wake) == 0 {}
        }
    }

    private func takeClicks() {
        var started: [StartedClick] = []
        while let click = clicks.pop() { started.append(click) }
        if !started.isEmpty { inspector.receive(clicks: started) }
    }

    private func heard(_ note: Inspector.Note) -> Heard {
        Heard(note: note, beat: note.match.map(inspector.beat(of:)))
    }
}
