import ArgumentParser
import MetronomeSession

/// Remote control over OSC: klick's namespace on a UDP port.
struct OSCOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Listen for OSC on this UDP port: klick's namespace (/klick/ping, /klick/quit, /klick/metro/start and stop, /klick/simple/set_tempo and tap).", valueName: "port"))
    var osc: Int?

    @Option(name: .long, help: ArgumentHelp("With --osc, the address to listen on: 127.0.0.1 unless given (0.0.0.0 or :: for every network: any peer there can then control the run).", valueName: "address"))
    var oscHost: String?

    /// The server these options ask for; refused where nothing plays live.
    func settings(output: OutputOptions) throws(SessionError) -> OSCSettings? {
        guard let osc else {
            if oscHost != nil { throw .badRequest("--osc-host needs --osc PORT") }
            return nil
        }
        guard (1...65_535).contains(osc) else { throw .badRequest("--osc \(osc) is no port: one from 1 to 65535") }
        if output.output != nil { throw .badRequest("--osc does not mix with --output: it controls a run that plays live") }
        if oscHost?.isEmpty == true { throw .badRequest("--osc-host needs an address, such as 127.0.0.1") }
        return OSCSettings(host: oscHost ?? "127.0.0.1", port: osc)
    }
}
