import TimerClient
import TimerModel
import TimerProtocol

/// One of the verbs that edit a timer after it started (`extend`, `restart`, `rename`, `skip`,
/// `beat`, `ack`, `snooze`, `rm`), checked locally before any daemon is asked, then sent and reported.
struct EditRequest {
    /// The verb.
    var verb: Verb
    /// The timer as typed, or `nil` for `rm --all-ended`.
    var timer: String?
    /// `extend`'s amount in seconds (negative subtracts).
    var seconds: Double = 0
    /// `rename`'s new name.
    var newName = ""
    /// `snooze`'s DURATION in seconds, or `nil` for timerd's default.
    var snoozeSeconds: Double?

    /// Reads and checks the arguments of an edit verb; `nil` for any other verb.
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` for a bad reference, duration or name.
    init?(_ verb: Verb, _ options: ControlOptions) throws(ControlError) {
        guard [.extend, .restart, .rename, .skip, .beat, .ack, .snooze, .remove].contains(verb) else { return nil }
        self.verb = verb
        timer = options.arguments.first
        do throws(CountdownError) {
            if let timer { _ = try TimerReference(parsing: timer) }
            if verb == .extend { seconds = try DurationParser.signedSeconds(from: options.arguments[1]) }
            if verb == .snooze, options.arguments.count > 1 {
                snoozeSeconds = try DurationParser.seconds(from: options.arguments[1])
            }
            if verb == .rename {
                newName = options.arguments[1]
                guard TimerName.isValid(TimerName.normalized(newName)) else { throw .invalidName(newName) }
            }
        } catch {
            throw .usage(error.description, verb: verb)
        }
    }

    /// Sends the request and prints the confirmation (or `--json`).
    ///
    /// - Throws: ``ControlError/failed(_:)`` with the daemon's refusal, or a connection error.
    func run(on client: ControlClient, options: ControlOptions, output: inout some ControlOutput)
        throws(ControlError)
    {
        let target = timer ?? ""
        let timer: TimerInfo
        switch verb {
        case .extend:
            timer = try client.call(.extend(target, seconds: seconds), as: TimerInfo.self)
        case .rename:
            timer = try client.call(.rename(target, to: newName), as: TimerInfo.self)
        case .restart:
            timer = try client.call(.restart(target), as: TimerInfo.self)
        case .skip:
            timer = try client.call(.skip(target), as: TimerInfo.self)
        case .beat:
            timer = try client.call(.beat(target), as: TimerInfo.self)
        case .ack:
            timer = try client.call(.ack(target), as: TimerInfo.self)
        case .snooze:
            timer = try client.call(.snooze(target, seconds: snoozeSeconds), as: TimerInfo.self)
        default:
            let removed = try client.call(.remove(self.timer), as: [TimerInfo].self)
            if options.json {
                output.out(try ControlCommand.json(removed))
            } else if removed.isEmpty {
                output.out("no ended timers to remove\n")
            } else {
                for timer in removed {
                    output.out("removed \(timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id)\n")
                }
            }
            return
        }
        if options.json {
            output.out(try ControlCommand.json(timer))
        } else if verb == .extend {
            let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
            output.out(StatusTable.editConfirmation(verb, label, timer, isShortened: seconds < 0))
        } else {
            output.out(StatusTable.confirmation(verb, timer))
        }
    }
}
