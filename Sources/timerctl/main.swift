// timerctl: the control CLI. Everything lives in TimerControl; this file only runs it.
import Glibc
import TimerControl

var output = StandardOutput()
exit(ControlCommand.run(Array(CommandLine.arguments.dropFirst()), output: &output))
