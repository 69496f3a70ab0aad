import Glibc
import MetronomeCommandLine

// The whole program is the command-line library's; this only runs it.
exit(MetronomeCommand.runAsMain())
