// timerd: the timer daemon. Everything lives in TimerDaemon; this file only runs it.
import Glibc
import TimerDaemon

exit(DaemonCommand.main(Array(CommandLine.arguments.dropFirst())))
