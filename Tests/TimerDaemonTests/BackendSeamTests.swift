import Countdown
import Foundation
import TestSupport
import Testing
import TimerPostgres
import TimerService
import TimerStorage

@testable import TimerDaemon

/// The daemon's two backends driven in-process through the one seam the loop uses
/// (``TimerBackend``): request bytes in, reply and notification bytes out, no socket and no
/// process. The local backend runs on a `ManualClock` and a `MemoryStore`; the shared one on a
/// fresh schema of the test cluster, whose clock decides its deadlines.
@Suite("The backend seam: one request script, both backends")
struct BackendSeamTests {
    /// Which backend a test drives.
    enum Kind: String, CustomStringConvertible, CaseIterable {
        case local, shared
        var description: String { rawValue }
    }

    /// A backend as the loop drives it: each request is one turn (handle, end of turn, commit).
    final class Driver {
        let backend: any TimerBackend
        /// Moves time past a deadline: the manual clock (local), or a sleep (shared: the
        /// database's clock decides).
        let advance: (Double) -> Void
        var nextWaiter: WaiterID = 1
        /// Waits answered by firings or ends of turns, by waiter.
        var wakeups: [WaiterID: String] = [:]
        var logLines: [String] = []

        init(_ kind: Kind) throws {
            switch kind {
            case .local:
                let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_800_000_000))
                let (backend, missed) = try LocalBackend.open(
                    store: MemoryStore(), clock: clock, config: DaemonConfig(),
                    systemZone: TimeZone(identifier: "UTC") ?? .current, log: { _ in }, configureService: { _ in })
                #expect(missed.isEmpty)  // an empty store ended nothing
                self.backend = backend
                advance = { clock.advance(bySeconds: $0) }
            case .shared:
                let base = try PostgresTestCluster.connectionString()
                let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
                try PostgresConnection(connectionString: base).execute("CREATE SCHEMA \(schema)")
                let host = try SharedHost(
                    connectionString: base + " options='-csearch_path=\(schema)'", hostID: "seam-test",
                    environment: [:], log: { _ in })
                let service = TimerService(engine: TimerEngine(clock: SystemClock()), quota: 10_000, pid: 1)
                let backend = SharedBackend(host: host, service: service)
                backend.configure(DaemonConfig())
                self.backend = backend
                advance = { usleep(UInt32($0 * 1e6)) }
            }
        }

        /// Runs one request line from uid 1000 on connection 7; returns its reply, or `nil` when
        /// it waits.
        func request(_ method: String, _ params: String) -> String? {
            let waiter = nextWaiter
            nextWaiter += 1
            let line = #"{"jsonrpc":"2.0","id":\#(waiter),"method":"\#(method)","params":\#(params)}"#
            let outcome = backend.handle(
                Array(line.utf8), context: RequestContext(uid: 1000, waiter: waiter, connection: 7))
            for wakeup in outcome.wakeups { wakeups[wakeup.waiter] = String(decoding: wakeup.reply, as: UTF8.self) }
            for wakeup in backend.endOfTurn() { wakeups[wakeup.waiter] = String(decoding: wakeup.reply, as: UTF8.self) }
            let result = backend.commit(hasWaitingReplies: outcome.requiresDurability, now: 0)
            if outcome.requiresDurability {
                guard case .committed = result else {
                    Issue.record("a change was not committed: \(result)")
                    return nil
                }
            }
            // A start the shared backend wrote with the turn's others: its reply comes at the
            // commit, as the daemon puts it in place of the placeholder (Daemon.placeDeferredReplies).
            if outcome.isReplyDeferred {
                guard case .reply(let line, _, _)? = backend.takeDeferredReplies()[waiter] else {
                    Issue.record("no deferred reply for request \(waiter)")
                    return nil
                }
                return String(decoding: line, as: UTF8.self)
            }
            return outcome.reply.map { String(decoding: $0, as: UTF8.self) }
        }

        /// Fires what is due until `waiter` is answered (at most 50 tries).
        func fire(until waiter: WaiterID) {
            for _ in 0..<50 where wakeups[waiter] == nil {
                let firing = backend.fireDue()
                for wakeup in firing.wakeups { wakeups[wakeup.waiter] = String(decoding: wakeup.reply, as: UTF8.self) }
                if wakeups[waiter] == nil { usleep(100_000) }
            }
        }

        /// The event kinds of the notifications produced so far, in order.
        func eventKinds() -> [String] {
            backend.takeNotifications().compactMap { notification in
                let object = try? JSONSerialization.jsonObject(with: Data(notification.line)) as? [String: Any]
                return (object?["params"] as? [String: Any])?["event"] as? String
            }
        }
    }

    /// The `result` object of a reply line.
    static func result(_ reply: String?) -> [String: Any] {
        guard let reply, let data = reply.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object["result"] as? [String: Any] ?? [:]
    }

    @Test(
        "start, status by name, pause, resume, wait, subscribe and the finish: same replies and events",
        .enabled(if: PostgresTestCluster.isEnabled), arguments: Kind.allCases)
    func lifeOfATimer(kind: Kind) throws {
        let driver = try Driver(kind)
        let started = Self.result(driver.request("timer.start", #"{"durations":[1],"name":"tea"}"#))
        // docs/protocol.md: ids are strings; the first timer of an empty store is "1" on both backends.
        #expect(started["id"] as? String == "1")
        #expect(started["state"] as? String == "running")
        #expect(started["name"] as? String == "tea")
        #expect(started["duration"] as? Double == 1)  // the 1 s asked for
        let byName = Self.result(driver.request("timer.status", #"{"timer":"tea"}"#))
        #expect(byName["id"] as? String == "1")
        #expect(Self.result(driver.request("timer.pause", #"{"timer":"tea"}"#))["state"] as? String == "paused")
        #expect(Self.result(driver.request("timer.resume", #"{"timer":"tea"}"#))["state"] as? String == "running")
        let subscription = Self.result(driver.request("timer.subscribe", #"{"timer":"tea"}"#))
        #expect(subscription["subscription"] as? Double == 5)  // the subscribe was request (waiter) 5
        #expect(driver.backend.hasSubscription(5))
        #expect(driver.request("timer.wait", #"{"timer":"tea"}"#) == nil)  // waits: no reply yet
        #expect(driver.backend.isWaiting(6))
        driver.advance(1.2)
        driver.fire(until: 6)
        let finished = Self.result(driver.wakeups[6])
        #expect(finished["id"] as? String == "1")
        #expect(finished["state"] as? String == "finished")
        #expect(finished["remaining"] as? Double == 0)
        #expect(!driver.backend.isWaiting(6))
        // The subscription (made after the pause and resume) hears only the finish.
        #expect(driver.eventKinds() == ["finished"])
        // An unknown method gets the one router's error on both backends.
        let unknown = driver.request("timer.frobnicate", "{}") ?? ""
        #expect(unknown.contains(#""code":-32601"#))
        #expect(unknown.contains(#"unknown method \"timer.frobnicate\""#))
    }

    @Test("The local backend holds a change for its commit; the injected clock decides the deadline")
    func localCommitOrder() throws {
        let driver = try Driver(.local)
        let line = #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[5]}}"#
        let outcome = driver.backend.handle(
            Array(line.utf8), context: RequestContext(uid: 1000, waiter: 1, connection: 7))
        #expect(outcome.requiresDurability)  // a start is acknowledged only once saved
        #expect(driver.backend.hasChangesToCommit)
        guard case .committed = driver.backend.commit(hasWaitingReplies: true, now: 0) else {
            Issue.record("the start was not committed")
            return
        }
        #expect(!driver.backend.hasChangesToCommit)
        #expect(driver.backend.liveCount == 1)
        // 5 s later on the manual clock the deadline is due: it fires between slices.
        let deadline = try #require(driver.backend.sliceDeadline)
        driver.advance(5)
        #expect(driver.backend.fireDue().endings.count == 1)
        #expect(driver.backend.liveCount == 0)
        #expect(driver.backend.sliceDeadline == nil)
        #expect(deadline == 1_000_000_000 + 5_000_000_000)  // ManualClock starts at 1 s boot time
    }
}
