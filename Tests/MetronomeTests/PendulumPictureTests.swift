import Foundation
@testable import Metronome
import Testing

@Suite struct PendulumPictureTests {
    let status = PendulumStatus(tempo: Tempo(bpm: 137)!, meter: .common, bar: 12, beatInBar: 3, elapsedSeconds: 83, underruns: 0)

    @Test func preview() {
        for angle in [30.0, 0, -17] {
            print(PendulumPicture.draw(width: 60, height: 22, angle: angle, status: status).text)
        }
        print(PendulumPicture.draw(width: 40, height: 5, angle: 10, status: status).text)
    }
}
