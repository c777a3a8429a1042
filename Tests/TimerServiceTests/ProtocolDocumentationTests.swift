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

    @Test("each example reply is exactly what the service answers")
    func examples() throws {
        let text = try String(contentsOfFile: Self.documentPath, encoding: .utf8)
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000_000),
            wall: Date(timeIntervalSince1970: 1_795_942_800))  // 2026-11-29T09:00:00Z
        var service = TimerService(
            engine: TimerEngine(clock: clock), quota: 10_000, pid: 4242, eventRingCapacity: Self.ringCapacity)
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

    /// `# … 300 s later` → 300.
    static func advance(in line: String) -> Double? {
        guard line.hasSuffix(" s later") else { return nil }
        let words = line.dropLast(" s later".count).split(separator: " ")
        return words.last.flatMap { Double($0) }
    }
}
