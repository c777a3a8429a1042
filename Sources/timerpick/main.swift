// timerpick: the terminal date picker that `timerctl pick` runs. Everything lives in PickCommand; this file only
// runs it. A separate executable because it links full Foundation (ICU), which timerctl must not load
// (docs/performance.md).
import Foundation

let now = PickCommand.now(environment: ProcessInfo.processInfo.environment)
exit(PickCommand.run(Array(CommandLine.arguments.dropFirst()), now: now))
