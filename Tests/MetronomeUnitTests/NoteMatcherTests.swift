import Testing
@testable import MetronomeTiming
@testable import MetronomeListening
import MetronomeTestSupport

@Suite struct NoteMatcherTests {
    let rate = SampleRate.standard
    /// 137 bpm in 4/4: click k at floor(k · 48000 · 60 / 137), from the grid.
    let schedule = ClickSchedule(tempo: Tempo(bpm: 137)!, rate: .standard)

    func matcher(clicks: Int64, roundTrip: Int64) -> NoteMatcher {
        var matcher = NoteMatcher(rate: rate, roundTripFrames: roundTrip)
        for click in 0..<clicks {
            matcher.add(.init(frame: schedule.frame(ofClick: click), index: click, beatOfBar: Int(click % 4)))
        }
        return matcher
    }

    @Test func aNoteIsMatchedToTheNearestClickWithTheRoundTripTakenOff() throws {
        var matcher = matcher(clicks: 16, roundTrip: 1_123)
        // Early and late by up to 35 ms (48 frames a millisecond), heard a round trip later.
        let offsets: [Int64] = [0, -35 * 48, 17, 12 * 48 + 5, -3 * 48 - 31, 35 * 48, -1, 1]
        for (click, offset) in offsets.enumerated() {
            let heard = schedule.frame(ofClick: Int64(click) * 2) + offset + 1_123
            let found = matcher.match(heardFrame: heard)
            let match = try #require(found)
            #expect(match.target.index == Int64(click) * 2)
            #expect(match.target.beatOfBar == (click * 2) % 4)
            #expect(match.offsetFrames == offset)
            #expect(match.offsetMilliseconds == Double(offset) / 48)
        }
        #expect(matcher.extras == 0)
        // Clicks 1, 3, … 13 had no note, and 15 has not sounded yet at click 14's frame.
        #expect(matcher.misses(through: schedule.frame(ofClick: 14)) == 7)
    }

    @Test func aNoteBeyondHalfTheIntervalGoesToTheNextClick() throws {
        var matcher = matcher(clicks: 4, roundTrip: 0)
        let first = schedule.frame(ofClick: 1), second = schedule.frame(ofClick: 2)
        let half = (second - first) / 2
        let atHalf = matcher.match(heardFrame: first + half)
        let pastHalf = matcher.match(heardFrame: first + half + 1)
        #expect(atHalf?.target.index == 1)
        #expect(pastHalf?.target.index == 2)
    }

    @Test func aSecondNoteOnAClickAndANoteFarFromAnyAreExtras() throws {
        var matcher = matcher(clicks: 4, roundTrip: 0)
        let interval = schedule.frame(ofClick: 1)
        #expect(matcher.match(heardFrame: interval + 10) != nil)
        #expect(matcher.match(heardFrame: interval - 10) == nil)
        // Before the first click by more than half the interval to the second.
        #expect(matcher.match(heardFrame: -interval / 2 - 1) == nil)
        // Past the last by more than half the interval before it.
        #expect(matcher.match(heardFrame: schedule.frame(ofClick: 3) + interval / 2 + 1) == nil)
        #expect(matcher.extras == 3)
        #expect(matcher.matches.count == 1)
    }

    @Test func subdivisionsAreTargetsToo() throws {
        // Eighths at 100 bpm: 14 400 frames apart; a note 5 000 frames after a beat is the "and"'s, 2 200 early.
        var matcher = NoteMatcher(rate: rate, roundTripFrames: 0)
        for eighth in Int64(0)..<8 { matcher.add(.init(frame: eighth * 14_400, index: eighth, beatOfBar: Int(eighth))) }
        let found = matcher.match(heardFrame: 14_400 * 2 + 12_200)
        let match = try #require(found)
        #expect(match.target.index == 3 && match.offsetFrames == -2_200)
    }
}
