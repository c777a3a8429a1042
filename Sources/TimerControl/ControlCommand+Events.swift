import FoundationEssentials
import Glibc
import TimerClient
import TimerModel
import TimerProtocol
import TimerSystem

extension ControlCommand {
    /// `timerctl events [ID|NAME] [--json]`: subscribes to every timer the user may see (or one)
    /// and prints each event as it arrives, one line each, until interrupted or timerd goes away.
    ///
    /// - Parameters:
    ///   - client: the connection.
    ///   - target: a timer's id or name, or `nil` for every timer.
    ///   - json: print the notification objects as they came, one per line.
    ///   - output: where to print.
    /// - Returns: never normally: the command runs until the connection ends.
    /// - Throws: ``ControlError/failed(_:)`` (no such timer), ``ControlError/unavailable(_:)``
    ///   when timerd closes the connection, ``ControlError/protocolError(_:)`` for a bad line.
    static func followEvents(
        _ client: ControlClient, target: String?, json: Bool, output: inout some ControlOutput
    ) throws(ControlError) -> Int32 {
        _ = try client.call(.subscribe(timer: target, kinds: nil, afterSeq: nil), as: SubscribeResult.self)
        while true {
            guard let line = try client.readLine(timeoutMilliseconds: -1) else { continue }
            let notification: ServerNotification?
            do {
                notification = try ServerNotification(line: line)
            } catch {
                throw .protocolError(String(decoding: line.prefix(200), as: UTF8.self))
            }
            switch notification {
            case .event(let event):
                output.out(json ? String(decoding: event.line, as: UTF8.self) + "\n" : EventLine.render(event))
            case .gap(let from, let to, let reason):
                output.out(
                    json ? String(decoding: line, as: UTF8.self) + "\n" : EventLine.gap(from, to, reason: reason))
            case .other, nil:
                continue  // a reply to nothing we sent, or a notification this timerctl does not know
            }
        }
    }
}

/// The human form of `timerctl events` lines: `2026-12-01 09:00:00  started    3  tea  25m, ends …`;
/// the kind is padded to 9 characters (`restarted`, the longest kind), so ids line up.
enum EventLine {
    /// One event: local time, kind, id, name (`-` for none) and a detail.
    ///
    /// - Parameters:
    ///   - event: the notification.
    ///   - localTime: how an instant is shown (default: ``localTime(_:)``, the local zone).
    /// - Returns: the line with its newline.
    static func render(_ event: TimerEventNotification, localTime: (Date) -> String = localTime) -> String {
        let time = ISO8601.displayDate(from: event.at).map(localTime) ?? event.at
        let columns = [
            time, event.event.padding(to: 9), event.timer.id, event.timer.name ?? "-",
            detail(of: event, localTime: localTime),
        ]
        return columns.joined(separator: "  ").trimmingTrailingSpaces + "\n"
    }

    /// The line for a `timer.gap`.
    static func gap(_ from: UInt64, _ to: UInt64, reason: String) -> String {
        let count = to >= from ? to - from + 1 : 0
        let why =
            reason == "slow"
            ? "this reader was too slow" : reason == "ring" ? "they are older than timerd keeps" : reason
        let numbers = from == to ? "event \(from)" : "events \(from)-\(to)"
        return "\(localTime(Date()))  -- \(count) \(count == 1 ? "event" : "events") lost (\(numbers)): \(why) --\n"
    }

    /// What the kind says, in one format for every kind: short phrases separated by `, `; instants
    /// in local time (`2026-11-29 09:27:30`, as the line's own time); durations as typed (`25m`,
    /// `25m + 5m` for a group, `+5m`/`-10m` for a change); time left as `0:00:30 left`; text in
    /// double quotes. Kinds this timerctl does not know show their own members as `key=JSON`.
    ///
    /// `started 25m + 5m, ends …` · `restarted 25m, ends …` · `step 2 of 2, 0:00:30 left` ·
    /// `paused`/`resumed`/`stopped 0:00:30 left` · `beat #3, ends …` · `extended +5m, 0:35:00 left` ·
    /// `finished after 25m` (`finished acknowledged`) · `ringing #2` · `warning, ends …` ·
    /// `snoozed 9m, 0:09:00 left` · `unanswered stopped ringing after 20 rings` · `missed ended … while timerd was down` · `action exec exited status 0
    /// (finished)` · `renamed from "focus"` · `removed finished` · `elapsed #1, next …`.
    private static func detail(of event: TimerEventNotification, localTime: (Date) -> String) -> String {
        let timer = event.timer
        let left = DurationFormatter.clock(seconds: timer.remaining) + " left"
        func instant(_ text: String?) -> String? {
            text.map { text in ISO8601.displayDate(from: text).map(localTime) ?? text }
        }
        func number(_ key: String) -> Double? {
            if case .number(let value)? = event.params[key] { return value }
            return nil
        }
        switch event.event {
        case "started", "restarted":
            let parts = timer.children.map { $0.map(\.duration) } ?? [timer.duration]
            let durations = parts.map { DurationFormatter.compact(seconds: $0) }.joined(separator: " + ")
            return [durations, instant(timer.endsAt).map { "ends " + $0 }].compactMap(\.self).joined(separator: ", ")
        case "paused", "resumed", "stopped": return left
        case "beat":
            let count = timer.heartbeat.map { "#\($0.beatCount), " } ?? ""
            return count + ([instant(timer.endsAt).map { "ends " + $0 }, left].compactMap(\.self).first ?? left)
        case "step":
            let count = timer.children?.count ?? 1
            return number("child").flatMap { Int(exactly: $0) }.map { "step \($0 + 1) of \(count), \(left)" } ?? left
        case "extended":
            guard let by = number("by") else { return left }
            return (by < 0 ? "" : "+") + DurationFormatter.compact(seconds: by) + ", " + left
        case "finished":
            if timer.alarm?.outcome == "acknowledged" { return "acknowledged" }
            return "after " + DurationFormatter.compact(seconds: timer.duration)
        case "ringing":
            return number("ring").flatMap { Int(exactly: $0) }.map { "#\($0)" } ?? ""
        case "warning":
            return [instant(timer.endsAt).map { "ends " + $0 }, left].compactMap(\.self).first ?? left
        case "snoozed":
            guard let seconds = number("for") else { return left }
            return DurationFormatter.compact(seconds: seconds) + ", " + left
        case "unanswered":
            let count = timer.alarm?.ringCount ?? 0
            return "stopped ringing after \(count) \(count == 1 ? "ring" : "rings")"
        case "missed":
            return (instant(timer.endedAt).map { "ended \($0)" } ?? "ended") + " while timerd was down"
        case "renamed":
            guard case .string(let from)? = event.params["from"] else { return "" }
            return "from \"\(from)\""
        case "removed": return timer.state.rawValue
        case "elapsed":
            var parts: [String] = []
            if let count = timer.recurrence?.elapseCount { parts.append("#\(count)") }
            if let missed = number("missed"), missed > 0 { parts.append("caught up \(Int(missed))") }
            if let next = instant(timer.recurrence?.nextElapse) { parts.append("next " + next) }
            return parts.joined(separator: ", ")
        case "action":
            // {"kind":"exec","outcome":"exited","status":0,"trigger":"finished"} (docs/actions.md).
            guard case .object(let action)? = event.params["action"], case .string(let kind)? = action["kind"],
                case .string(let outcome)? = action["outcome"]
            else { return "" }
            var text = "\(kind) \(outcome)"
            if case .number(let status)? = action["status"] { text += " status \(Int(status))" }
            if case .string(let trigger)? = action["trigger"] { text += " (\(trigger))" }
            return text
        default:
            // A kind this timerctl does not know: its own members, as JSON.
            let own = event.params.keys.sorted().filter { !["at", "event", "seq", "timer"].contains($0) }
            return own.compactMap { key in event.params[key].map { "\(key)=\(compactJSON($0))" } }
                .joined(separator: " ")
        }
    }

    /// `2026-12-01 09:00:00` in the local time zone (TZ, else /etc/localtime).
    static func localTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return ISO8601.string(from: date) }
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `value` as compact JSON with sorted keys, for a member of a kind this timerctl does not know.
    static func compactJSON(_ value: JSONValue) -> String {
        var writer = JSONBytesWriter()
        // A parsed value holds finite numbers only; `null` stands for one that is not.
        if (try? value.write(to: &writer)) == nil { return "null" }
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension String {
    /// The string padded with spaces on the right to `width` characters.
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// The string without trailing spaces.
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
