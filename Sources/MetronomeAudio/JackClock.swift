import CJack

/// Where a JACK cycle falls on JACK's frame counter and on its microsecond
/// clock (`jack_get_cycle_times`): the cycle's first frame, when it began,
/// when the next one is due, and the period's length as the server's
/// delay-locked loop measures it.
package struct JackCycleTimes: Sendable, Equatable {
    /// The frame counter at the cycle's first frame; wraps at 2³².
    package let frames: UInt32
    /// `jack_get_time`'s microseconds when the cycle began.
    package let microseconds: UInt64
    /// When the next cycle is due to begin.
    package let nextMicroseconds: UInt64
    /// The period's length, filtered: not `nextMicroseconds - microseconds`, which jitters.
    package let periodMicroseconds: Float
}

/// A client's frame counter and clock, as a value the process callback keeps
/// without holding the client: valid while the client is open. A few words,
/// copied without retaining anything, as `JackPort` is.
package struct JackClock: @unchecked Sendable {
    private let client: OpaquePointer
    private let getCycleTimes: JackLibrary.GetCycleTimes
    private let getLastFrameTime: JackLibrary.ClientFrames
    private let getFrameTime: JackLibrary.ClientFrames
    private let getTime: JackLibrary.GetTime

    init(client: OpaquePointer, library: JackLibrary) {
        self.client = client
        getCycleTimes = library.getCycleTimes
        getLastFrameTime = library.lastFrameTime
        getFrameTime = library.frameTime
        getTime = library.getTime
    }

    /// The current cycle's times; only inside the process callback. nil if JACK has none (`jack_get_cycle_times` failed).
    package func cycleTimes() -> JackCycleTimes? {
        var frames: jack_nframes_t = 0
        var microseconds: jack_time_t = 0, next: jack_time_t = 0
        var period: Float = 0
        guard getCycleTimes(client, &frames, &microseconds, &next, &period) == 0 else { return nil }
        return JackCycleTimes(frames: frames, microseconds: microseconds, nextMicroseconds: next, periodMicroseconds: period)
    }

    /// The frame counter at the current cycle's first frame (`jack_last_frame_time`); inside the process callback.
    package func lastFrameTime() -> UInt32 {
        getLastFrameTime(client)
    }

    /// The frame counter estimated for now, from any thread (`jack_frame_time`).
    package func frameTime() -> UInt32 {
        getFrameTime(client)
    }

    /// JACK's clock now, in microseconds (`jack_get_time`; the monotonic clock).
    package func time() -> UInt64 {
        getTime()
    }
}
