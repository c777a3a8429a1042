// timerpick: the terminal date picker that `timerctl pick` runs, and the calendar evaluator that
// `timerctl calendar` runs (`timerpick calendar …`). Everything lives in PickCommand and CalendarCommand; this
// file only runs them. A separate executable because it links full Foundation (ICU), which timerctl must not
// load (docs/performance.md).
import Foundation

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "calendar" {
    let result = CalendarCommand.run(
        Array(arguments.dropFirst()), now: CalendarCommand.now(environment: environment), defaultZone: .current)
    Terminal.write(1, result.out)
    Terminal.write(2, result.err)
    exit(result.status)
}
exit(PickCommand.run(arguments, now: PickCommand.now(environment: environment)))
