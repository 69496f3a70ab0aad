import Synchronization
import MetronomeSupport

/// Hands a plan's passages to the audio thread ahead of time, through a
/// lock-free queue: the thread that calls `feed` (the live loop, the file
/// renderer between blocks) works them out; the audio thread only reads.
/// A setlist's next song is a new plan in another queue (`switchTo`); the
/// feeding and the switch take turns under a lock that the audio thread never takes.
package final class PlanFeeder: @unchecked Sendable {
    /// The queue the first plan is fed into.
    package let queue: LockFreeQueue<Passage>
    private struct State {
        var plan: TempoPlan
        var queue: LockFreeQueue<Passage>
        /// Worked out but not yet handed over: the queue was full.
        var pending: Passage?
    }

    private let state: Mutex<State>

    /// `capacity` passages ahead: 256 are 15 s or more even of one passage a beat (at 1000 bpm).
    package init(_ plan: TempoPlan, capacity: Int = 256) {
        let queue = LockFreeQueue<Passage>(capacity: capacity)
        self.queue = queue
        state = Mutex(State(plan: plan, queue: queue))
        feed()
    }

    /// Fills the queue with the next passages. Call it often enough that it
    /// never runs dry (`PlanFeedThread` every 100 ms, the renderer every block).
    package func feed() {
        state.withLock { state in
            while true {
                if state.pending == nil { state.pending = state.plan.next() }
                guard let passage = state.pending, state.queue.tryPush(passage) else { return }
                state.pending = nil
            }
        }
    }

    /// From now on feeds `plan` into `queue`, emptied first: the caller
    /// knows the audio thread no longer reads it (it has switched away and said so).
    package func switchTo(_ plan: TempoPlan, in queue: LockFreeQueue<Passage>) {
        state.withLock { state in
            while queue.pop() != nil {}
            state = State(plan: plan, queue: queue)
        }
        feed()
    }
}
