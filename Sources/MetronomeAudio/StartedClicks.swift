/// The clicks one render call started, in a fixed buffer the audio thread
/// fills and reads without allocating: for MIDI notes out, placed in the same
/// cycle as their sound. A block that starts more than `capacity` clicks
/// keeps the first ones (at 48 kHz, 64 clicks in one 8192-frame cycle is a
/// click every 2.7 ms).
package final class StartedClicks: @unchecked Sendable {
    package static let capacity = 64
    private let clicks = UnsafeMutablePointer<StartedClick>.allocate(capacity: StartedClicks.capacity)
    package private(set) var count = 0

    package init() {}

    deinit { clicks.deallocate() }

    package func removeAll() { count = 0 }

    func append(_ click: StartedClick) {
        guard count < Self.capacity else { return }
        (clicks + count).initialize(to: click)
        count += 1
    }

    package subscript(index: Int) -> StartedClick { clicks[index] }
}
