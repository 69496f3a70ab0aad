/// Process exit codes from BSD `sysexits.h`, the ones the metronome uses.
/// Chosen only by `CommandFailure`, from what the layers say happened.
package enum SysExit: Int32, Sendable {
    /// A bad option value or combination. The corresponding C constant is `EX_USAGE`.
    case usage = 64
    /// An input file is malformed (a tempo map that is not one). `EX_DATAERR`.
    case dataError = 65
    /// An input file is missing, unreadable, not audio or empty. `EX_NOINPUT`.
    case noInput = 66
    /// A device, JACK, the Link session or aubio cannot be had, or a calibration failed. `EX_UNAVAILABLE`.
    case unavailable = 69
    /// An internal error that is a bug. `EX_SOFTWARE`.
    case software = 70
    /// The output file cannot be created. `EX_CANTCREAT`.
    case cannotCreate = 73
    /// Reading or writing failed midway (a lost device or JACK server, a full disk). `EX_IOERR`.
    case ioError = 74
    /// The config file is malformed, or sets an option it cannot. `EX_CONFIG`.
    case config = 78
}
