/// Which of the client's ports goes to which destination, by position.
///
/// Port `i` goes to destination `i`; when one list is longer the other's last
/// entry is reused, so a single port goes to every destination named and a
/// single destination takes every port. With the system's ports (no
/// destinations named) a single port goes to the first two, both sides of
/// a stereo output, as klick connects its mono output; several ports each
/// take one physical port in turn, the last physical port taking any left over.
package enum JackConnectionPlan {
    /// The connections as (index of our port, destination's name); none when either side has none.
    package static func pairs(ports: Int, destinations: [String]) -> [(port: Int, destination: String)] {
        guard ports > 0, !destinations.isEmpty else { return [] }
        return (0..<max(ports, destinations.count)).map { index in
            (port: min(index, ports - 1), destination: destinations[min(index, destinations.count - 1)])
        }
    }

    /// The connections to the system's playback ports, `physical` in JACK's order.
    package static func pairs(ports: Int, physical: [String]) -> [(port: Int, destination: String)] {
        pairs(ports: ports, destinations: Array(physical.prefix(max(ports, 2))))
    }
}
