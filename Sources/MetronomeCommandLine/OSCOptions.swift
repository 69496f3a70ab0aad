import ArgumentParser
import MetronomeSession

/// Remote control over OSC: klick's namespace on a UDP port, and TCP's if asked.
struct OSCOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Listen for OSC on this UDP port: klick's namespace (/klick/...), every key's action (/metronome/tap, ...) and a beat feed timetagged with when each beat is heard (/metronome/subscribe).", valueName: "port"))
    var osc: Int?

    @Option(name: .long, help: ArgumentHelp("With --osc, the address to listen on: 127.0.0.1 unless given (0.0.0.0 or :: for every network: any peer there can then control the run).", valueName: "address"))
    var oscHost: String?

    @Flag(name: .long, help: "With --osc, listen over TCP on the same port too (OSC 1.0's size-prefixed packets or 1.1's SLIP, as each client sends them); replies go back on the connection.")
    var oscTcp = false

    @Flag(name: .long, help: "With --osc, consider messages that name a file (/klick/map/load_file, /klick/config/set_sound ,ss): refused without it, so a peer never opens a file as you.")
    var oscAllowFiles = false

    /// The server these options ask for; refused where nothing plays live.
    func settings(output: OutputOptions, tempoMap: String?) throws(SessionError) -> OSCSettings? {
        guard let osc else {
            if oscHost != nil { throw .badRequest("--osc-host needs --osc PORT") }
            if oscTcp { throw .badRequest("--osc-tcp needs --osc PORT") }
            if oscAllowFiles { throw .badRequest("--osc-allow-files needs --osc PORT") }
            return nil
        }
        guard (1...65_535).contains(osc) else { throw .badRequest("--osc \(osc) is no port: one from 1 to 65535") }
        if output.output != nil { throw .badRequest("--osc does not mix with --output: it controls a run that plays live") }
        if oscHost?.isEmpty == true { throw .badRequest("--osc-host needs an address, such as 127.0.0.1") }
        return OSCSettings(host: oscHost ?? "127.0.0.1", port: osc, tcp: oscTcp, filesAllowed: oscAllowFiles, mapFile: tempoMap)
    }
}
