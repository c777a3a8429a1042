import Foundation
import Glibc
import Testing
import TimerModel
import TimerProtocol

/// Recurring timers through the real timerd and timerctl: a `*:*:0/2`
/// timer with `--exec` rings every 2 s, survives a restart of timerd without a duplicate or a lost
/// elapse (the elapses that pass while it is down ring as one catch-up that stands for all of them),
/// and stops cleanly; a calendar timer that follows the system zone is re-timed when the zone file
/// is replaced. Bounds are generous (the machine is shared); sleeps are real, as the daemon's are.
@Suite("Recurring timers through the real timerd", .serialized, .tags(.endToEnd))
struct RecurringEndToEndTests {
    /// The lines of `path` (none when it does not exist yet).
    private func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func status(_ harness: Harness, _ timer: String) throws -> TimerInfo {
        let timers = try harness.ctlJSON(["status", timer], as: [TimerInfo].self)
        return try #require(timers.first)
    }

    /// The first elapse of a `*:*:0/2` timer: the first even second strictly after its start
    /// (`createdAt`; systemd.time(7): the next elapse after now). Read from the start instant, not
    /// from a status's `nextElapse`, which on a loaded machine may already name the second elapse.
    private static func firstElapse(_ harness: Harness, _ timer: String) throws -> Date? {
        let timers = try harness.ctlJSON(["status", timer], as: [TimerInfo].self)
        guard let created = timers.first?.createdAt.flatMap({ ISO8601.date(from: $0) }) else { return nil }
        let seconds = created.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / 2).rounded(.down) * 2 + 2)
    }

    @Test("*:*:0/2 with --exec rings 3 times in ~6 s, survives a restart with no duplicate or lost elapse, stops")
    func everyTwoSeconds() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let runs = harness.directory + "/runs.txt"
        let started = harness.ctl([
            "start", "--on", "*:*:0/2", "--name", "tick", "--exec", "echo \"$TIMER_EVENT\" >> '\(runs)'",
        ])
        #expect(started.status == 0, "\(started)")
        #expect(started.stdout.hasPrefix("started 1 \"tick\": *:*:0/2 ("), "\(started)")
        // The first elapse as the start computed it: a status read afterwards, on a loaded machine,
        // may come after that elapse and name the next one (then one elapse would seem extra).
        let firstElapse = try #require(try Self.firstElapse(harness, "tick"))
        // The elapses at +0, +2 and +4 s run the command three times; the fourth elapse is at +6 s, so
        // waiting (polling) until 1.5 s after the third leaves the machine time to start the command.
        let settled = firstElapse.addingTimeInterval(5.5)
        while Date() < settled, lines(runs).count < 3 { usleep(20_000) }
        #expect(lines(runs) == ["elapsed", "elapsed", "elapsed"], "\(harness.log())")

        // timerd stops for 3 s: at least one elapse passes while it is down.
        #expect(harness.stopDaemon() == 0)
        Thread.sleep(forTimeInterval: 3)
        try harness.startDaemon()
        // The catch-up rings within its 5 s spread; then on-time elapses go on (2 s apart).
        Thread.sleep(forTimeInterval: 9)
        let stopped = harness.ctl(["stop", "tick", "--json"])
        #expect(stopped.status == 0, "\(stopped)")
        let info = try JSONDecoder().decode(TimerInfo.self, from: Data(stopped.stdout.utf8))
        #expect(info.state == .stopped)
        let recurrence = try #require(info.recurrence)
        #expect(recurrence.nextElapse == nil)
        let lastElapse = try #require(recurrence.lastElapse.flatMap { ISO8601.date(from: $0) })
        // Every even second from the first elapse to the last is accounted for exactly once: rung on
        // time (one run each) or folded into the catch-up (its `missed`).
        let instants = Int((lastElapse.timeIntervalSince(firstElapse) / 2).rounded()) + 1
        #expect(recurrence.elapseCount == instants, "\(harness.log())")
        let ran = lines(runs)
        #expect(ran.filter { $0 == "missed" }.count == 1, "one catch-up after the restart: \(ran)")
        #expect(ran.count <= instants, "never more runs than elapses: \(ran)")
        #expect(ran.count >= 3 + 1 + 1, "three before, the catch-up, and an on-time one after it: \(ran)")
        // Stopped: nothing rings any more.
        let count = ran.count
        Thread.sleep(forTimeInterval: 2.5)
        #expect(lines(runs).count == count)
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "--on and --every on each backend: the start's fields, an elapse with its event and action, the edits refused, pause, resume, stop",
        arguments: TestBackend.available)
    func seriesOnEachBackend(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let subscriber = try RawClient(path: harness.socketPath)
        _ = try subscriber.subscribe(#""events":["elapsed"]"#)
        let runs = harness.directory + "/runs.txt"
        let calendar = harness.ctl([
            "start", "--on", "*:*:0/2", "--name", "tick", "--exec", "echo \"$TIMER_NAME $TIMER_EVENT\" >> '\(runs)'",
            "--json",
        ])
        #expect(calendar.status == 0, "\(calendar)")
        let tick = try JSONDecoder().decode(TimerInfo.self, from: Data(calendar.stdout.utf8))
        let series = try #require(tick.recurrence)
        // docs/protocol.md "Recurring timers": the expression as given, read in the system zone (no
        // TZ in the request), persistent by default, nothing rung yet; the next elapse is the first
        // even second after the start (systemd.time(7)), which is also when the period ends.
        let created = try #require(tick.createdAt.flatMap { ISO8601.date(from: $0) })
        let firstElapse = Date(timeIntervalSince1970: (created.timeIntervalSince1970 / 2).rounded(.down) * 2 + 2)
        #expect(series.expression == "*:*:0/2" && series.every == nil && series.followsSystemZone == true)
        #expect(series.zone != nil && series.persistent && series.randomizedDelay == 0)
        #expect(series.elapseCount == 0 && series.lastMissed == 0 && series.lastElapse == nil)
        #expect(series.nextElapse == ISO8601.string(from: firstElapse) && tick.endsAt == series.nextElapse)
        #expect(tick.state == .running && tick.name == "tick")

        let periodic = harness.ctl(["start", "--every", "2s", "--name", "ev", "--skip-missed", "--json"])
        #expect(periodic.status == 0, "\(periodic)")
        let ev = try JSONDecoder().decode(TimerInfo.self, from: Data(periodic.stdout.utf8))
        let every = try #require(ev.recurrence)
        // `every` 2 s from the start, without zone or expression; --skip-missed is persistent false.
        let evCreated = try #require(ev.createdAt.flatMap { ISO8601.date(from: $0) })
        #expect(every.every == 2 && every.expression == nil && every.zone == nil && every.followsSystemZone == nil)
        #expect(!every.persistent && every.elapseCount == 0)
        #expect(every.nextElapse == ISO8601.string(from: evCreated.addingTimeInterval(2)))
        #expect(ev.duration == 2 && ev.remaining <= 2)

        // The first elapses of both, as `elapsed` events with `missed` 0, dated at the elapse.
        var seen: [String: [Notification]] = [:]
        while seen["1"] == nil || seen["2"] == nil, let event = subscriber.nextNotification(timeout: 6) {
            seen[event.timerID ?? "?", default: []].append(event)
        }
        let tickEvent = try #require(seen["1"]?.first)
        #expect(tickEvent.event == "elapsed" && tickEvent.params["missed"] as? Int == 0)
        #expect(tickEvent.params["at"] as? String == ISO8601.string(from: firstElapse))
        let evEvent = try #require(seen["2"]?.first)
        #expect(evEvent.event == "elapsed" && evEvent.params["missed"] as? Int == 0)
        // Dated at its deadline: one host estimates it on the wall clock from the boot-time clock,
        // so within a millisecond or two of the start + 2 s.
        let evAt = try #require((evEvent.params["at"] as? String).flatMap { ISO8601.date(from: $0) })
        #expect(abs(evAt.timeIntervalSince(evCreated.addingTimeInterval(2))) < 0.003, "\(evEvent.params)")
        // The calendar timer's action ran for that elapse with TIMER_EVENT=elapsed (docs/actions.md).
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, lines(runs).isEmpty { usleep(20_000) }
        #expect(lines(runs).first == "tick elapsed", "\(harness.log())")
        // `timerctl logs`: that run, triggered by the elapse (docs/actions.md).
        let logs = try harness.ctlJSON(["logs", "tick"], as: ActionRunsResult.self)
        #expect(logs.runs.first?.trigger == "elapsed" && logs.runs.first?.kind == "exec", "\(logs)")
        let afterOne = try status(harness, "tick").recurrence
        #expect((afterOne?.elapseCount ?? 0) >= 1)
        #expect((afterOne?.lastElapse ?? "") >= ISO8601.string(from: firstElapse))

        // The edits whose elapses come from the rule are refused, with the one-host text (CountdownError).
        for verb in ["skip", "restart"] {
            let refused = harness.ctl([verb, "tick"])
            #expect(refused.status != 0)
            #expect(
                refused.stderr
                    == "Error: cannot \(verb) timer 1 (\"tick\"): it is a recurring timer, whose elapses come from its "
                    + "rule; stop it and start a new one, or pause and resume it\n", "\(refused)")
        }
        // Pause silences the series; a calendar series resumes at the first elapse after now.
        let paused = try harness.ctlJSON(["pause", "tick", "--json"], as: TimerInfo.self)
        #expect(paused.state == .paused && paused.recurrence?.nextElapse == nil)
        let resumed = try harness.ctlJSON(["resume", "tick", "--json"], as: TimerInfo.self)
        let resumedAt = Date()
        let next = try #require(resumed.recurrence?.nextElapse.flatMap { ISO8601.date(from: $0) })
        #expect(resumed.state == .running)
        #expect(Int(next.timeIntervalSince1970) % 2 == 0 && next > resumedAt.addingTimeInterval(-0.5))
        #expect(next.timeIntervalSince(resumedAt) <= 2.5)

        // Stop ends both: no next elapse, the count kept; nothing rings afterwards.
        for name in ["tick", "ev"] {
            let stopped = try harness.ctlJSON(["stop", name, "--json"], as: TimerInfo.self)
            #expect(stopped.state == .stopped && stopped.recurrence?.nextElapse == nil)
            #expect((stopped.recurrence?.elapseCount ?? 0) >= 1)
        }
        let count = lines(runs).count
        Thread.sleep(forTimeInterval: 2.5)
        #expect(lines(runs).count == count)
        #expect(harness.stopDaemon() == 0)
    }

    /// Found by trying the merged daemon: without an action nothing marked an elapse for saving, so
    /// after `kill -9` the restarted timerd had the record as of the start (count 0) and rang the
    /// last elapse again as a catch-up. Each elapse is saved now: after SIGKILL right after an elapse,
    /// the count and the last elapse are as before the kill, and over the whole run every even
    /// second is accounted for exactly once.
    @Test("Without an action, each elapse is saved: SIGKILL right after one neither rings it again nor loses the count")
    func elapseSavedWithoutAction() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(harness.ctl(["start", "--on", "*:*:0/2", "--name", "bare"]).status == 0)
        let firstElapse = try #require(try Self.firstElapse(harness, "bare"))
        // Wait for the second elapse, then kill at once (the next one is 2 s away).
        var before = try status(harness, "bare").recurrence
        let deadline = firstElapse.addingTimeInterval(6)
        while Date() < deadline, (before?.elapseCount ?? 0) < 2 {
            usleep(20_000)
            before = try status(harness, "bare").recurrence
        }
        let counted = try #require(before?.elapseCount)
        #expect(counted >= 2)
        let lastBefore = try #require(before?.lastElapse)
        harness.stopDaemon(signal: SIGKILL)
        try harness.startDaemon()
        let after = try #require(try status(harness, "bare").recurrence)
        #expect(after.elapseCount >= counted, "count before the kill \(counted), after \(after.elapseCount)")
        #expect((after.lastElapse ?? "") >= lastBefore, "last elapse \(lastBefore) before, \(after)")
        // Let on-time elapses go on, then stop: every even second from the first elapse to the last is
        // counted once (rung on time, or folded into a catch-up's `missed`), none twice.
        Thread.sleep(forTimeInterval: 9)
        let stopped = harness.ctl(["stop", "bare", "--json"])
        #expect(stopped.status == 0, "\(stopped)")
        let info = try JSONDecoder().decode(TimerInfo.self, from: Data(stopped.stdout.utf8))
        let recurrence = try #require(info.recurrence)
        let lastElapse = try #require(recurrence.lastElapse.flatMap { ISO8601.date(from: $0) })
        let instants = Int((lastElapse.timeIntervalSince(firstElapse) / 2).rounded()) + 1
        #expect(recurrence.elapseCount == instants, "\(harness.log())")
        #expect(harness.stopDaemon() == 0)
    }

    /// Found by trying the merged daemon: Foundation traps (SIGILL) in `TimeZone.current` on a `TZ`
    /// such as `GMT-05:-0` (the `calendar` fuzz target's finding), which killed timerd at start-up
    /// and `timerctl calendar` (timerpick). Both now use UTC and say why, as for any unknown `TZ`.
    @Test("TZ=GMT-05:-0 (an offset Foundation traps on) starts timerd and timerctl calendar with UTC and a warning")
    func trappingTZ() throws {
        let harness = try Harness()
        try harness.startDaemon(environment: ["TZ": "GMT-05:-0"])
        #expect(harness.ctl(["ping"]).status == 0)
        #expect(harness.log().contains(#"warning: TZ="GMT-05:-0" names no time zone this system knows; using UTC"#))
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "GMT-05:-0"
        let calendar = Harness.run(
            Harness.timerctl, ["calendar", "--base-time", "2026-12-01T12:00:00Z", "07:00"], environment: environment)
        #expect(calendar.status == 0, "\(calendar)")
        // 07:00 in UTC after 12:00 UTC on 2026-12-01 (as `TZ=UTC systemd-analyze calendar` gives it).
        #expect(calendar.stdout.contains("Next elapse: Wed 2026-12-02 07:00:00 UTC"), "\(calendar)")
        #expect(calendar.stderr.contains(#"TZ="GMT-05:-0" names no time zone this system knows; using UTC"#))
        #expect(harness.stopDaemon() == 0)
    }

    @Test("Replacing the zone file re-times a timer that follows the system zone; an explicit zone stays")
    func zoneChange() throws {
        let harness = try Harness()
        let zoneDirectory = harness.directory + "/etc"
        try FileManager.default.createDirectory(atPath: zoneDirectory, withIntermediateDirectories: true)
        let localtime = zoneDirectory + "/localtime"
        try FileManager.default.createSymbolicLink(
            atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/Europe/Paris")
        try harness.startDaemon(environment: ["TIMERD_LOCALTIME": localtime], unsetting: ["TZ"])
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = nil
        let follows = Harness.run(
            Harness.timerctl, ["--socket", harness.socketPath, "start", "--on", "*-*-* 07:00", "--name", "wake"],
            environment: environment)
        #expect(follows.status == 0, "\(follows)")
        environment["TZ"] = "Asia/Tokyo"
        let explicit = Harness.run(
            Harness.timerctl, ["--socket", harness.socketPath, "start", "--on", "*-*-* 07:00", "--name", "tokyo"],
            environment: environment)
        #expect(explicit.status == 0, "\(explicit)")
        let before = try status(harness, "wake").recurrence
        #expect(before?.zone == "Europe/Paris" && before?.followsSystemZone == true)
        let tokyo = try status(harness, "tokyo").recurrence
        #expect(tokyo?.zone == "Asia/Tokyo" && tokyo?.followsSystemZone == false)

        // Replaced by a rename, as timedatectl does.
        try FileManager.default.createSymbolicLink(
            atPath: zoneDirectory + "/localtime.new", withDestinationPath: "/usr/share/zoneinfo/America/New_York")
        #expect(rename(zoneDirectory + "/localtime.new", localtime) == 0)
        let deadline = Date().addingTimeInterval(10)
        var after = before
        while Date() < deadline, after?.zone != "America/New_York" {
            usleep(50_000)
            after = try status(harness, "wake").recurrence
        }
        #expect(after?.zone == "America/New_York", "\(harness.log())")
        // 07:00 in New York is 11:00Z or 12:00Z (EDT/EST); in Paris 05:00Z or 06:00Z.
        let next = try #require(after?.nextElapse.flatMap { ISO8601.date(from: $0) })
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "America/New_York"))
        #expect(calendar.component(.hour, from: next) == 7 && calendar.component(.minute, from: next) == 0)
        #expect(try status(harness, "tokyo").recurrence == tokyo)
        #expect(harness.log().contains("system time zone changed from Europe/Paris to America/New_York"))
        #expect(harness.stopDaemon() == 0)
    }

    @Test("A zone change while timerd is down re-times the follower at the next start")
    func zoneChangeWhileDown() throws {
        let harness = try Harness()
        let localtime = harness.directory + "/localtime"
        try FileManager.default.createSymbolicLink(
            atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/Europe/Paris")
        try harness.startDaemon(environment: ["TIMERD_LOCALTIME": localtime], unsetting: ["TZ"])
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = nil
        let started = Harness.run(
            Harness.timerctl, ["--socket", harness.socketPath, "start", "--on", "*-*-* 07:00", "--name", "wake"],
            environment: environment)
        #expect(started.status == 0, "\(started)")
        #expect(harness.stopDaemon() == 0)
        try FileManager.default.removeItem(atPath: localtime)
        try FileManager.default.createSymbolicLink(
            atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/Asia/Tokyo")
        try harness.startDaemon(environment: ["TIMERD_LOCALTIME": localtime], unsetting: ["TZ"])
        let after = try status(harness, "wake").recurrence
        #expect(after?.zone == "Asia/Tokyo" && after?.followsSystemZone == true, "\(harness.log())")
        let next = try #require(after?.nextElapse.flatMap { ISO8601.date(from: $0) })
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(calendar.component(.hour, from: next) == 7 && calendar.component(.minute, from: next) == 0)
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "A bad expression is a usage error (exit 64, as in timerctl calendar): the token and its offset; nothing starts",
        arguments: TestBackend.available)
    func parseError(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let run = harness.ctl(["start", "--on", "Mon..Fry 07:00"])
        // 64 (EX_USAGE), as `timerctl calendar 'Mon..Fry 07:00'` exits; the line after the error
        // points to the command's help.
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.hasSuffix("\nSee 'timerctl start --help'.\n"), "\(run)")
        let calendar = harness.ctl(["calendar", "Mon..Fry 07:00"])
        #expect(calendar.status == 64, "\(calendar)")
        #expect(run.stderr.contains("invalid calendar expression 'Mon..Fry 07:00'"), "\(run)")
        #expect(run.stderr.contains("at offset 0"), "\(run)")
        #expect(harness.ctl(["status"]).stdout.contains("no live timers"))
        #expect(harness.stopDaemon() == 0)
    }
}
