import DatePicking
import Foundation
import Synchronization
import TimerProtocol
import TimerSystem

extension LocalTimes {
    /// POSIX rule strings already matched to a database zone (reading the database takes ~50 ms).
    private static let footerMatches = Mutex<[String: String]>([:])

    /// The zone a `timeZone` parameter names, read the way glibc reads `TZ` (man tzset(3)): a file
    /// of the time-zone database first (`Europe/Paris`, `EST5EDT`, `posix/Europe/Paris`), else a
    /// POSIX `TZ` string with POSIX's sign (`UTC+3` is UTC−03:00; `<+0330>-3:30` is UTC+03:30), else a
    /// name Foundation's own database knows.
    ///
    /// A POSIX string with daylight saving (`CET-1CEST,M3.5.0,M10.5.0/3`) is the database zone whose
    /// TZif footer (RFC 8536) is that very rule: its offsets after its last transition, which covers
    /// every instant a timer can end at (the next 366 days), are the rule's.
    ///
    /// - Parameter name: the zone as `timerctl` sent it.
    /// - Returns: the zone, and the name to show for it (the one sent).
    /// - Throws: `RPCError` `invalidParams` naming the zone and what is accepted.
    static func zone(named name: String) throws -> (zone: TimeZone, name: String) {
        let unknown = RPCError(
            .invalidParams, "unknown time zone \"\(name)\": use an IANA name such as Europe/Paris or UTC")
        let stripped = ZoneInfo.strippingTree(ZoneInfo.name(fromPath: name) ?? name)
        if ZoneInfo.hasZone(named: stripped), let zone = TimeZone(identifier: stripped) { return (zone, stripped) }
        if let rule = PosixTimeZoneRule(parsing: name) {
            guard rule.hasDaylightSaving else {
                guard let zone = TimeZone(secondsFromGMT: rule.standardOffsetSeconds) else { throw unknown }
                return (zone, name)
            }
            guard rule.rules != nil else {
                throw RPCError(
                    .invalidParams,
                    "POSIX time zone \"\(name)\" has daylight saving but no rules: add them, e.g. "
                        + "EST5EDT,M3.2.0,M11.1.0, or use an IANA name such as America/New_York")
            }
            let cached = footerMatches.withLock { $0[name] }
            if let match = cached ?? ZoneInfo.name(withFooter: name), let zone = TimeZone(identifier: match) {
                footerMatches.withLock { $0[name] = match }
                return (zone, name)
            }
            throw RPCError(
                .invalidParams,
                "no zone of the time-zone database follows the POSIX rule \"\(name)\": use an IANA name "
                    + "such as Europe/Paris")
        }
        // Through DatePicker: it refuses names that make Foundation trap (`GMT-05:-0`) before asking it.
        if let zone = try? DatePicker.timeZone(identifier: stripped) { return (zone, stripped) }
        throw unknown
    }
}
