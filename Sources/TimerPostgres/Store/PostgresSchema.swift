/// The tables timerd keeps in PostgreSQL, and their migrations.
///
/// Every table is created in the connection's current schema (`search_path`), so that several
/// independent sets of timers can share one database, one schema each. Migrations run in one
/// transaction under `pg_advisory_xact_lock`, so hosts that start at once apply each version
/// exactly once and the others wait, then find it applied (PostgreSQL documentation 9.27.10,
/// "Advisory Lock Functions").
public enum PostgresSchema {
    /// The newest schema version this build knows; a database at a newer version is refused.
    public static let currentVersion = 8

    /// Version 1.
    ///
    /// - `timerd_ids`: the next id to hand out (one row): ids are assigned by the store, for all
    ///   hosts, and never reused.
    /// - `timerd_hosts`: each host's boot id (whether its boot-time instants still hold) and when
    ///   it was last seen.
    /// - `timerd_timers`: one row per timer. `record` is the engine's own record (the binary form
    ///   of the file store's journal, so a timer round-trips exactly); the other columns are what
    ///   the database itself decides on: `owner`, `name` and `live` for the rule that names are
    ///   unique among one owner's live timers (a partial unique index), `state`, `due_at` (the
    ///   deadline), `remaining_ns` (of a paused timer), `step`/`steps` (a group's position),
    ///   `version` (bumped by every write, against lost updates), `fence` (bumped by every
    ///   transition into running and by every claim), `claim_until`/`claimed_by` (a lease).
    /// - `timerd_events`: the outbox: one row per state transition, with `UNIQUE (timer_id, kind,
    ///   fence)`, so that a finish under one fence can be written once only.
    static let version1 = """
        CREATE TABLE timerd_ids (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            next_id bigint NOT NULL CHECK (next_id >= 1)
        );
        INSERT INTO timerd_ids (singleton, next_id) VALUES (true, 1);
        CREATE TABLE timerd_hosts (
            host_id text PRIMARY KEY,
            boot_id text NOT NULL,
            seen_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE timerd_timers (
            id bigint PRIMARY KEY CHECK (id >= 1),
            owner bigint NOT NULL,
            name text,
            live boolean NOT NULL,
            state text NOT NULL CHECK (state IN ('pending', 'running', 'paused', 'finished', 'stopped')),
            due_at timestamptz,
            remaining_ns bigint,
            step integer NOT NULL DEFAULT 0,
            steps integer NOT NULL CHECK (steps >= 1),
            version bigint NOT NULL DEFAULT 1,
            fence bigint NOT NULL DEFAULT 0,
            claim_until timestamptz,
            claimed_by text,
            written_by text NOT NULL,
            record bytea NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE UNIQUE INDEX timerd_timers_live_name ON timerd_timers (owner, name)
            WHERE live AND name IS NOT NULL;
        CREATE INDEX timerd_timers_due ON timerd_timers (due_at) WHERE state = 'running';
        CREATE TABLE timerd_events (
            seq bigserial PRIMARY KEY,
            timer_id bigint NOT NULL,
            kind text NOT NULL,
            fence bigint NOT NULL,
            host_id text NOT NULL,
            at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (timer_id, kind, fence)
        );
        """

    /// Version 2: what the claim protocol of several hosts (``PostgresTimerQueue``) needs beside
    /// the engine's record: each step's length in the database itself (`segments_ns`, so that
    /// completing step k can arm step k+1 in the same statement), and `record` optional (a timer
    /// written by the queue has only its columns), plus the index the claim's scan uses for
    /// leases.
    static let version2 = """
        ALTER TABLE timerd_timers ADD COLUMN segments_ns bigint[];
        ALTER TABLE timerd_timers ALTER COLUMN record DROP NOT NULL;
        CREATE INDEX timerd_timers_claimed ON timerd_timers (claimed_by) WHERE claimed_by IS NOT NULL;
        """

    /// Version 3: what timerd's shared mode (several hosts, ``PostgresTimerQueue``) serves requests
    /// and follows events by.
    ///
    /// - `timerd_timers.created_at`/`ended_at`: a timer's wall-clock instants on the database clock
    ///   (`createdAt`, `endedAt` of a reply); `action`: its on-finish action as the request's
    ///   `action` object (JSON text), run by the host whose completion succeeds; `action_state`
    ///   (`pending` from the finishing transaction until a host started it, under a lease in
    ///   `claim_until`/`claimed_by`, then `started`: an action outbox, so it runs at least once);
    ///   `timerd_timers_owner` for one owner's listing.
    /// - `timerd_events.txid`: the writing transaction's id (`pg_current_xact_id()`). A host follows
    ///   the outbox by transaction ids below its snapshot's `xmin`, all of them finished, so an event
    ///   whose `seq` was drawn before another's but committed after it is still seen (a cursor on
    ///   `seq` alone would skip it). `due_at` (the deadline a completion met) and `rescue` (the claim
    ///   was a rescue) let a reader measure lateness from the outbox alone.
    static let version3 = """
        ALTER TABLE timerd_timers ADD COLUMN created_at timestamptz, ADD COLUMN ended_at timestamptz,
            ADD COLUMN action text, ADD COLUMN action_state text CHECK (action_state IN ('pending', 'started'));
        CREATE INDEX timerd_timers_action ON timerd_timers (claim_until) WHERE action_state = 'pending';
        CREATE INDEX timerd_timers_owner ON timerd_timers (owner, id);
        ALTER TABLE timerd_events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            ADD COLUMN due_at timestamptz, ADD COLUMN rescue boolean NOT NULL DEFAULT false;
        CREATE INDEX timerd_events_txid ON timerd_events (txid);
        """

    /// Version 4: what lets shared mode scale with the number of timers and hosts.
    ///
    /// - `timerd_timer_ids`: the sequence shared mode takes ids from (`nextval` takes no row lock
    ///   and is never rolled back, so a stopped host cannot hold other hosts' starts and no id is
    ///   handed out twice), started past every id the store (`timerd_ids`) or a row already has.
    ///   `timerd_ids.server_started_at` is the database server's start (`pg_postmaster_start_time()`)
    ///   the sequence was last checked under: a host that finds another one (a restart, or a standby
    ///   promoted after a failover, which may lack the last transactions of the old primary and so
    ///   the sequence values they drew) moves the sequence on by
    ///   ``PostgresTimerQueue/idGapAfterServerChange`` (``PostgresTimerQueue/checkIDs()``).
    /// - `timerd_timers_due_unclaimed`: the running, unclaimed rows by deadline (claims and the next
    ///   deadline read only the due end of it); `timerd_timers_leases`: the running claimed rows by
    ///   lease end (rescues); `timerd_timers_name`: a name's rows (status by name, live or ended);
    ///   `timerd_timers_live_owner`: one owner's live rows (the quota); `timerd_timers_ended`: the
    ///   ended rows by owner and end (history pruning).
    /// - The version 1 index `timerd_timers_due` (every running row) is dropped: the two partial
    ///   indexes above replace it.
    static let version4 = """
        CREATE SEQUENCE timerd_timer_ids AS bigint MINVALUE 1;
        SELECT setval('timerd_timer_ids', greatest(
            (SELECT next_id FROM timerd_ids), (SELECT coalesce(max(id), 0) + 1 FROM timerd_timers)), false);
        ALTER TABLE timerd_ids ADD COLUMN server_started_at timestamptz;
        UPDATE timerd_ids SET server_started_at = pg_postmaster_start_time();
        CREATE INDEX timerd_timers_due_unclaimed ON timerd_timers (due_at)
            WHERE state = 'running' AND claimed_by IS NULL;
        CREATE INDEX timerd_timers_leases ON timerd_timers (claim_until)
            WHERE state = 'running' AND claimed_by IS NOT NULL;
        CREATE INDEX timerd_timers_name ON timerd_timers (name, id) WHERE name IS NOT NULL;
        CREATE INDEX timerd_timers_live_owner ON timerd_timers (owner) WHERE live;
        CREATE INDEX timerd_timers_ended ON timerd_timers (owner, ended_at) WHERE NOT live;
        DROP INDEX timerd_timers_due;
        """

    /// Version 5: what shared mode's edits (`timer.extend`, `timer.restart`, `timer.rename`,
    /// `timer.skip`) write.
    ///
    /// - `timerd_events.detail`: the members an event adds to its `timer.event` notification beside
    ///   `at`, `event`, `seq` and `timer`, as a JSON object (`{"by": -90.5}` for `extended`,
    ///   `{"from": "tea"}` or `{"from": null}` for `renamed`), or NULL for kinds that add none.
    /// - `timerd_timers.started_at`: when a timer was last started (`startedAt` of a reply): NULL
    ///   until a `timer.restart`, which sets it and leaves `created_at` as it was.
    /// - The outbox's `UNIQUE (timer_id, kind, fence)` becomes the unique index
    ///   `timerd_events_once` without the `renamed` rows: every other transition moves the fence on
    ///   (so a `finished` or `step` row is still written once per fence), while a rename moves no
    ///   deadline and keeps the fence, so that it neither refuses another host's completion in flight
    ///   nor the start record of an on-finish action; two renames under one fence are two rows.
    static let version5 = """
        ALTER TABLE timerd_events ADD COLUMN detail jsonb;
        ALTER TABLE timerd_timers ADD COLUMN started_at timestamptz;
        CREATE UNIQUE INDEX timerd_events_once ON timerd_events (timer_id, kind, fence) WHERE kind <> 'renamed';
        ALTER TABLE timerd_events DROP CONSTRAINT timerd_events_timer_id_kind_fence_key;
        """

    /// Version 6: heartbeat timers in shared mode (`"heartbeat": true` of `timer.start`,
    /// `timer.beat`).
    ///
    /// - `timerd_timers.heartbeat`: the timer was started as a heartbeat timer (false for every row
    ///   written before); `beat_count`: its beats since it started or was last restarted;
    ///   `last_beat_at`: the latest beat's instant on the database clock, NULL before the first.
    static let version6 = """
        ALTER TABLE timerd_timers ADD COLUMN heartbeat boolean NOT NULL DEFAULT false,
            ADD COLUMN beat_count bigint NOT NULL DEFAULT 0, ADD COLUMN last_beat_at timestamptz;
        """

    /// Version 7: recurring timers in shared mode (`on`, `every` of `timer.start`).
    ///
    /// - `timerd_timers.recurrence`: `calendar` or `every` (NULL for a one-shot timer);
    ///   `rec_expression` the calendar expression as given; `rec_every_s` the period in seconds;
    ///   `rec_zone` the zone the expression is read in and `rec_follows_zone` whether that was the
    ///   starting host's system zone; `rec_skip_missed` (`skipMissed`, not `persistent`);
    ///   `rec_randomized_delay_s`; `rec_next_elapse` the nominal instant of the next elapse (without
    ///   its randomized delay; `due_at` is when it rings); `rec_last_elapse` the latest elapse rung
    ///   or folded into a catch-up; `rec_elapse_count` the elapses accounted for; `rec_last_missed`
    ///   the `missed` of the latest `elapsed` event.
    /// - The outbox's `elapsed` rows carry `{"missed": N}` in `detail`; its `action` rows (a run's
    ///   end, `{"kind", "trigger", "outcome", "code"}`) are left out of `timerd_events_once`, as
    ///   `renamed` rows are: the runs of one firing (exec and notify) share its fence.
    /// - `timerd_action_runs`: the action runs of shared mode (`timer.runs`): one row per run, by
    ///   the host that ran it (`host_id`), `kind` and `trigger`, the firing's `fence`, `started_at`
    ///   and `ended_at` (database clock), `outcome` (`running`, `exited`, `signalled`, `timed-out`,
    ///   `failed-to-start`, `interrupted`) and `code` (the exit status, signal or `errno`); removed
    ///   with their timer (`ON DELETE CASCADE`).
    static let version7 = """
        ALTER TABLE timerd_timers ADD COLUMN recurrence text CHECK (recurrence IN ('calendar', 'every')),
            ADD COLUMN rec_expression text, ADD COLUMN rec_every_s double precision, ADD COLUMN rec_zone text,
            ADD COLUMN rec_follows_zone boolean NOT NULL DEFAULT false,
            ADD COLUMN rec_skip_missed boolean NOT NULL DEFAULT false,
            ADD COLUMN rec_randomized_delay_s double precision NOT NULL DEFAULT 0,
            ADD COLUMN rec_next_elapse timestamptz, ADD COLUMN rec_last_elapse timestamptz,
            ADD COLUMN rec_elapse_count bigint NOT NULL DEFAULT 0,
            ADD COLUMN rec_last_missed integer NOT NULL DEFAULT 0;
        DROP INDEX timerd_events_once;
        CREATE UNIQUE INDEX timerd_events_once ON timerd_events (timer_id, kind, fence)
            WHERE kind NOT IN ('renamed', 'action');
        CREATE TABLE timerd_action_runs (
            seq bigserial PRIMARY KEY,
            timer_id bigint NOT NULL REFERENCES timerd_timers (id) ON DELETE CASCADE,
            kind text NOT NULL,
            trigger text NOT NULL,
            fence bigint,
            host_id text NOT NULL,
            started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
            ended_at timestamptz,
            outcome text NOT NULL DEFAULT 'running',
            code integer
        );
        CREATE INDEX timerd_action_runs_timer ON timerd_action_runs (timer_id, seq);
        CREATE INDEX timerd_action_runs_running ON timerd_action_runs (host_id) WHERE outcome = 'running';
        """

    /// Version 8: groups started by a recurring series in shared mode (`durations` with `on` or
    /// `every` of `timer.start`; docs/multihost.md, "Recurring timers").
    ///
    /// - On a series' row: `sg_durations_s` the steps of one run in seconds (`loops` repeated; NULL
    ///   for a series without a group), `sg_segments_ns` the same in nanoseconds (a run's
    ///   `segments_ns`), `sg_overlap` (`skip`, `queue`, `restart`), `sg_run` the live run's id (NULL
    ///   when none runs), `sg_queued` whether a run waits for the current one to end,
    ///   `sg_run_count` the runs started and `sg_skipped_count` the elapses that started none.
    /// - On a run's row: `series_id`, the series that started it.
    /// - `timerd_start_series_run(series, host)`: inserts a run of the series (its owner, no name,
    ///   due one step after `clock_timestamp()`), its `started` outbox row (fence 1, like every
    ///   start), marks it the series' run and counts it, and wakes the hosts; returns the run's id.
    ///   The caller holds the series' row lock.
    /// - The trigger `timerd_series_runs` (after an update of `live` that ends a row, so for every
    ///   way a timer ends: completion, stop, skip, extend): an ended run is let go by its series,
    ///   which starts its queued run while it runs; a stopped series stops its live run. It is
    ///   deferred to the commit of the transaction that ended the row, so its outbox rows come after
    ///   that transaction's own (the order one host reports them in: the run's `finished`, then the
    ///   queued run's `started`; the series' `stopped`, then its run's). The rows it writes name the
    ///   host that held the ended row's claim, else the host that wrote the row.
    static let version8 = """
        ALTER TABLE timerd_timers ADD COLUMN sg_durations_s double precision[], ADD COLUMN sg_segments_ns bigint[],
            ADD COLUMN sg_overlap text CHECK (sg_overlap IN ('skip', 'queue', 'restart')),
            ADD COLUMN sg_run bigint, ADD COLUMN sg_queued boolean NOT NULL DEFAULT false,
            ADD COLUMN sg_run_count bigint NOT NULL DEFAULT 0, ADD COLUMN sg_skipped_count bigint NOT NULL DEFAULT 0,
            ADD COLUMN series_id bigint;
        CREATE FUNCTION timerd_start_series_run(p_series bigint, p_host text) RETURNS bigint
        LANGUAGE plpgsql AS $$
        DECLARE
            v_run bigint;
        BEGIN
            INSERT INTO timerd_timers (id, owner, name, live, state, due_at, step, steps, fence, written_by,
                segments_ns, created_at, series_id)
            SELECT nextval('timerd_timer_ids'), s.owner, NULL, true, 'running',
                clock_timestamp() + make_interval(secs => s.sg_segments_ns[1] / 1e9), 0,
                cardinality(s.sg_segments_ns), 1, p_host, s.sg_segments_ns, clock_timestamp(), s.id
            FROM timerd_timers s WHERE s.id = p_series AND s.sg_segments_ns IS NOT NULL
            RETURNING id INTO v_run;
            IF v_run IS NULL THEN
                RETURN NULL;
            END IF;
            INSERT INTO timerd_events (timer_id, kind, fence, host_id) VALUES (v_run, 'started', 1, p_host);
            UPDATE timerd_timers
            SET sg_run = v_run, sg_queued = false, sg_run_count = sg_run_count + 1, version = version + 1
            WHERE id = p_series;
            PERFORM pg_notify('timerd_wake:' || current_schema(), v_run::text);
            RETURN v_run;
        END
        $$;
        CREATE FUNCTION timerd_series_runs() RETURNS trigger
        LANGUAGE plpgsql AS $$
        DECLARE
            v_host text := coalesce(NEW.claimed_by, OLD.claimed_by, NEW.written_by);
            v_queued boolean;
            v_state text;
        BEGIN
            IF NEW.series_id IS NOT NULL THEN
                SELECT sg_queued, state INTO v_queued, v_state FROM timerd_timers
                WHERE id = NEW.series_id AND sg_run = NEW.id FOR UPDATE;
                IF FOUND THEN
                    UPDATE timerd_timers SET sg_run = NULL, sg_queued = false, version = version + 1
                    WHERE id = NEW.series_id;
                    IF v_queued AND v_state = 'running' THEN
                        PERFORM timerd_start_series_run(NEW.series_id, v_host);
                    END IF;
                END IF;
            ELSIF NEW.sg_run IS NOT NULL AND NEW.state = 'stopped' THEN
                UPDATE timerd_timers
                SET state = 'stopped', live = false, due_at = NULL, ended_at = clock_timestamp(),
                    remaining_ns = CASE WHEN state = 'running'
                        THEN greatest(0, (extract(epoch FROM due_at - now()) * 1e9)::bigint) ELSE remaining_ns END,
                    fence = fence + 1, claim_until = NULL, claimed_by = NULL, version = version + 1,
                    updated_at = now()
                WHERE id = NEW.sg_run AND live;
                IF FOUND THEN
                    INSERT INTO timerd_events (timer_id, kind, fence, host_id)
                    SELECT id, 'stopped', fence, v_host FROM timerd_timers WHERE id = NEW.sg_run;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE CONSTRAINT TRIGGER timerd_series_runs AFTER UPDATE OF live ON timerd_timers
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
            WHEN (OLD.live AND NOT NEW.live AND (NEW.series_id IS NOT NULL OR NEW.sg_run IS NOT NULL))
            EXECUTE FUNCTION timerd_series_runs();
        """

    /// The migrations by the version they bring the schema to.
    static let migrations: [(version: Int, sql: String)] = [
        (1, version1), (2, version2), (3, version3), (4, version4), (5, version5), (6, version6), (7, version7),
        (8, version8),
    ]

    /// Brings the current schema to ``currentVersion``: creates the version table if missing,
    /// then applies each missing migration, all in one transaction under an advisory lock.
    ///
    /// - Parameter connection: a connection; left outside any transaction.
    /// - Returns: the versions applied now (empty when the schema was current).
    /// - Throws: ``PostgresError``, or ``PostgresError/server(sqlState:message:)`` with SQLSTATE
    ///   `TD001` when the database is at a version newer than this build knows.
    @discardableResult
    public static func migrate(_ connection: PostgresConnection) throws(PostgresError) -> [Int] {
        try connection.transaction { connection throws(PostgresError) in
            // The session's timeouts (PostgresSessionTimeouts) are for serving, not for a migration:
            // hosts starting at once wait here while one migrates, and building an index over a
            // large table may take longer than a statement may.
            try connection.execute("SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0")
            // One lock per schema: hosts of other schemas in the same database do not wait.
            try connection.query("SELECT pg_advisory_xact_lock(hashtext('timerd-migrate:' || current_schema()))")
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS timerd_schema (
                    version integer PRIMARY KEY,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let found = Int(
                try connection.query("SELECT coalesce(max(version), 0) FROM timerd_schema").int64(0, 0) ?? 0)
            guard found <= currentVersion else {
                throw PostgresError.server(
                    sqlState: "TD001",
                    message:
                        "the timerd schema is at version \(found), newer than this timerd knows (\(currentVersion)); "
                        + "upgrade timerd")
            }
            var applied: [Int] = []
            for migration in migrations where migration.version > found {
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO timerd_schema (version) VALUES ($1)", [String(migration.version)])
                applied.append(migration.version)
            }
            return applied
        }
    }
}
