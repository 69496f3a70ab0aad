/// What a `JackClient` calls every cycle, on JACK's real-time thread.
///
/// `process(frames:)` must allocate nothing, take no lock and do no I/O; it
/// reads and writes its ports' buffers (`JackPort.audioBuffer(frames:)`) and
/// may ask the client's `JackClock` where the cycle falls. It returns 0, or
/// nonzero to have JACK stop calling the client.
package protocol JackProcessor: AnyObject, Sendable {
    func process(frames: UInt32) -> Int32
}

/// The processor behind the `void *` JACK hands the process callback: a
/// class, so one pointer reaches it (an existential is two words and a table).
final class JackProcessorBox {
    let processor: any JackProcessor

    init(_ processor: any JackProcessor) {
        self.processor = processor
    }
}
