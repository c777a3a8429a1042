import TimerModel

/// A recurring timer's rule and series as the protocol sends it (the `recurrence` member of a timer,
/// present only for timers started with `--on` or `--every`; docs/protocol.md, "Recurring timers").
///
/// Instants are ISO 8601 strings (UTC, milliseconds); seconds are fractional. The JSON keys are the
/// property names, sorted; absent optionals are left out.
public struct RecurrenceInfo: Sendable, Codable, Hashable {
    /// How many elapses the series accounted for: each rung on time, plus each one a catch-up stood for.
    public var elapseCount: Int
    /// For `--every`: the period in seconds; `nil` for a calendar timer.
    public var every: Double?
    /// For `--on`: the calendar expression as given (systemd.time(7)); `nil` for `--every`.
    public var expression: String?
    /// For `--on`: whether the zone is the system's (re-timed when `/etc/localtime` changes) rather
    /// than explicit (in the expression or the requester's `TZ`).
    public var followsSystemZone: Bool?
    /// The group the series starts at each elapse, or `nil` for a series that only rings.
    public var group: SeriesGroupInfo?
    /// The nominal instant of the latest elapse rung (or folded into a catch-up), if any.
    public var lastElapse: String?
    /// The `missed` count of the latest `elapsed` event (0: on time).
    public var lastMissed: Int
    /// How the latest on-elapse action run ended: `running`, `exited N`, `signalled N`, `timed out`,
    /// `failed to start (errno N)` or `interrupted`; `nil` without an action or before the first run.
    public var lastResult: String?
    /// When the next elapse rings (randomized delay included); `nil` while paused or ended.
    public var nextElapse: String?
    /// `true` unless `--skip-missed`: elapses missed while timerd could not ring them ring as one catch-up.
    public var persistent: Bool
    /// `--randomized-delay` in seconds (0: none).
    public var randomizedDelay: Double
    /// For `--on`: the zone the expression is read in (an IANA identifier or `UTC`).
    public var zone: String?

    /// Creates the wire form; see the properties for each field's meaning (`group` defaults to `nil`).
    public init(
        elapseCount: Int, every: Double?, expression: String?, followsSystemZone: Bool?, lastElapse: String?,
        lastMissed: Int, lastResult: String?, nextElapse: String?, persistent: Bool, randomizedDelay: Double,
        zone: String?, group: SeriesGroupInfo? = nil
    ) {
        self.group = group
        self.elapseCount = elapseCount
        self.every = every
        self.expression = expression
        self.followsSystemZone = followsSystemZone
        self.lastElapse = lastElapse
        self.lastMissed = lastMissed
        self.lastResult = lastResult
        self.nextElapse = nextElapse
        self.persistent = persistent
        self.randomizedDelay = randomizedDelay
        self.zone = zone
    }

    /// The rule as a person reads it: the expression, or `every 1h30m`.
    public var ruleText: String {
        if let expression { return expression }
        return "every " + DurationFormatter.compact(seconds: every ?? 0)
    }

    /// Writes the value as `JSONEncoder` with sorted keys does.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        writer.raw(#"{"elapseCount":"#)
        writer.integer(Int64(elapseCount))
        if let every {
            writer.raw(#","every":"#)
            try writer.number(every)
        }
        if let expression {
            writer.raw(#","expression":"#)
            writer.string(expression)
        }
        if let followsSystemZone {
            writer.raw(#","followsSystemZone":"#)
            writer.bool(followsSystemZone)
        }
        if let group {
            writer.raw(#","group":"#)
            try group.write(to: &writer)
        }
        if let lastElapse {
            writer.raw(#","lastElapse":"#)
            writer.string(lastElapse)
        }
        writer.raw(#","lastMissed":"#)
        writer.integer(Int64(lastMissed))
        if let lastResult {
            writer.raw(#","lastResult":"#)
            writer.string(lastResult)
        }
        if let nextElapse {
            writer.raw(#","nextElapse":"#)
            writer.string(nextElapse)
        }
        writer.raw(#","persistent":"#)
        writer.bool(persistent)
        writer.raw(#","randomizedDelay":"#)
        try writer.number(randomizedDelay)
        if let zone {
            writer.raw(#","zone":"#)
            writer.string(zone)
        }
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension RecurrenceInfo: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "recurrence")
        self.init(
            elapseCount: try object.integer("elapseCount"),
            every: try object.optional("every").map { _ throws(JSONShapeError) in try object.double("every") },
            expression: try object.optionalString("expression"),
            followsSystemZone: try object.optionalBool("followsSystemZone"),
            lastElapse: try object.optionalString("lastElapse"), lastMissed: try object.integer("lastMissed"),
            lastResult: try object.optionalString("lastResult"), nextElapse: try object.optionalString("nextElapse"),
            persistent: try object.bool("persistent"), randomizedDelay: try object.double("randomizedDelay"),
            zone: try object.optionalString("zone"),
            group: try object.optional("group").map { value throws(JSONShapeError) in try SeriesGroupInfo(json: value) }
        )
    }
}
