/// Where the rod points for a given heard frame: the angle function.
///
/// With the click at the edge, at click k the rod is at +amplitude (right)
/// when k is even and −amplitude when k is odd, and between clicks it travels
/// across with the easing: angle = a_k + (a_{k+1} − a_k)·ease(p), p the
/// fraction of frames from click k to click k+1. With the click at the centre
/// the extremes fall halfway between clicks, so each click sounds as the rod
/// passes the middle.
public struct PendulumMotion: Sendable {
    public enum ClickPosition: String, CaseIterable, Sendable {
        case edge, center
    }

    public let schedule: ClickSchedule
    public let amplitude: Double
    public let easing: Easing
    public let clickAt: ClickPosition

    public init(schedule: ClickSchedule, amplitude: Double = 30, easing: Easing = .easeInOut, clickAt: ClickPosition = .edge) {
        self.schedule = schedule
        self.amplitude = amplitude
        self.easing = easing
        self.clickAt = clickAt
    }

    /// The extreme the rod reaches at turning point k (click k at the edge).
    @inline(__always)
    func extreme(_ k: Int64) -> Double { k % 2 == 0 ? amplitude : -amplitude }

    /// The angle in degrees (positive to the right) when `frame` is heard.
    public func angle(atFrame frame: Double) -> Double {
        switch clickAt {
        case .edge:
            return swing(at: frame, turningPoint: { Double(schedule.frame(ofClick: $0)) })
        case .center:
            // Turning point k is halfway between clicks k and k+1.
            return swing(at: frame, turningPoint: { k in
                k < 0 ? 2 * Double(schedule.frame(ofClick: 0)) - self.midpoint(0) : self.midpoint(k)
            })
        }
    }

    private func midpoint(_ click: Int64) -> Double {
        (Double(schedule.frame(ofClick: click)) + Double(schedule.frame(ofClick: click + 1))) / 2
    }

    /// Eases between the turning points around `frame`; before the first it
    /// comes from the turning point before (k = -1 is the opposite extreme).
    private func swing(at frame: Double, turningPoint: (Int64) -> Double) -> Double {
        var k = max(0, schedule.firstClick(atOrAfter: Int64(frame.rounded(.down))) - 1)
        if clickAt == .center, frame < turningPoint(0) { k = -1 }
        while k >= 0, turningPoint(k) > frame { k -= 1 }
        while turningPoint(k + 1) <= frame { k += 1 }
        if k < 0, clickAt == .edge { return extreme(0) }
        let start = turningPoint(k), end = turningPoint(k + 1)
        let progress = (frame - start) / (end - start)
        let from = k < 0 ? -extreme(0) : extreme(k)
        let to = extreme(k + 1)
        return from + (to - from) * easing(progress)
    }
}
