import Foundation
import Glibc
import TestSupport
import Testing
import TimerProtocol

/// A series that starts a group at each elapse, across two shared hosts (docs/multihost.md,
/// "Recurring timers"): the elapse and its run commit in one transaction under the claim's fence.
extension SharedHostsEndToEndTests {
    @Test(
        "Series groups exactly once across hosts: the host holding the series' claim at an elapse is SIGKILLed; one run per elapse, each ends once"
    )
    func seriesGroupExactlyOnce() throws {
        let cluster = try Cluster()
        // h1 alone at first, sitting 2 s on each batch of claims (test-only), so that the SIGKILL
        // finds it holding the series' claim at an elapse, before its firing commits.
        var b = try Self.host("h1", cluster, environment: ["TIMERD_TEST_HOLD_CLAIMS": "2"])
        // Runs of 0.5 s + 0.5 s, far shorter than the 4 s period: every elapse rung starts one run
        // (overlap skip never decides), so runs and elapses rung can be counted one for one.
        let started = b.ctl(["start", "--on", "*:*:0/4", "0.5s", "0.5s", "--name", "g"])
        #expect(started.status == 0, "\(started)")
        let held = Self.await(6) {
            cluster.sql("SELECT claimed_by FROM timerd_timers WHERE name = 'g'") == "h1"
        }
        #expect(held, "h1 never held the series' claim")
        b.stopDaemon(signal: SIGKILL)
        let killedAt = Date()
        #expect(cluster.sql("SELECT claimed_by || ' ' || sg_run_count FROM timerd_timers WHERE name = 'g'") == "h1 0")
        // h0 rescues the claim once its lease (5 s) runs out and rings that elapse (a catch-up);
        // then h1 comes back and both hosts fire the later elapses.
        let a = try Self.host("h0", cluster)
        #expect(
            Self.await(Self.lease + 3) {
                cluster.sql("SELECT count(*) FROM timerd_events WHERE kind = 'elapsed' AND rescue") == "1"
            })
        b = try Self.host("h1", cluster)
        usleep(9_000_000)
        #expect(a.ctl(["stop", "g"]).status == 0)

        // From the store: the series, its runs (series_id, schema version 8) and the outbox.
        let series = cluster.sql(
            """
            SELECT id, sg_run_count, sg_skipped_count, coalesce(sg_run::text, '-'), sg_queued, rec_elapse_count
            FROM timerd_timers WHERE name = 'g'
            """
        ).split(separator: "|").map(String.init)
        #expect(series.count == 6, "\(series)")
        let id = series.first ?? "0"
        let runs = Int(cluster.sql("SELECT count(*) FROM timerd_timers WHERE series_id = \(id)")) ?? -1
        let rung =
            Int(cluster.sql("SELECT count(*) FROM timerd_events WHERE timer_id = \(id) AND kind = 'elapsed'")) ?? -2
        // The held elapse, the ones after the rescue on both hosts: at least 3 rung in 9 s + the rescue.
        #expect(rung >= 3, "\(rung) elapses rung")
        // One run per elapse rung; none skipped, none live, none queued once the series stopped.
        #expect(
            runs == rung && series.dropFirst().prefix(4) == [String(rung), "0", "-", "f"], "\(series), runs \(runs)")
        // Each run's `started` row is in the transaction of one `elapsed` row of the series (the
        // same txid), and each such transaction started exactly one run.
        let pairing = cluster.sql(
            """
            SELECT string_agg(n::text, ',' ORDER BY n) FROM (
                SELECT (SELECT count(*) FROM timerd_events s JOIN timerd_timers r ON r.id = s.timer_id
                        WHERE r.series_id = \(id) AND s.kind = 'started' AND s.txid = e.txid) AS n
                FROM timerd_events e WHERE e.timer_id = \(id) AND e.kind = 'elapsed') x
            """)
        #expect(pairing == Array(repeating: "1", count: rung).joined(separator: ","), "\(pairing)")
        let startedRows =
            Int(
                cluster.sql(
                    """
                    SELECT count(*) FROM timerd_events s JOIN timerd_timers r ON r.id = s.timer_id
                    WHERE r.series_id = \(id) AND s.kind = 'started'
                    """)) ?? -1
        #expect(startedRows == runs)
        // The rescued elapse (fired by h0 after the kill) started exactly one run, which finished once.
        let rescued = cluster.sql(
            """
            SELECT e.host_id, (SELECT count(*) FROM timerd_events f WHERE f.timer_id = s.timer_id AND f.kind = 'finished'),
                extract(epoch FROM r.created_at) > \(killedAt.timeIntervalSince1970)
            FROM timerd_events e JOIN timerd_events s ON s.txid = e.txid AND s.kind = 'started'
                JOIN timerd_timers r ON r.id = s.timer_id
            WHERE e.timer_id = \(id) AND e.kind = 'elapsed' AND e.rescue
            """)
        #expect(rescued == "h0|1|t", "\(rescued)")
        // Every run ended exactly once: one `finished` row (or `stopped`, the run the series' stop
        // stopped), and every run is ended.
        let endings = cluster.sql(
            """
            SELECT string_agg(DISTINCT n::text, ','), count(*) FILTER (WHERE r.live)
            FROM timerd_timers r, LATERAL (SELECT count(*) AS n FROM timerd_events f
                WHERE f.timer_id = r.id AND f.kind IN ('finished', 'stopped')) c
            WHERE r.series_id = \(id)
            """)
        #expect(endings == "1|0", "\(endings)")
        let byHost = cluster.sql(
            """
            SELECT string_agg(host_id || '=' || n, ' ' ORDER BY host_id)
            FROM (SELECT host_id, count(*) n FROM timerd_events WHERE kind = 'elapsed' GROUP BY 1) h
            """)
        print("series group across hosts: \(rung) elapses rung, \(runs) runs; elapsed by \(byHost)")
        for host in [a, b] { #expect(host.stopDaemon() == 0) }
    }
}
