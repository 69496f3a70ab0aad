import MetronomeSupport

/// The clicks the audio thread started, oldest first.
package typealias ClickLog = LockFreeQueue<StartedClick>
