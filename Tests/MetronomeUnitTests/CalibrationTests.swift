import Testing
@testable import MetronomeListening
import MetronomeTestSupport

@Suite struct CalibrationTests {
    @Test func theRoundTripIsTheMedianAndTheSpreadTheFarthestFromIt() throws {
        let calibration = try #require(Calibration(roundTrips: [10, 12, 9, 11], rate: .standard))
        // Median 10.5 frames; 9 lies 1.5 from it.
        #expect(calibration.doubledMedianFrames == 21 && calibration.doubledSpreadFrames == 3 && calibration.clicks == 4)
        #expect(calibration.figures == "0.2 ms (±0.0 ms over 4 clicks)")
        #expect(calibration.isEven)
    }

    /// At 48 kHz: 48 frames from the median is a millisecond, kept; 49 is not.
    @Test func aSpreadWiderThanAMillisecondIsUneven() throws {
        let edge = try #require(Calibration(roundTrips: [100, 100, 100, 148, 52], rate: .standard))
        #expect(edge.isEven && edge.spreadMilliseconds == 1)
        let wider = try #require(Calibration(roundTrips: [100, 100, 100, 149], rate: .standard))
        #expect(!wider.isEven)
        // Half a frame over, between two middles: 100.5 and 52 lie 48.5 apart.
        let half = try #require(Calibration(roundTrips: [52, 100, 101, 110], rate: .standard))
        #expect(!half.isEven)
        // What the built-in bell and a test drummer once gave, and was saved.
        let bell = try #require(Calibration(roundTrips: [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, -3_984], rate: .standard))
        #expect(!bell.isEven && bell.figures == "0.1 ms (±83.1 ms over 16 clicks)")
    }

    @Test func fewerThanThreeRoundTripsAreNoCalibration() {
        #expect(Calibration(roundTrips: [], rate: .standard) == nil)
        #expect(Calibration(roundTrips: [5, 6], rate: .standard) == nil)
    }
}
