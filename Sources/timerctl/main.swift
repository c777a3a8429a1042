// timerctl: the control CLI. Everything lives in TimerControl; this file only runs it.
import Glibc
import TimerControl

var output = StandardOutput()
let status = ControlCommand.run(Array(CommandLine.arguments.dropFirst()), output: &output)
// Everything was written with write(2), unbuffered, so nothing is left to flush: _exit skips the
// C and Swift runtime teardown (about half a millisecond of a 4-5 ms run; docs/performance.md).
_exit(status)
