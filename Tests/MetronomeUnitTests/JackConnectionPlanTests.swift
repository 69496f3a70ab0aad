import Testing
@testable import MetronomeAudio

/// Where the client's ports go, by position, with the shorter side's last entry reused.
@Suite struct JackConnectionPlanTests {
    private func plan(_ pairs: [(port: Int, destination: String)]) -> [String] {
        pairs.map { "\($0.port)>\($0.destination)" }
    }

    @Test func oneOutputGoesToBothSidesOfAStereoSystem() {
        #expect(plan(JackConnectionPlan.pairs(ports: 1, physical: ["p1", "p2", "p3", "p4"])) == ["0>p1", "0>p2"])
        #expect(plan(JackConnectionPlan.pairs(ports: 1, physical: ["p1"])) == ["0>p1"])
    }

    @Test func splitPortsTakeOnePhysicalPortEachAndTheLastTakesTheRest() {
        #expect(plan(JackConnectionPlan.pairs(ports: 4, physical: ["p1", "p2", "p3", "p4", "p5"])) == ["0>p1", "1>p2", "2>p3", "3>p4"])
        #expect(plan(JackConnectionPlan.pairs(ports: 4, physical: ["p1", "p2"])) == ["0>p1", "1>p2", "2>p2", "3>p2"])
    }

    @Test func oneOutputGoesToEveryDestinationNamed() {
        #expect(plan(JackConnectionPlan.pairs(ports: 1, destinations: ["a", "b", "c"])) == ["0>a", "0>b", "0>c"])
    }

    @Test func oneDestinationNamedTakesEveryPort() {
        #expect(plan(JackConnectionPlan.pairs(ports: 3, destinations: ["rec"])) == ["0>rec", "1>rec", "2>rec"])
    }

    @Test func noDestinationsOrNoPortsMeanNoConnections() {
        #expect(JackConnectionPlan.pairs(ports: 4, destinations: []).isEmpty)
        #expect(JackConnectionPlan.pairs(ports: 2, physical: []).isEmpty)
        #expect(JackConnectionPlan.pairs(ports: 0, destinations: ["a"]).isEmpty)
    }
}
