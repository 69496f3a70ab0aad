import Glibc

/// How the pendulum moves between two extremes: progress 0...1 in, 0...1 out.
package enum Easing: String, CaseIterable, Sendable {
    case linear
    /// The CSS/SwiftUI `easeInOut` timing curve, cubic-bezier(0.42, 0, 0.58, 1).
    case easeInOut = "ease-in-out"
    /// Half a cosine: the motion of a real pendulum near its small-angle limit.
    case sine

    package func callAsFunction(_ progress: Double) -> Double {
        let p = min(max(progress, 0), 1)
        switch self {
        case .linear: return p
        case .easeInOut: return CubicBezier.easeInOut.value(at: p)
        case .sine: return (1 - cos(Double.pi * p)) / 2
        }
    }
}

/// A CSS timing curve through (0,0), (x1,y1), (x2,y2), (1,1): y as a function of x.
package struct CubicBezier: Sendable {
    package let x1: Double, y1: Double, x2: Double, y2: Double

    package static let easeInOut = CubicBezier(x1: 0.42, y1: 0, x2: 0.58, y2: 1)

    /// The curve's y where its x equals `x`: solves x(t) = x by Newton's
    /// method, falling back to bisection where the slope is flat, to 1e-12.
    package func value(at x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        var t = x
        for _ in 0..<8 {
            let error = Self.coordinate(t, x1, x2) - x
            if abs(error) < 1e-12 { return Self.coordinate(t, y1, y2) }
            let slope = Self.slope(t, x1, x2)
            if abs(slope) < 1e-9 { break }
            t -= error / slope
        }
        var low = 0.0, high = 1.0
        t = x
        for _ in 0..<60 {
            let value = Self.coordinate(t, x1, x2)
            if abs(value - x) < 1e-12 { break }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return Self.coordinate(t, y1, y2)
    }

    /// One coordinate of the curve at parameter t: 3(1-t)²t·p1 + 3(1-t)t²·p2 + t³.
    @inline(__always)
    static func coordinate(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
    }

    @inline(__always)
    static func slope(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * p1 + 6 * u * t * (p2 - p1) + 3 * t * t * (1 - p2)
    }
}
