import MetronomeTiming

/// Where the rod points for a given heard frame: the angle function.
///
/// With the click at the edge, at click k the rod is at +amplitude (right)
/// when k is even and −amplitude when k is odd, and between clicks it travels
/// across with the easing: angle = a_k + (a_{k+1} − a_k)·ease(p), p the
/// fraction of frames from click k to click k+1. With the click at the centre
/// the extremes fall halfway between clicks, so each click sounds as the rod
/// passes the middle. Clicks come from the passage history, so after a tempo
/// change or a tap the rod still reaches its extreme exactly at the next
/// click; in a pause it finishes its swing and rests there.
package struct PendulumMotion: Sendable {
    package enum ClickPosition: String, CaseIterable, Sendable {
        case edge, center
    }

    package var history: PassageHistory
    package let amplitude: Double
    package let easing: Easing
    package let clickAt: ClickPosition

    package init(history: PassageHistory, amplitude: Double = 30, easing: Easing = .easeInOut, clickAt: ClickPosition = .edge) {
        self.history = history
        self.amplitude = amplitude
        self.easing = easing
        self.clickAt = clickAt
    }

    /// One constant tempo from frame 0.
    package init(schedule: ClickSchedule, amplitude: Double = 30, easing: Easing = .easeInOut, clickAt: ClickPosition = .edge) {
        self.init(history: PassageHistory(Passage(schedule: schedule)), amplitude: amplitude, easing: easing, clickAt: clickAt)
    }

    /// The extreme the rod reaches at turning point k (click k at the edge); k = -1 is the opposite of k = 0.
    @inline(__always)
    func extreme(_ k: Int64) -> Double { k % 2 == 0 ? amplitude : -amplitude }

    /// The angle in degrees (positive to the right) when `frame` is heard.
    package func angle(atFrame frame: Double) -> Double {
        let last = history.lastClick(atOrBefore: Int64(frame.rounded(.down)))
        let start: Double, end: Double, k: Int64
        switch clickAt {
        case .edge:
            if last < 0 { return extreme(0) }
            k = last
            start = Double(history.frame(ofClick: k))
            end = Double(history.arrival(ofClick: k + 1))
        case .center:
            // Turning point k is halfway between clicks k and k+1; the one before click 0 mirrors turning point 0.
            k = max(-1, turningPoint(last) <= frame ? last : last - 1)
            start = turningPoint(k)
            end = turningPoint(k + 1)
        }
        let progress = end > start ? (frame - start) / (end - start) : 1
        return extreme(k) + (extreme(k + 1) - extreme(k)) * easing(progress)
    }

    private func turningPoint(_ k: Int64) -> Double {
        k < 0 ? 2 * Double(history.frame(ofClick: 0)) - midpoint(0) : midpoint(k)
    }

    private func midpoint(_ click: Int64) -> Double {
        (Double(history.frame(ofClick: click)) + Double(history.frame(ofClick: click + 1))) / 2
    }
}
