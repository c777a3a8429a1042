import TimerClient
import TimerModel
import TimerSystem

extension RecurringStart {
    /// The recurring `timer.start` of `timerctl start --on EXPR` or `--every DURATION`, with the
    /// group each elapse starts when DURATIONs are given (and `--loops`, `--overlap`).
    ///
    /// Checks what can be checked locally (durations, the --from time) before anything is sent; the
    /// expression itself is parsed by timerd, whose error names the token and its offset.
    ///
    /// The zone sent with `--on` is the caller's `TZ` when it is set (explicit: the timer keeps it);
    /// without `TZ` none is sent and the timer follows the system zone. `--from` with a local time
    /// is sent with the local zone, as `--at` is.
    ///
    /// - Parameter options: the parsed command line.
    /// - Returns: the parameters (without the action, which the caller adds).
    /// - Throws: ``ControlError/usage(_:verb:)`` for a bad duration, name, empty expression or time.
    static func make(_ options: ControlOptions) throws(ControlError) -> RecurringStart {
        var params = RecurringStart(on: options.on, skipMissed: options.skipMissed, name: options.name)
        do throws(CountdownError) {
            if let every = options.every { params.every = try DurationParser.seconds(from: every) }
            if let delay = options.randomizedDelay { params.randomizedDelay = try DurationParser.seconds(from: delay) }
            if let name = options.name, !TimerName.isValid(name) { throw .invalidName(name) }
            if !options.arguments.isEmpty {
                let durations = try options.arguments.map { text throws(CountdownError) in
                    try DurationParser.seconds(from: text)
                }
                if durations.count > TimerLimits.maximumGroupSize { throw .groupSizeOutOfRange(durations.count) }
                params.durations = durations
            }
        } catch {
            throw .usage(error.description, verb: .start)
        }
        if let on = options.on {
            guard on.contains(where: { $0 != " " && $0 != "\t" }) else {
                throw .usage("--on needs a calendar expression, such as --on 'Mon..Fri 07:00'", verb: .start)
            }
            // TZ set (an empty TZ is UTC): that zone; unset: none, so the timer follows timerd's system zone.
            if let tz = ProcessEnvironment.valueIfSet("TZ") {
                params.timeZone = LocalTimeZone.detect(tz: tz).name
            }
        }
        if let from = options.from {
            let time = try AbsoluteTime.parse(from, minuteInterval: nil)
            params.from = time.text
            params.timeZone = time.timeZone
        }
        params.loops = options.loops
        params.overlap = options.overlap
        return params
    }
}
