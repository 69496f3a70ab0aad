import Glibc

/// Writes to a terminal or pipe that may stop reading (a stalled connection, a
/// stopped pager), never waiting longer than a bound: the main thread has its
/// signals blocked, so a write that waited for ever could not even be interrupted.
package enum BoundedWrite {
    /// Writes `bytes` to `descriptor` in pieces of at most `PIPE_BUF` once `poll`
    /// says there is room; false if the room did not come within `milliseconds` in all (the rest is dropped).
    @discardableResult
    package static func write(_ descriptor: Int32, _ bytes: [UInt8], waitingAtMost milliseconds: Int32) -> Bool {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(milliseconds)
        var offset = 0
        while offset < bytes.count {
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let left = deadline - (Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000)
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, Int32(max(left, 0)))
            if polled < 0, errno == EINTR { continue }
            // Room for PIPE_BUF bytes: a write of that much does not block.
            guard polled > 0, ready.revents & Int16(POLLOUT) != 0 else { return false }
            let count = min(bytes.count - offset, Int(PIPE_BUF))
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes `bytes` to a non-blocking `descriptor` at once, as a picture's frame wants: one
    /// `write(2)` a frame, with `poll` for room only when the descriptor has none (`EAGAIN`),
    /// and not past `milliseconds` in all; false if the room did not come (the rest is dropped).
    @discardableResult
    package static func writeAtOnce(_ descriptor: Int32, _ bytes: [UInt8], waitingAtMost milliseconds: Int32) -> Bool {
        var deadline: Int64?
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written > 0 {
                offset += written
                continue
            }
            guard written < 0, errno == EAGAIN || errno == EINTR else { return false }
            if errno == EINTR { continue }
            var clock = timespec()
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let now = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000
            let end = deadline ?? now + Int64(milliseconds)
            deadline = end
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, Int32(max(end - now, 0)))
            if polled < 0, errno == EINTR { continue }
            guard polled > 0, ready.revents & Int16(POLLOUT) != 0 else { return false }
        }
        return true
    }
}
