import Countdown
import Testing
import TimerService
import TimerStorage
import TimerSystem

@testable import TimerDaemon

/// The Prometheus text the daemon serves, rendered from values with no daemon: numbers as Go's
/// `strconv.FormatFloat(v, 'g', -1, 64)` writes them (what the Prometheus client libraries
/// emit), label escaping as the exposition format (version 0.0.4) defines it, and one whole
/// report pinned byte for byte.
@Suite("Metrics: the Prometheus text exposition")
struct MetricsExpositionTests {
    @Test(
        "Numbers are written as Go's %g with shortest digits writes them",
        arguments: [
            // Expected values: Go 1.21 `strconv.FormatFloat(v, 'g', -1, 64)`.
            (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (1_796_178_014.0, "1796178014"), (0.25, "0.25"),
            (0.0001, "0.0001"), (0.000_025, "2.5e-05"), (0.000_01, "1e-05"), (1.5e-10, "1.5e-10"),
            (1_796_178_014.688158, "1796178014.688158"), (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"),
        ])
    func numbers(_ value: Double, _ text: String) {
        #expect(MetricsExposition.number(value) == text)
    }

    @Test("Label values escape backslash, double quote and newline; help texts backslash and newline")
    func escaping() {
        #expect(MetricsExposition.escapedLabelValue(#"te"a"#) == #"te\"a"#)
        #expect(MetricsExposition.escapedLabelValue("a\\b") == #"a\\b"#)
        // A CR-LF pair is one Character in Swift: its LF must still be escaped.
        #expect(MetricsExposition.escapedLabelValue("a\r\nb") == "a\r\\nb")
        #expect(MetricsExposition.escapedLabelValue("Ünïcødé 🍵") == "Ünïcødé 🍵")
        #expect(MetricsExposition.escapedHelp("say \"hi\"\\\n") == #"say "hi"\\\n"#)
    }

    @Test("A histogram counts each duration in the first bucket that holds it; cumulative as reported")
    func histogram() {
        var histogram = LatencyHistogram(upperBounds: [0.01, 0.001, .infinity, 0.001])
        #expect(histogram.upperBounds == [0.001, 0.01])  // sorted, unique, +Inf implied
        for seconds in [0.0005, 0.001, 0.002, 5, -1] { histogram.record(seconds: seconds) }
        // 0.0005, 0.001 and -1 (counted as 0) are ≤ 0.001; 0.002 is ≤ 0.01; 5 only in +Inf.
        #expect(histogram.cumulativeCounts == [3, 4])
        #expect(histogram.count == 5)
        #expect(histogram.sum == 5.0035)
    }

    @Test("A whole report, byte for byte")
    func report() {
        var lateness = LatencyHistogram(upperBounds: [0.001, 0.01])
        lateness.record(nanoseconds: 250_000)  // 0.25 ms
        lateness.record(nanoseconds: 4_000_000)  // 4 ms
        var commits = LatencyHistogram(upperBounds: [0.001])
        commits.record(seconds: 0.002)
        var starts = LatencyHistogram(upperBounds: [0.0001])
        starts.record(seconds: 0.000_05)
        let report = MetricsReport(
            version: "0.1.0", startTime: 1_796_178_014.5,  // 2026-12-02T02:20:14.5Z
            timersByState: (running: 2, paused: 1),
            timerCounts: TimerCounts(started: 5, finished: 1, missed: 0, stopped: 1),
            actions: [
                .init(kind: "notify", outcome: "failed-to-start"): 1, .init(kind: "exec", outcome: "succeeded"): 2,
            ],
            lateness: lateness, commits: commits, requests: ["timer.start": starts], connections: 3, subscriptions: 1,
            waits: 0, store: StoreFigures(journalBytes: 498, journalRecords: 5, compactions: 1), shared: nil,
            timerElapses: [.init(owner: 1000, name: #"te"a"#, nextElapse: 1_796_181_614)])
        #expect(
            report.exposition() == """
                # HELP timerd_build_info Always 1; the version label is timerd's version.
                # TYPE timerd_build_info gauge
                timerd_build_info{version="0.1.0"} 1
                # HELP timerd_start_time_seconds When timerd started, Unix time in seconds.
                # TYPE timerd_start_time_seconds gauge
                timerd_start_time_seconds 1796178014.5
                # HELP timerd_timers Live timers by state.
                # TYPE timerd_timers gauge
                timerd_timers{state="running"} 2
                timerd_timers{state="paused"} 1
                # HELP timerd_timers_started_total Timers started since timerd started.
                # TYPE timerd_timers_started_total counter
                timerd_timers_started_total 5
                # HELP timerd_timers_finished_total Timers that ran to zero since timerd started.
                # TYPE timerd_timers_finished_total counter
                timerd_timers_finished_total 1
                # HELP timerd_timers_missed_total Timers found ended at start-up: they ran out while no timerd ran.
                # TYPE timerd_timers_missed_total counter
                timerd_timers_missed_total 0
                # HELP timerd_timers_stopped_total Timers stopped before they ran to zero since timerd started.
                # TYPE timerd_timers_stopped_total counter
                timerd_timers_stopped_total 1
                # HELP timerd_actions_total On-finish action runs that ended, by kind and outcome.
                # TYPE timerd_actions_total counter
                timerd_actions_total{kind="exec",outcome="succeeded"} 2
                timerd_actions_total{kind="notify",outcome="failed-to-start"} 1
                # HELP timerd_firing_lateness_seconds How long after its deadline the loop finished a timer, in seconds (catch-ups left out).
                # TYPE timerd_firing_lateness_seconds histogram
                timerd_firing_lateness_seconds_bucket{le="0.001"} 1
                timerd_firing_lateness_seconds_bucket{le="0.01"} 2
                timerd_firing_lateness_seconds_bucket{le="+Inf"} 2
                timerd_firing_lateness_seconds_sum 0.00425
                timerd_firing_lateness_seconds_count 2
                # HELP timerd_commit_duration_seconds How long the store took to save a turn's changes, in seconds.
                # TYPE timerd_commit_duration_seconds histogram
                timerd_commit_duration_seconds_bucket{le="0.001"} 0
                timerd_commit_duration_seconds_bucket{le="+Inf"} 1
                timerd_commit_duration_seconds_sum 0.002
                timerd_commit_duration_seconds_count 1
                # HELP timerd_request_duration_seconds How long timerd took to handle a request, by method, in seconds (the commit not included).
                # TYPE timerd_request_duration_seconds histogram
                timerd_request_duration_seconds_bucket{method="timer.start",le="0.0001"} 1
                timerd_request_duration_seconds_bucket{method="timer.start",le="+Inf"} 1
                timerd_request_duration_seconds_sum{method="timer.start"} 5e-05
                timerd_request_duration_seconds_count{method="timer.start"} 1
                # HELP timerd_connections Open client connections.
                # TYPE timerd_connections gauge
                timerd_connections 3
                # HELP timerd_subscriptions Open timer.subscribe subscriptions.
                # TYPE timerd_subscriptions gauge
                timerd_subscriptions 1
                # HELP timerd_waits Pending timer.wait requests.
                # TYPE timerd_waits gauge
                timerd_waits 0
                # HELP timerd_store_journal_bytes Size of the state directory's journal in bytes.
                # TYPE timerd_store_journal_bytes gauge
                timerd_store_journal_bytes 498
                # HELP timerd_store_journal_records Change records in the journal.
                # TYPE timerd_store_journal_records gauge
                timerd_store_journal_records 5
                # HELP timerd_store_compactions_total Compactions of the journal into a new snapshot since timerd started.
                # TYPE timerd_store_compactions_total counter
                timerd_store_compactions_total 1
                # HELP timerd_timer_next_elapse_seconds When a named running timer next elapses, Unix time in seconds.
                # TYPE timerd_timer_next_elapse_seconds gauge
                timerd_timer_next_elapse_seconds{owner="1000",name="te\\"a"} 1796181614

                """)
    }

    @Test("Shared mode's figures replace the journal's; no per-timer series without the opt-in")
    func sharedReport() {
        var trips = LatencyHistogram(upperBounds: [0.001])
        trips.record(seconds: 0.0004)
        let report = MetricsReport(
            version: "0.1.0", startTime: 0, timersByState: nil, timerCounts: TimerCounts(), actions: [:],
            lateness: LatencyHistogram(upperBounds: []), commits: LatencyHistogram(upperBounds: []), requests: [:],
            connections: 0, subscriptions: 0, waits: 0, store: StoreFigures(),
            shared: .init(claims: 7, leaseRescues: 1, fencesLost: 2, roundTrips: trips), timerElapses: nil)
        let text = report.exposition()
        // A failed count leaves timerd_timers out rather than reporting 0 timers.
        #expect(!text.contains("timerd_timers{"))
        #expect(!text.contains("journal"))
        #expect(!text.contains("timerd_timer_next_elapse_seconds"))
        #expect(
            text.hasSuffix(
                """
                # HELP timerd_shared_claims_total Due timers or group steps this host claimed.
                # TYPE timerd_shared_claims_total counter
                timerd_shared_claims_total 7
                # HELP timerd_shared_lease_rescues_total Claims that took over another host's expired lease.
                # TYPE timerd_shared_lease_rescues_total counter
                timerd_shared_lease_rescues_total 1
                # HELP timerd_shared_fences_lost_total Completions refused because the claim's fence was no longer current.
                # TYPE timerd_shared_fences_lost_total counter
                timerd_shared_fences_lost_total 2
                # HELP timerd_shared_round_trip_seconds Round trips of this host's database calls, in seconds.
                # TYPE timerd_shared_round_trip_seconds histogram
                timerd_shared_round_trip_seconds_bucket{le="0.001"} 1
                timerd_shared_round_trip_seconds_bucket{le="+Inf"} 1
                timerd_shared_round_trip_seconds_sum 0.0004
                timerd_shared_round_trip_seconds_count 1

                """))
    }

    @Test(
        "Action outcomes get labels that tell success from failure",
        arguments: [
            (ActionRun.Outcome.exited(0), "succeeded"), (.exited(1), "failed"), (.signalled(9), "signalled"),
            (.timedOut, "timed-out"), (.failedToStart(2), "failed-to-start"), (.interrupted, "interrupted"),
        ])
    func outcomeLabels(_ outcome: ActionRun.Outcome, _ label: String) {
        #expect(MetricsReport.outcomeLabel(outcome) == label)
    }
}
