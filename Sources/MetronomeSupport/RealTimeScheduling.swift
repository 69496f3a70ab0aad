import Glibc
import SystemPackage

/// How the audio thread runs: at real-time priority where the system allows
/// it, with the process's memory locked so no page fault waits on the disk;
/// at normal priority, quietly, where it does not (no `rtprio` limit, no
/// `CAP_SYS_NICE`). Stands for `pthread_setschedparam(…, SCHED_FIFO, …)` and `mlockall`.
package struct RealTimeScheduling: Sendable, Equatable {
    /// A modest priority: above every normal thread, below the kernel's and a sound server's.
    package static let priority: Int32 = 20

    /// The SCHED_FIFO priority granted, or nil at normal priority.
    package let priority: Int32?
    /// Why real time was refused, when it was.
    package let refusal: String?
    /// Whether the process's memory is locked.
    package let memoryLocked: Bool

    /// Locks the memory mapped so far (code, libraries, heap, the sounds and the
    /// track), each page as it is touched (`MCL_ONFAULT`). Called before the
    /// device is opened, and without `MCL_FUTURE`: locking the mappings a sound
    /// server's client makes stalls it (through ALSA's jack plugin the picture
    /// falls 11 ms off its line).
    package static func lockMemory() -> Bool {
        let onFault: Int32 = 4  // MCL_ONFAULT, Linux 4.4; not in Glibc's Swift module
        return mlockall(MCL_CURRENT | onFault) == 0
    }

    /// Asks for real time for `thread`; `locked` says whether `lockMemory()` succeeded.
    package static func request(for thread: pthread_t, memoryLocked locked: Bool) -> RealTimeScheduling {
        var parameters = sched_param(sched_priority: priority)
        let result = pthread_setschedparam(thread, SCHED_FIFO, &parameters)
        if result == 0 { return RealTimeScheduling(priority: priority, refusal: nil, memoryLocked: locked) }
        return RealTimeScheduling(priority: nil, refusal: Errno(rawValue: result).description, memoryLocked: locked)
    }

    /// For `--verbose`: `audio thread: real-time priority 20 (SCHED_FIFO), memory locked`.
    package var description: String {
        let memory = memoryLocked ? "memory locked" : "memory not locked"
        if let priority { return "audio thread: real-time priority \(priority) (SCHED_FIFO), \(memory)" }
        return "audio thread: normal priority (real-time refused: \(refusal ?? "unknown")), \(memory)"
    }
}
