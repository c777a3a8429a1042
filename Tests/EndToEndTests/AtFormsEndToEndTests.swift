import Foundation
import Testing

/// `timerctl start --at` through the real binaries: an ISO 8601 instant without seconds, at(1)'s
/// words (resolved by timerd), and one form for every confirmation (local time, offset and zone).
@Suite("start --at: instants without seconds, noon, next monday; the local form", .tags(.endToEnd))
struct AtFormsEndToEndTests {
    @Test("each form starts a timer; the confirmation is local time with offset and zone, never UTC Z")
    func forms() throws {
        let harness = try Harness()
        try harness.startDaemon()
        defer { _ = harness.stopDaemon() }
        // TZ=Etc/GMT-1 for timerctl (UTC+1 all year: POSIX signs are reversed), so a +01:00 instant reads back as
        // typed, with :00 seconds.
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "Etc/GMT-1"
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 3_600) ?? .gmt
        // Two hours ahead, on a whole minute; written YYYY-MM-DDTHH:MM+01:00 (no seconds).
        let ahead = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 7_200)
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: ahead)
        let typed = String(
            format: "%04d-%02d-%02dT%02d:%02d+01:00", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
            parts.hour ?? 0, parts.minute ?? 0)
        let local = typed.replacingOccurrences(of: "+01:00", with: ":00+01:00")
        let instant = harness.ctl(["start", "--at", typed, "--name", "dinner"], environment: environment)
        #expect(instant.status == 0, "\(instant)")
        #expect(
            instant.stdout.hasPrefix("started 1 \"dinner\": ends at \(local) (Etc/GMT-1), in "), "\(instant)")
        let noon = harness.ctl(["start", "--at", "noon", "--name", "lunch"], environment: environment)
        #expect(noon.status == 0 && noon.stdout.contains("T12:00:00+01:00 (Etc/GMT-1), in "), "\(noon)")
        let monday = harness.ctl(["start", "--at", "9:00 next monday"], environment: environment)
        #expect(monday.status == 0 && monday.stdout.contains("T09:00:00+01:00 (Etc/GMT-1), in "), "\(monday)")
        // A date alone is its midnight: January 15 of next year (always ahead).
        let day = String(format: "%04d-01-15", (parts.year ?? 0) + 1)
        let date = harness.ctl(["start", "--at", day], environment: environment)
        #expect(date.status == 0 && date.stdout.contains(" ends at \(day)T00:00:00+01:00 (Etc/GMT-1)"), "\(date)")
    }
}
