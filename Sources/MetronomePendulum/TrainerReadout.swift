import MetronomeTiming

/// What the status line and the plain lines say of the adaptive trainer: what it waits for, and why.
package struct TrainerReadout: Sendable, Equatable {
    package let trainer: AdaptiveTrainer
    package let rate: SampleRate
    /// A tempo key (or a control bound to one) took the tempo over: the trainer has stopped.
    package let stopped: Bool

    package init(trainer: AdaptiveTrainer, rate: SampleRate, stopped: Bool = false) {
        self.trainer = trainer
        self.rate = rate
        self.stopped = stopped
    }

    /// `tight 1/4 → 130`, `→ 130 next bar`, `holding 120: bar 7 beat 3 +31.2 ms`,
    /// `back to 115: bar 7 beat 3 missed`, `reached 140`, `trainer off: keys lead`.
    package var text: String {
        if stopped { return "trainer off: keys lead" }
        let tempo = trainer.tempo
        if let last = trainer.last, !last.verdict.isTight {
            let why = "bar \(last.bar + 1) " + Self.text(last.verdict, rate: rate)
            return (trainer.stepPending ? "back to \(tempo)" : "holding \(tempo)") + ": " + why
        }
        if trainer.stepPending { return "→ \(tempo) next bar" }
        if trainer.reached { return "reached \(tempo)" }
        return "tight \(trainer.tightBars)/\(trainer.rule.barsPerStep) → \(trainer.next)"
    }

    /// The line printed without a picture when the trainer moves or holds the tempo; nil when it counts on.
    package func line(for decision: AdaptiveTrainer.Decision, bar: Int64, verdict: AdaptiveTrainer.Verdict) -> String? {
        let why = "bar \(bar + 1) " + Self.text(verdict, rate: rate)
        switch decision {
        case .counted, .passedOver: return nil
        case .held: return "trainer: holding \(trainer.tempo) bpm: \(why)"
        case .step(let tempo): return "trainer: \(tempo) bpm from the next bar: \(trainer.rule.barsPerStep) tight"
            + " bar\(trainer.rule.barsPerStep == 1 ? "" : "s") within \(Self.milliseconds(trainer.rule.toleranceMicroseconds)) ms"
        case .stepBack(let tempo): return "trainer: back to \(tempo) bpm from the next bar: \(why)"
        }
    }

    /// `beat 3 +31.2 ms`, `beat 2 missed`, `tight`.
    static func text(_ verdict: AdaptiveTrainer.Verdict, rate: SampleRate) -> String {
        switch verdict {
        case .tight: "tight"
        case .missed(let beat): "beat \(beat + 1) missed"
        case .off(let beat, let frames):
            "beat \(beat + 1) " + PracticeReadout.signedTenths(Double(frames) * 1_000 / Double(rate.framesPerSecond)) + " ms"
        }
    }

    /// `10`, `7.5`, `0.25`: microseconds as the shortest exact decimal of milliseconds.
    static func milliseconds(_ microseconds: Int64) -> String {
        var fraction = microseconds % 1_000, places = 3
        guard fraction != 0 else { return "\(microseconds / 1_000)" }
        while fraction % 10 == 0 { fraction /= 10; places -= 1 }
        let digits = String(fraction)
        return "\(microseconds / 1_000)." + String(repeating: "0", count: places - digits.count) + digits
    }
}
