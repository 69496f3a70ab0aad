import MetronomeSupport

/// The clicks the audio thread started, oldest first.
public typealias ClickLog = LockFreeQueue<StartedClick>
