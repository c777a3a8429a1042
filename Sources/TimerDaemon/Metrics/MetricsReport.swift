import Countdown
import TimerService
import TimerStorage

/// Every figure the daemon's metrics report, as plain values: the daemon gathers one
/// (`Daemon.metricsReport()`) for each scrape and each `daemon.metrics`, and
/// ``exposition()`` is the one place that turns it into text (docs/metrics.md lists each metric).
struct MetricsReport {
    /// One on-finish action outcome's series: `timerd_actions_total{kind=…,outcome=…}`.
    struct ActionSeries: Hashable, Comparable {
        /// `exec`, `notify` or `sound`.
        var kind: String
        /// `succeeded`, `failed`, `signalled`, `timed-out` or `failed-to-start` (``outcomeLabel(_:)``).
        var outcome: String

        static func < (left: ActionSeries, right: ActionSeries) -> Bool {
            (left.kind, left.outcome) < (right.kind, right.outcome)
        }
    }

    /// One named live timer's next elapse, for the opt-in per-timer series.
    struct TimerElapse: Equatable {
        /// The owner's uid.
        var owner: UInt32
        /// The timer's name.
        var name: String
        /// When it next elapses (ends, or its group's current step ends), Unix time in seconds.
        var nextElapse: Double
    }

    /// The figures of a store several hosts share (`--shared`): this host's claims.
    struct SharedFigures: Equatable {
        /// Due timers (or group steps) this host claimed.
        var claims: Int
        /// Claims that took over another host's expired lease.
        var leaseRescues: Int
        /// Completions refused because the claim's fence was no longer current.
        var fencesLost: Int
        /// The database calls' round trips.
        var roundTrips: LatencyHistogram
    }

    /// The daemon's version (`timerd_build_info`).
    var version: String
    /// When the daemon started, Unix time in seconds.
    var startTime: Double
    /// Live timers per state (`running`, `paused`), or `nil` when the store could not be read.
    var timersByState: (running: Int, paused: Int)?
    /// Timers started, finished, missed and stopped since start-up.
    var timerCounts: TimerCounts
    /// On-finish action runs per kind and outcome since start-up.
    var actions: [ActionSeries: Int]
    /// How late the loop fired timers.
    var lateness: LatencyHistogram
    /// How long the store's commits took.
    var commits: LatencyHistogram
    /// How long requests took to handle, per method name (only methods that were called).
    var requests: [String: LatencyHistogram]
    /// Open client connections.
    var connections: Int
    /// Open `timer.subscribe`s.
    var subscriptions: Int
    /// Pending `timer.wait`s.
    var waits: Int
    /// What the store counts about itself.
    var store: StoreFigures
    /// A shared store's figures, or `nil` for a store of one host.
    var shared: SharedFigures?
    /// The named live timers' next elapses, or `nil` when per-timer series are not asked for
    /// (`--metrics-timers`).
    var timerElapses: [TimerElapse]?

    /// The outcome label of an on-finish run: `succeeded` (exit status 0), `failed` (another exit
    /// status), `signalled`, `timed-out`, `failed-to-start`, `interrupted`, or `running`.
    ///
    /// - Parameter outcome: how the run ended.
    /// - Returns: the label value.
    static func outcomeLabel(_ outcome: ActionRun.Outcome) -> String {
        switch outcome {
        case .exited(0): return "succeeded"
        case .exited: return "failed"
        default: return outcome.name
        }
    }

    /// The report in the Prometheus text format, version 0.0.4 (``MetricsExposition``).
    ///
    /// - Returns: the text, every line ending in `\n`.
    /// - Complexity: O(m·b + t) for m methods with b buckets each and t per-timer series.
    func exposition() -> String {
        var out = MetricsExposition()
        out.family("timerd_build_info", .gauge, help: "Always 1; the version label is timerd's version.")
        out.sample("timerd_build_info", ["version": version], 1)
        out.family("timerd_start_time_seconds", .gauge, help: "When timerd started, Unix time in seconds.")
        out.sample("timerd_start_time_seconds", startTime)
        if let timersByState {
            out.family("timerd_timers", .gauge, help: "Live timers by state.")
            out.sample("timerd_timers", ["state": "running"], Double(timersByState.running))
            out.sample("timerd_timers", ["state": "paused"], Double(timersByState.paused))
        }
        let counts: [(String, Int, String)] = [
            ("started", timerCounts.started, "Timers started since timerd started."),
            ("finished", timerCounts.finished, "Timers that ran to zero since timerd started."),
            ("missed", timerCounts.missed, "Timers found ended at start-up: they ran out while no timerd ran."),
            ("stopped", timerCounts.stopped, "Timers stopped before they ran to zero since timerd started."),
        ]
        for (event, count, help) in counts {
            out.family("timerd_timers_\(event)_total", .counter, help: help)
            out.sample("timerd_timers_\(event)_total", Double(count))
        }
        out.family("timerd_actions_total", .counter, help: "On-finish action runs that ended, by kind and outcome.")
        for series in actions.keys.sorted() {
            out.sample(
                "timerd_actions_total", ["kind": series.kind, "outcome": series.outcome], Double(actions[series] ?? 0))
        }
        out.family(
            "timerd_firing_lateness_seconds", .histogram,
            help: "How long after its deadline the loop finished a timer, in seconds (catch-ups left out).")
        out.histogram("timerd_firing_lateness_seconds", lateness)
        out.family(
            "timerd_commit_duration_seconds", .histogram,
            help: "How long the store took to save a turn's changes, in seconds.")
        out.histogram("timerd_commit_duration_seconds", commits)
        out.family(
            "timerd_request_duration_seconds", .histogram,
            help: "How long timerd took to handle a request, by method, in seconds (the commit not included).")
        for method in requests.keys.sorted() {
            if let histogram = requests[method] {
                out.histogram("timerd_request_duration_seconds", labels: [("method", method)], histogram)
            }
        }
        out.family("timerd_connections", .gauge, help: "Open client connections.")
        out.sample("timerd_connections", Double(connections))
        out.family("timerd_subscriptions", .gauge, help: "Open timer.subscribe subscriptions.")
        out.sample("timerd_subscriptions", Double(subscriptions))
        out.family("timerd_waits", .gauge, help: "Pending timer.wait requests.")
        out.sample("timerd_waits", Double(waits))
        if let bytes = store.journalBytes {
            out.family("timerd_store_journal_bytes", .gauge, help: "Size of the state directory's journal in bytes.")
            out.sample("timerd_store_journal_bytes", Double(bytes))
        }
        if let records = store.journalRecords {
            out.family("timerd_store_journal_records", .gauge, help: "Change records in the journal.")
            out.sample("timerd_store_journal_records", Double(records))
        }
        if let compactions = store.compactions {
            out.family(
                "timerd_store_compactions_total", .counter,
                help: "Compactions of the journal into a new snapshot since timerd started.")
            out.sample("timerd_store_compactions_total", Double(compactions))
        }
        if let shared {
            out.family("timerd_shared_claims_total", .counter, help: "Due timers or group steps this host claimed.")
            out.sample("timerd_shared_claims_total", Double(shared.claims))
            out.family(
                "timerd_shared_lease_rescues_total", .counter,
                help: "Claims that took over another host's expired lease.")
            out.sample("timerd_shared_lease_rescues_total", Double(shared.leaseRescues))
            out.family(
                "timerd_shared_fences_lost_total", .counter,
                help: "Completions refused because the claim's fence was no longer current.")
            out.sample("timerd_shared_fences_lost_total", Double(shared.fencesLost))
            out.family(
                "timerd_shared_round_trip_seconds", .histogram,
                help: "Round trips of this host's database calls, in seconds.")
            out.histogram("timerd_shared_round_trip_seconds", shared.roundTrips)
        }
        if let timerElapses {
            out.family(
                "timerd_timer_next_elapse_seconds", .gauge,
                help: "When a named running timer next elapses, Unix time in seconds.")
            for timer in timerElapses {
                out.sample(
                    "timerd_timer_next_elapse_seconds", ["owner": String(timer.owner), "name": timer.name],
                    timer.nextElapse)
            }
        }
        return out.text
    }
}
