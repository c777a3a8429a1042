import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol
import TimerService

/// Every request/response example in docs/protocol.md, replayed against a real ``TimerService``.
///
/// The document is the test's script: lines `→ …` are sent in order to one service on a
/// ``ManualClock`` (wall clock 2026-11-29T09:00:00Z), lines `← …` are the exact replies expected
/// next, and a line `# … N s later` advances the clock by N seconds and fires due timers. So the
/// examples in the document are checked, byte for byte, on every test run. Notifications of
/// subscriptions (`timer.event`, `timer.gap`) are expected after the reply of the request that
/// caused them, as timerd sends them (after the turn's commit); the service keeps a ring of 8
/// events, as the document says, so that a `timer.gap` fits on the page.
@Suite("docs/protocol.md examples")
struct ProtocolDocumentationTests {
    static let documentPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/protocol.md").path

    /// The metrics text docs/protocol.md's `daemon.metrics` example shows.
    static let metricsText = """
        # HELP timerd_build_info Always 1; the version label is timerd's version.
        # TYPE timerd_build_info gauge
        timerd_build_info{version="0.1.0"} 1

        """

    @Test("each example reply is exactly what the service answers")
    func examples() throws {
        let text = try String(contentsOfFile: Self.documentPath, encoding: .utf8)
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000_000),
            wall: Date(timeIntervalSince1970: 1_795_942_800))  // 2026-11-29T09:00:00Z
        var service = TimerService(
            engine: TimerEngine(clock: clock), quota: 10_000, pid: 4242, eventRingCapacity: Self.ringCapacity)
        // The session is uid 1000's own per-user daemon: it runs that user's on-finish actions.
        service.actionUID = 1_000
        var pending: [String] = []
        var waiter: WaiterID = 1
        var requests = 0
        var replies = 0
        let printing = ProcessInfo.processInfo.environment["PROTOCOL_DOC_PRINT"] != nil
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.hasPrefix("→ ") {
                let outcome = service.handle(
                    line: Array(line.dropFirst(2).utf8), context: RequestContext(uid: 1_000, waiter: waiter))
                waiter += 1
                requests += 1
                pending += outcome.wakeups.map { String(decoding: $0.reply, as: UTF8.self) }
                if let reply = outcome.reply { pending.append(String(decoding: reply, as: UTF8.self)) }
                // daemon.reload is carried out by the daemon, which then answers with reloadReply;
                // here the reload "finds" the example's configuration file.
                if let reload = outcome.reloadRequest,
                    let reply = TimerService.reloadReply(
                        id: reload.id,
                        .success(ReloadResult(config: "/home/alice/.config/timerd/timerd.conf", found: true)))
                {
                    pending.append(String(decoding: reply, as: UTF8.self))
                }
                // daemon.metrics is answered by the daemon with its rendering (Daemon+Metrics.swift);
                // here the document's stand-in text: its first metric.
                if let metrics = outcome.metricsRequest,
                    let reply = TimerService.metricsReply(
                        id: metrics.id, .success(MetricsResult(text: Self.metricsText)))
                {
                    pending.append(String(decoding: reply, as: UTF8.self))
                }
                pending += service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
            } else if line.hasPrefix("← ") {
                let expected = String(line.dropFirst(2))
                let actual = pending.isEmpty ? "(no reply)" : pending.removeFirst()
                if printing { print("← " + actual) }
                #expect(actual == expected, "docs/protocol.md: expected \(expected)")
                replies += 1
            } else if line.hasPrefix("# "), let seconds = Self.advance(in: line) {
                clock.advance(bySeconds: seconds)
                pending += service.fireDueTimers().wakeups.map { String(decoding: $0.reply, as: UTF8.self) }
                pending += service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
            } else if line.hasPrefix("# "), let written = Self.actionOutput(in: line) {
                // What the daemon does with a run's output before recording its outcome (Daemon+Actions.swift).
                let kept = service.keepActionOutput(
                    timer: written.timer, kind: written.kind, output: Array(written.text.utf8), truncated: false)
                #expect(kept, "docs/protocol.md: \(line)")
            } else if line.hasPrefix("# "), let exit = Self.actionExit(in: line) {
                // What the daemon does when an action's process exits (Daemon+Actions.swift).
                let recorded = service.recordActionOutcome(timer: exit.timer, kind: exit.kind, outcome: exit.outcome)
                #expect(recorded.recorded, "docs/protocol.md: \(line)")
                pending += recorded.wakeups.map { String(decoding: $0.reply, as: UTF8.self) }
                pending += service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
            }
        }
        #expect(pending.isEmpty, "replies the document does not show: \(pending)")
        #expect(requests >= RPCMethod.allCases.count)
        #expect(replies >= requests - 1)
        for method in RPCMethod.allCases {
            #expect(text.contains("\"method\":\"\(method.rawValue)\""), "docs/protocol.md has no example of \(method)")
        }
        // Every kind of event, and both reasons of a gap, have an example notification.
        for kind in TimerEvent.Name.allCases {
            #expect(text.contains("\"event\":\"\(kind.rawValue)\""), "docs/protocol.md has no \(kind.rawValue) event")
        }
        for reason in ["ring", "slow"] {
            #expect(text.contains("\"reason\":\"\(reason)\""), "docs/protocol.md has no timer.gap for \(reason)")
        }
        #expect(text.contains("ring of \(Self.ringCapacity) events"))
    }

    /// The ring of recent events in the replayed session (timerd keeps 4,096), as the document says.
    static let ringCapacity = 8

    /// `# … the exec action of timer 4 exits with status 0` → (4, exec, exited 0).
    static func actionExit(in line: String) -> (timer: UInt64, kind: TimerAction.Kind, outcome: ActionRun.Outcome)? {
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 12, words[2] == "the", words[4] == "action", words[8] == "exits",
            let kind = TimerAction.Kind(rawValue: words[3]), let timer = UInt64(words[7]), let status = Int32(words[11])
        else { return nil }
        return (timer, kind, .exited(status))
    }

    /// `# … the exec action of timer 4 writes "done\n"` → (4, exec, "done\n"): the text is a JSON string.
    static func actionOutput(in line: String) -> (timer: UInt64, kind: TimerAction.Kind, text: String)? {
        let words = line.split(separator: " ", maxSplits: 9).map(String.init)
        guard words.count == 10, words[2] == "the", words[4] == "action", words[8] == "writes",
            let kind = TimerAction.Kind(rawValue: words[3]), let timer = UInt64(words[7]),
            case .string(let text) = JSONValue(parsing: Array(words[9].utf8))
        else { return nil }
        return (timer, kind, text)
    }

    /// `# … 300 s later` → 300.
    static func advance(in line: String) -> Double? {
        guard line.hasSuffix(" s later") else { return nil }
        let words = line.dropLast(" s later".count).split(separator: " ")
        return words.last.flatMap { Double($0) }
    }
}
