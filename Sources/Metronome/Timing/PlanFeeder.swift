/// Hands a plan's passages to the audio thread ahead of time, through a
/// lock-free queue: the thread that calls `feed` (the live loop, the file
/// renderer between blocks) works them out; the audio thread only reads.
public final class PlanFeeder: @unchecked Sendable {
    public let queue: LockFreeQueue<Passage>
    private var plan: TempoPlan
    /// Worked out but not yet handed over: the queue was full.
    private var pending: Passage?

    /// `capacity` passages ahead: a minute or more even of one passage a beat.
    public init(_ plan: TempoPlan, capacity: Int = 256) {
        self.plan = plan
        queue = LockFreeQueue(capacity: capacity)
        feed()
    }

    /// Fills the queue with the next passages. Call it often enough that it
    /// never runs dry (every drawn frame, every rendered block does).
    public func feed() {
        while true {
            if pending == nil { pending = plan.next() }
            guard let passage = pending, queue.tryPush(passage) else { return }
            pending = nil
        }
    }
}
