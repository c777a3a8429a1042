import Foundation
import TimerProtocol
import ZoneReading

extension LocalTimes {
    /// The zone a `timeZone` parameter names, read as glibc reads `TZ` (``ZoneReading/ZoneReader/zone(named:)``:
    /// a database name, else a POSIX `TZ` string with POSIX's sign, else a name Foundation knows).
    ///
    /// - Parameter name: the zone as `timerctl` sent it.
    /// - Returns: the zone, and the name to show for it (the one sent).
    /// - Throws: `RPCError` `invalidParams` naming the zone and what is accepted.
    static func zone(named name: String) throws -> (zone: TimeZone, name: String) {
        do {
            return try ZoneReader.zone(named: name)
        } catch {
            throw RPCError(.invalidParams, error.description)
        }
    }
}
