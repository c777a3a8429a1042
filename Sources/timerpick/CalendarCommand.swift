import CalendarEvents
import CommandLineTable
import Foundation
import Glibc
import TimerControl
import TimerModel

/// `timerpick calendar …`, which `timerctl calendar` execs: parses the line with timerctl's table (`calendar`),
/// evaluates the expression with CalendarEvents and prints a ``CalendarReport``.
///
/// It lives in this executable because time zones need full Foundation (ICU's zone data), which `timerctl`
/// does not load (docs/performance.md); nothing here talks to the daemon.
enum CalendarCommand {
    /// The largest `--iterations`.
    static let maximumIterations = 1000

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `calendar`.
    ///   - now: The current instant (the default base time and "From now").
    ///   - defaultZone: The zone for an expression without one, and the zone of the text output's local
    ///     times (``PickTimeZone/current(tz:)``: TZ as timerd reads it, else the system's).
    /// - Returns: The exit status and the text for standard output and standard error.
    static func run(_ arguments: [String], now: Date, defaultZone: TimeZone) -> (
        status: Int32, out: String, err: String
    ) {
        var text: String?
        var iterations = 1
        var base = now
        var json = false
        var scanner = CommandLineScanner(table: .timerctl, arguments: ["calendar"] + arguments)
        do throws(CalendarUsageError) {
            while true {
                let token: CommandLineScanner.Token?
                do {
                    token = try scanner.next()
                } catch {
                    throw CalendarUsageError(description: error.description)
                }
                switch token {
                case nil: break
                case .command: continue
                case .argument(let argument):
                    guard text == nil else {
                        throw CalendarUsageError(description: "'calendar' takes exactly one EXPR")
                    }
                    text = argument
                    continue
                case .option(let option, let value, _):
                    switch option.longName {
                    case "--help": return (0, HelpText.forVerb(.calendar), "")
                    case "--json": json = true
                    case "--iterations":
                        guard let count = Int(value ?? ""), (1...maximumIterations).contains(count) else {
                            throw CalendarUsageError(
                                description: "--iterations must be a whole number from 1 to \(maximumIterations),"
                                    + " got \"\(value ?? "")\"")
                        }
                        iterations = count
                    case "--base-time":
                        guard let instant = baseTime(value ?? "") else {
                            throw CalendarUsageError(
                                description: "--base-time must be an ISO 8601 instant with Z or an offset"
                                    + " (2026-12-01T09:00:00+01:00) or @SECONDS, got \"\(value ?? "")\"")
                        }
                        base = instant
                    default:
                        throw CalendarUsageError(description: "option '\(option.longName)' is not for 'calendar'")
                    }
                    continue
                }
                break
            }
            guard let text else { throw CalendarUsageError(description: "'calendar' takes exactly one EXPR") }
            let expression: CalendarExpression
            do {
                expression = try CalendarExpression.parse(text)
            } catch {
                throw CalendarUsageError(description: error.description)
            }
            let report = CalendarReport(
                original: text, expression: expression,
                elapses: expression.elapses(after: base, defaultZone: defaultZone, count: iterations), now: now)
            return (
                0, json ? report.json : report.text(local: { localText($0, zone: defaultZone) }, utc: utcText), ""
            )
        } catch {
            return (64, "", "Error: \(error)\nSee 'timerctl calendar --help'.\n")
        }
    }

    /// The current instant, or `TIMERPICK_NOW` (ISO 8601) for tests; not rounded, unlike the picker's "now".
    static func now(environment: [String: String]) -> Date {
        environment["TIMERPICK_NOW"].flatMap { ISO8601.date(from: $0) } ?? Date()
    }

    /// A usage error: a bad option value or expression.
    struct CalendarUsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// `@SECONDS` (as systemd's `--base-time=@…`) or an ISO 8601 instant with Z or an offset.
    static func baseTime(_ text: String) -> Date? {
        if text.hasPrefix("@"), let seconds = Double(text.dropFirst()), seconds.isFinite {
            return Date(timeIntervalSince1970: seconds)
        }
        return ISO8601.date(from: text)
    }

    /// `Www YYYY-MM-DD HH:MM:SS ZONE` in `zone`, the time the expression was evaluated in. The
    /// abbreviation is the C library's (`CET`, as systemd prints it) when libc's local time has the same
    /// offset at that instant, else Foundation's (`GMT+1`).
    ///
    /// - Parameters:
    ///   - date: The instant; fractions of a second are dropped (floored).
    ///   - zone: The zone to show it in.
    /// - Returns: The text.
    static func localText(_ date: Date, zone: TimeZone) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        var libcFields = tm()
        localtime_r(&seconds, &libcFields)
        var abbreviation: String
        if libcFields.tm_gmtoff == offset, let name = libcFields.tm_zone {
            abbreviation = String(cString: name)
        } else {
            abbreviation = zone.abbreviation(for: date) ?? "UTC"
        }
        if abbreviation == "GMT", offset == 0 { abbreviation = "UTC" }
        var shifted = seconds + time_t(offset)
        var fields = tm()
        gmtime_r(&shifted, &fields)
        return strftimeText("%a %Y-%m-%d %H:%M:%S", fields) + " " + abbreviation
    }

    /// The same in UTC.
    static func utcText(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        return strftimeText("%a %Y-%m-%d %H:%M:%S UTC", fields)
    }

    private static func strftimeText(_ format: String, _ fields: tm) -> String {
        var fields = fields
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &fields)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
