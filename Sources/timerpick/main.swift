// timerpick: the terminal date picker that `timerctl pick` runs, and the calendar evaluator that
// `timerctl calendar` runs (`timerpick calendar …`). Everything lives in PickCommand and CalendarCommand; this
// file only runs them. A separate executable because it links full Foundation (ICU), which timerctl must not
// load (docs/performance.md).
import DatePicking
import Foundation

// A TZ that Foundation traps on (`GMT-05:-0`) would kill timerpick at `TimeZone.current`: UTC instead, said.
if let raw = getenv("TZ") {
    let tz = String(cString: raw)
    if !DatePicker.isSafeZoneIdentifier(tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) {
        setenv("TZ", "UTC", 1)
        Terminal.write(2, "warning: TZ=\"\(tz)\" names no time zone this system knows; using UTC\n")
    }
}

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "calendar" {
    // The zone timerd would read for the same TZ (`start --on` uses it): not Foundation's `.current`.
    let zone = PickTimeZone.current()
    if let warning = zone.warning { Terminal.write(2, "warning: \(warning)\n") }
    let result = CalendarCommand.run(
        Array(arguments.dropFirst()), now: CalendarCommand.now(environment: environment), defaultZone: zone.zone)
    Terminal.write(1, result.out)
    Terminal.write(2, result.err)
    exit(result.status)
}
exit(PickCommand.run(arguments, now: PickCommand.now(environment: environment)))
