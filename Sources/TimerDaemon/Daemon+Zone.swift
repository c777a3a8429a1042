import Countdown
import Foundation
import TimerSystem

/// The system zone's watch: calendar timers that follow the system zone are re-timed when
/// `/etc/localtime` (or `TIMERD_LOCALTIME`) names another zone (docs/calendar.md, "Zones").
extension Daemon {
    /// The epoll token of the inotify watch of the system zone's file. Not 4: the backend's descriptor
    /// (``backendToken``) takes 4.
    static let zoneToken: UInt64 = 5

    /// Watches `path`'s directory with inotify and registers the watch with `epoll`; `nil` (logged)
    /// when it cannot: timers then keep the zone timerd started with.
    static func watchZoneFile(_ path: String, epoll: Epoll, log: (String) -> Void) -> ZoneFileWatch? {
        do {
            let watch = try ZoneFileWatch(path: path)
            try epoll.add(watch.descriptor, interest: .readable, token: zoneToken)
            return watch
        } catch {
            log("warning: cannot watch \(path) for time-zone changes: \(error)")
            return nil
        }
    }

    /// The system zone's file changed (`/etc/localtime` replaced): when the zone it names differs,
    /// calendar timers that follow the system zone are re-timed; explicit-zone timers are not.
    func zoneFileChanged() {
        guard let zoneWatch, zoneWatch.acknowledge() else { return }
        let detected = SystemZone.detect(tz: zoneTZ, localtime: zonePath)
        let old = backend.systemTimeZone.identifier
        guard detected.zone.identifier != old else { return }
        if let warning = detected.warning { log("warning: \(warning)") }
        let moved = backend.systemTimeZoneChanged(to: detected.zone)
        log(
            "system time zone changed from \(old) to \(detected.zone.identifier): re-timed \(moved) calendar "
                + "timer\(moved == 1 ? "" : "s")")
        fireTimers()
    }
}
