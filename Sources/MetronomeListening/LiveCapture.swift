import Glibc
import Synchronization
import MetronomeSupport

/// Reads a capture device on a thread of its own ("metronome-input") and hands
/// what it hears to the listening side as `CapturedChunk`s over a `CaptureLog`.
///
/// The audio thread's rules: no allocation, no lock, no I/O but the PCM's.
/// Each chunk carries its capture frames and the status stamp taken after its
/// read; a full log drops chunks (counted), never waits. After an overrun
/// capture goes on: frame numbers count frames read, so the stamps, not the
/// numbers, say when later frames were heard.
package final class LiveCapture: @unchecked Sendable {
    package let device: CaptureDevice
    /// What was heard, oldest first: the listening side pops it.
    package let log: CaptureLog

    private let stopRequested = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)
    private let overrunCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private let failureCode = Atomic<Int32>(0)
    private let framesReadCount = Atomic<Int64>(0)
    private let block: UnsafeMutablePointer<Float>
    /// Posted once, after the first period is read or when the thread ends (`sem_post`: no lock of ours).
    private let reading: UnsafeMutablePointer<sem_t>
    private var thread: pthread_t?

    /// `logCapacity` chunks of 64 frames: 4096 hold 5.4 s at 48 kHz.
    package init(device: CaptureDevice, logCapacity: Int = 4096) {
        self.device = device
        log = CaptureLog(capacity: logCapacity)
        block = .allocate(capacity: device.periodFrames)
        block.initialize(repeating: 0, count: device.periodFrames)
        reading = .allocate(capacity: 1)
        sem_init(reading, 0, 0)
    }

    deinit {
        block.deallocate()
        sem_destroy(reading)
        reading.deallocate()
    }

    /// Overruns so far: times the device's buffer overflowed and frames were lost.
    package var overruns: Int { overrunCount.load(ordering: .relaxed) }
    /// Chunks dropped because the listening side had not taken the log's earlier ones.
    package var droppedChunks: Int { droppedCount.load(ordering: .relaxed) }
    /// Frames read so far.
    package var framesRead: Int64 { framesReadCount.load(ordering: .relaxed) }
    /// Whether the capture thread has ended (stopped, its limit reached, or failed).
    package var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// The device error that ended capture, if one did.
    package var failure: CaptureError? {
        let code = failureCode.load(ordering: .acquiring)
        if code == 0 { return nil }
        return code == CaptureError.stoppedDeliveringAudio.code ? .stoppedDeliveringAudio : CaptureError(code: code, operation: "read")
    }

    /// Starts the capture thread.
    package func start() {
        guard let handle = NamedThread.start(named: "metronome-input", { self.run() }) else {
            failureCode.store(-EAGAIN, ordering: .releasing)
            finishedFlag.store(true, ordering: .releasing)
            return
        }
        thread = handle
    }

    /// Waits until the first period is read (true) or the thread ended, at most
    /// `milliseconds`: started before the output, the input then holds frames
    /// before the first click comes back, the noise floor a note rises out of.
    package func waitUntilReading(milliseconds: Int) -> Bool {
        // The deadline is the monotonic clock's. `sem_timedwait` counts by the wall clock, so it waits
        // in slices of at most 10 ms: setting the wall clock moves the end by one slice at most.
        let clock = MonotonicClock()
        let end = clock.now().nanoseconds + Int64(milliseconds) * 1_000_000
        while true {
            let remaining = end - clock.now().nanoseconds
            guard remaining > 0 else { return false }
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            let until = Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec) + min(remaining, 10_000_000)
            var deadline = timespec(tv_sec: Int(until / 1_000_000_000), tv_nsec: Int(until % 1_000_000_000))
            if sem_timedwait(reading, &deadline) == 0 { break }
            if errno != EINTR, errno != ETIMEDOUT { return false }
        }
        sem_post(reading)  // for the next caller
        return framesRead > 0
    }

    /// Asks the capture thread to stop after the read under way; returns at once.
    package func stop() { stopRequested.store(true, ordering: .releasing) }

    /// Waits for the capture thread to end.
    package func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// The capture loop; also callable directly on the current thread, which
    /// then reads until `stop()` or until `limit` frames are read.
    package func run(limit: Int64 = .max) {
        var posted = false
        defer {
            finishedFlag.store(true, ordering: .releasing)
            if !posted { sem_post(reading) }
        }
        if let failure = device.start() {
            failureCode.store(failure.code, ordering: .releasing)
            return
        }
        let period = device.periodFrames
        var read: Int64 = 0
        while !stopRequested.load(ordering: .acquiring), read < limit {
            switch device.read(into: block, frames: Int(min(Int64(period), limit - read))) {
            case .read(let frames):
                let status = device.status()
                let stampFrame = read + Int64(frames) + status.delay
                publish(frames: frames, from: read, stampFrame: stampFrame, stampNanoseconds: status.at?.nanoseconds ?? 0)
                read += Int64(frames)
                framesReadCount.store(read, ordering: .relaxed)
                if !posted {
                    posted = true
                    sem_post(reading)
                }
            case .overrun(let error):
                overrunCount.add(1, ordering: .relaxed)
                if let failure = device.recover(from: error) {
                    failureCode.store(failure.code, ordering: .releasing)
                    return
                }
            case .failed(let error):
                failureCode.store(error.code, ordering: .releasing)
                return
            }
        }
    }

    /// Cuts the block into chunks and pushes them; a full log drops them.
    private func publish(frames: Int, from first: Int64, stampFrame: Int64, stampNanoseconds: Int64) {
        var offset = 0
        while offset < frames {
            let count = min(CapturedChunk.capacity, frames - offset)
            var chunk = CapturedChunk(firstFrame: first + Int64(offset), count: count,
                                      stampFrame: stampFrame, stampNanoseconds: stampNanoseconds)
            for index in 0..<count { chunk.samples[index] = block[offset + index] }
            if !log.tryPush(chunk) { droppedCount.add(1, ordering: .relaxed) }
            offset += count
        }
    }
}
