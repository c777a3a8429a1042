import Foundation
import Glibc
import Testing

/// Wake-marked timers through the real binaries (`timerctl start … --wake`): the alarm timerfds
/// timerd arms, read from `/proc/PID/fdinfo` (man proc(5): a timerfd's `clockid` and `it_value`,
/// the time left), and the refusal of a timerd without `CAP_WAKE_ALARM`. Tests run as root, which
/// has the capability; `setpriv` (util-linux) drops it.
@Suite("Wake from suspend end to end", .tags(.endToEnd))
struct WakeEndToEndTests {
    /// `CLOCK_REALTIME_ALARM` and `CLOCK_BOOTTIME_ALARM` as linux/time.h numbers them (8 and 9).
    private static let realtimeAlarm = 8
    private static let boottimeAlarm = 9

    /// The exact text a timerd without `CAP_WAKE_ALARM` refuses `--wake` with (WakeAlarmClocks.swift).
    private static let refusal =
        "this timerd cannot wake the machine: it lacks CAP_WAKE_ALARM; start the timer on the system daemon "
        + "(timerctl --socket /run/timerd/timerd.sock start … --wake), whose unit grants it"

    /// The seconds left (`it_value`, rounded down) of each timerfd of `pid` on `clock`, in fd order.
    private static func alarms(of pid: Int32, clock: Int) throws -> [Int] {
        let directory = "/proc/\(pid)/fdinfo"
        let fds = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap(Int.init).sorted()
        var found: [Int] = []
        for fd in fds {
            guard let text = try? String(contentsOfFile: "\(directory)/\(fd)", encoding: .utf8),
                text.split(separator: "\n").contains("clockid: \(clock)")
            else { continue }
            // "it_value: (599, 912345678)"
            let line = text.split(separator: "\n").first { $0.hasPrefix("it_value:") } ?? ""
            let seconds = line.drop { $0 != "(" }.dropFirst().prefix { $0 != "," }
            found.append(try #require(Int(seconds), "cannot read \(line) of fd \(fd)"))
        }
        return found
    }

    @Test(
        "start 10m --wake arms CLOCK_BOOTTIME_ALARM ~600 s ahead; pause, stop disarm it; shared mode refuses",
        arguments: TestBackend.available)
    func countdown(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let pid = try #require(harness.daemon?.processIdentifier)
        let started = harness.ctl(["start", "10m", "--wake", "--name", "tea"])
        if backend == .shared {
            #expect(started.status == 1, "\(started)")
            #expect(
                started.stderr
                    == "Error: wake-marked timers (\"wake\" of timer.start) are not available in shared mode "
                    + "(timerd --shared): the shared schema does not store the mark and its hosts arm no alarm "
                    + "clock; start them on a one-host timerd (timerctl --socket /run/timerd/timerd.sock start … "
                    + "--wake)\n")
            return
        }
        #expect(started.status == 0 && started.stdout == "started 1 \"tea\": 10m, wakes the machine\n", "\(started)")
        // One timer on each alarm clock, the boot-time one 600 s ahead less the time the start took
        // (rounded down: 599; a generous 590 for a loaded machine); the wall-clock one disarmed.
        var boot = try Self.alarms(of: pid, clock: Self.boottimeAlarm)
        #expect(boot.count == 1 && (590...600).contains(boot[0]), "\(boot)")
        #expect(try Self.alarms(of: pid, clock: Self.realtimeAlarm) == [0])
        // The wire and status show the mark.
        let status = harness.ctl(["status", "tea"])
        #expect(status.stdout.split(separator: "\n").last?.hasSuffix("0%  wake") == true, "\(status)")
        #expect(harness.ctl(["status", "tea", "--json"]).stdout.contains("\"wake\" : true"))
        // Paused: nothing to wake for. Resumed: armed again for the 10 minutes left.
        #expect(harness.ctl(["pause", "tea"]).status == 0)
        #expect(try Self.alarms(of: pid, clock: Self.boottimeAlarm) == [0])
        #expect(harness.ctl(["resume", "tea"]).status == 0)
        boot = try Self.alarms(of: pid, clock: Self.boottimeAlarm)
        #expect(boot.count == 1 && (590...600).contains(boot[0]), "\(boot)")
        // A restart of timerd restores the mark and arms the alarm at once.
        harness.stopDaemon()
        try harness.startDaemon(extraArguments: [])
        let restarted = try #require(harness.daemon?.processIdentifier)
        boot = try Self.alarms(of: restarted, clock: Self.boottimeAlarm)
        #expect(boot.count == 1 && (590...600).contains(boot[0]), "\(boot)")
        // Stopped: disarmed.
        #expect(harness.ctl(["stop", "tea"]).status == 0)
        #expect(try Self.alarms(of: restarted, clock: Self.boottimeAlarm) == [0])
    }

    @Test("start --at an hour ahead --wake arms CLOCK_REALTIME_ALARM ~3600 s ahead")
    func wallClock() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let pid = try #require(harness.daemon?.processIdentifier)
        // An hour from now, in whole seconds, with its offset (UTC).
        let formatter = ISO8601DateFormatter()
        let at = formatter.string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3_600).rounded()))
        let started = harness.ctl(["start", "--at", at, "--wake"])
        #expect(started.status == 0 && started.stdout.hasSuffix(", wakes the machine\n"), "\(started)")
        let wall = try Self.alarms(of: pid, clock: Self.realtimeAlarm)
        #expect(wall.count == 1 && (3_590...3_600).contains(wall[0]), "\(wall)")
        #expect(try Self.alarms(of: pid, clock: Self.boottimeAlarm) == [0])
    }

    @Test("a timerd without CAP_WAKE_ALARM refuses --wake with the route to the system daemon, exit 64")
    func withoutCapability() throws {
        let setpriv = "/usr/bin/setpriv"
        #expect(FileManager.default.isExecutableFile(atPath: setpriv), "util-linux's setpriv is needed")
        let harness = try Harness()
        // Dropped from the inheritable and bounding sets, so timerd's exec keeps no CAP_WAKE_ALARM.
        try harness.startDaemon(launcher: [setpriv, "--inh-caps=-wake_alarm", "--bounding-set=-wake_alarm"])
        let pid = try #require(harness.daemon?.processIdentifier)
        let refused = harness.ctl(["start", "10m", "--wake"])
        // -32602 is a refusal of what the command line asked: exit 64, as timerctl's usage errors.
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr == "Error: \(Self.refusal)\nSee 'timerctl start --help'.\n")
        // No alarm timer at all, and an unmarked start still works.
        #expect(try Self.alarms(of: pid, clock: Self.boottimeAlarm).isEmpty)
        #expect(harness.ctl(["start", "10m"]).status == 0)
        #expect(harness.log().contains("timer.start with wake will be refused: \(Self.refusal)"))
    }
}
