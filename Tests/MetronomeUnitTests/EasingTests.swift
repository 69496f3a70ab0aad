import Testing
@testable import MetronomeTiming
@testable import MetronomePendulum
import MetronomeTestSupport

@Suite struct EasingTests {
    /// cubic-bezier(0.42, 0, 0.58, 1) at x, by 200 bisection steps at 40 digits (mpmath).
    static let references: [(Double, Double)] = [
        (0.05, 0.00482974966785941), (0.1, 0.0197224535483112), (0.25, 0.12916193104732),
        (0.3, 0.187395906705313), (0.5, 0.5), (0.6, 0.668116129902354), (0.75, 0.87083806895268),
        (0.9, 0.980277546451689), (0.99, 0.999810180414793),
    ]

    @Test func easeInOutMatchesTheReferenceCurve() {
        for (x, y) in Self.references {
            #expect(abs(Easing.easeInOut(x) - y) < 1e-6, "x = \(x)")
        }
    }

    @Test(arguments: Easing.allCases)
    func everyCurveRunsFromZeroToOneSymmetricallyAndNeverBack(easing: Easing) {
        #expect(easing(0) == 0 && easing(1) == 1)
        #expect(abs(easing(0.5) - 0.5) < 1e-12)
        var previous = 0.0
        for step in 1...1000 {
            let x = Double(step) / 1000
            let y = easing(x)
            #expect(y >= previous, "x = \(x)")
            #expect(abs(y + easing(1 - x) - 1) < 1e-9, "symmetry at \(x)")
            previous = y
        }
        #expect(easing(-0.5) == 0 && easing(1.5) == 1)
    }
}

@Suite struct PendulumMotionTests {
    let schedule = ClickSchedule(tempo: try! Tempo(parsing: "137"), rate: .standard)

    @Test func atEveryClickTheRodIsAtItsExtreme() {
        let motion = PendulumMotion(schedule: schedule)
        for click in Int64(0)..<50 {
            let frame = Double(schedule.frame(ofClick: click))
            #expect(motion.angle(atFrame: frame) == (click % 2 == 0 ? 30 : -30), "click \(click)")
        }
        #expect(motion.angle(atFrame: -500) == 30)  // waiting for the first click, at the first extreme
    }

    @Test func betweenClicksItFollowsTheEasing() {
        for easing in Easing.allCases {
            let motion = PendulumMotion(schedule: schedule, amplitude: 20, easing: easing)
            let start = Double(schedule.frame(ofClick: 3)), end = Double(schedule.frame(ofClick: 4))
            for fraction in [0.1, 0.25, 0.5, 0.8] {
                let frame = start + (end - start) * fraction
                // From -20 (odd click) towards +20.
                #expect(abs(motion.angle(atFrame: frame) - (-20 + 40 * easing(fraction))) < 1e-9)
            }
        }
    }

    @Test func withTheClickAtTheCentreTheRodPassesTheMiddleOnEachClick() {
        let motion = PendulumMotion(schedule: schedule, clickAt: .center)
        for click in Int64(0)..<40 {
            let angle = motion.angle(atFrame: Double(schedule.frame(ofClick: click)))
            // Intervals differ by at most a frame, so the middle is met to a hair.
            #expect(abs(angle) < 0.01, "click \(click): \(angle)")
            let halfway = (Double(schedule.frame(ofClick: click)) + Double(schedule.frame(ofClick: click + 1))) / 2
            #expect(motion.angle(atFrame: halfway) == (click % 2 == 0 ? 30 : -30))
        }
        // Moving right through the middle on even clicks, left on odd ones.
        let after = Double(schedule.frame(ofClick: 2)) + 500, later = Double(schedule.frame(ofClick: 3)) + 500
        #expect(motion.angle(atFrame: after) > 0 && motion.angle(atFrame: later) < 0)
    }
}
