import Foundation

/// Turns a local wall time a person typed (`14:30`, `2026-12-01T09:00`, read by the product's one grammar,
/// `TimerProtocol.LocalTimeText`) into an instant, for `timerctl --at`.
///
/// Pure: "now", the time zone and the calendar are parameters; nothing is read from the system. A time of day
/// (`HH:mm` or `HH:mm:ss`) means its next occurrence strictly after `now`, the second occurrence of a repeated
/// hour included (asked at 01:45 PDT on 2026-11-01 in America/Los_Angeles, `01:30` is 01:30 PST, 45 minutes
/// later, not 01:30 the next day); a date-time
/// (`YYYY-MM-DDTHH:mm[:ss]`, an ISO 8601 Gregorian date) means that local date-time. An optional minute interval
/// floors the minute the way ``DatePicker`` does (rule B7 of docs/datepicker-rules.md).
///
/// Daylight-saving transitions are decided by explicit policies, because a wall time may not exist or may
/// occur twice:
/// - 02:30 on 2026-03-08 does not exist in America/Los_Angeles (01:59:59 PST is followed by 03:00:00 PDT).
///   ``SkippedTimePolicy/moveForward`` gives 03:30 PDT (10:30Z, like Foundation's `date(from:)`),
///   ``SkippedTimePolicy/nextValidTime`` gives 03:00 PDT (10:00Z), ``SkippedTimePolicy/reject`` throws.
/// - 01:30 on 2026-11-01 occurs twice in America/Los_Angeles (PDT, then PST). ``RepeatedTimePolicy/first`` gives
///   01:30 PDT (08:30Z), ``RepeatedTimePolicy/last`` gives 01:30 PST (09:30Z), ``RepeatedTimePolicy/reject``
///   throws.
///
/// ```swift
/// let resolution = try LocalTimeResolver.resolve(
///     LocalTimeResolver.LocalTime(hour: 14, minute: 30), now: now, timeZone: zone,
///     calendar: Calendar(identifier: .gregorian))
/// print(resolution.date, resolution.adjustment)
/// ```
public enum LocalTimeResolver {
    /// What to do with a wall time that a daylight-saving gap skips.
    public enum SkippedTimePolicy: String, Sendable, Hashable, Codable, CaseIterable {
        /// Shift the wall time forward by the length of the gap (02:30 → 03:30), as `Calendar.date(from:)` does.
        case moveForward
        /// Use the first instant after the gap (02:30 → 03:00).
        case nextValidTime
        /// Throw ``DatePickingError/nonexistentLocalTime(_:)``.
        case reject
    }

    /// What to do with a wall time that occurs twice when clocks go back.
    public enum RepeatedTimePolicy: String, Sendable, Hashable, Codable, CaseIterable {
        /// The first occurrence (still on summer time), as `Calendar.date(from:)` and ``DatePicker`` do (B24).
        case first
        /// The second occurrence (already on standard time).
        case last
        /// Throw ``DatePickingError/ambiguousLocalTime(_:)``.
        case reject
    }

    /// How the typed wall time was mapped to the instant.
    public enum Adjustment: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The wall time exists exactly once.
        case exact
        /// The wall time was in a gap of the given length in seconds and moved forward by it.
        case movedForwardOverGap(seconds: Int)
        /// The wall time was in a gap; the first instant after the gap was used.
        case movedToEndOfGap
        /// The wall time occurs twice; the first occurrence was used.
        case firstOfRepeated
        /// The wall time occurs twice; the second occurrence was used.
        case lastOfRepeated

        /// A short English description, e.g. "moved forward 3600 s over a daylight-saving gap".
        public var description: String {
            switch self {
            case .exact: return "exact"
            case .movedForwardOverGap(let seconds): return "moved forward \(seconds) s over a daylight-saving gap"
            case .movedToEndOfGap: return "moved to the end of a daylight-saving gap"
            case .firstOfRepeated: return "first of two occurrences (clocks go back)"
            case .lastOfRepeated: return "second of two occurrences (clocks go back)"
            }
        }
    }

    /// A parsed wall time: a time of day, optionally on a given date.
    public struct LocalTime: Sendable, Hashable, Codable {
        /// Year, month and day (ISO 8601 Gregorian), or `nil` for "the next occurrence".
        public var year: Int?
        /// Month 1–12, or `nil` with ``year``.
        public var month: Int?
        /// Day 1–31, or `nil` with ``year``.
        public var day: Int?
        /// Hour 0–23.
        public var hour: Int
        /// Minute 0–59.
        public var minute: Int
        /// Second 0–59.
        public var second: Int

        /// Creates a wall time; ``LocalTimeResolver/resolve(_:now:timeZone:calendar:minuteInterval:skippedTimePolicy:repeatedTimePolicy:)-(LocalTime,_,_,_,_,_,_)``
        /// checks the ranges.
        ///
        /// - Parameters:
        ///   - year: ISO 8601 Gregorian year, or `nil` for the next occurrence of the time of day.
        ///   - month: Month 1–12, or `nil`.
        ///   - day: Day 1–31, or `nil`.
        ///   - hour: Hour 0–23.
        ///   - minute: Minute 0–59.
        ///   - second: Second 0–59. Default 0.
        public init(year: Int? = nil, month: Int? = nil, day: Int? = nil, hour: Int, minute: Int, second: Int = 0) {
            self.year = year
            self.month = month
            self.day = day
            self.hour = hour
            self.minute = minute
            self.second = second
        }
    }

    /// The result of resolving a wall time.
    ///
    /// ``localTime`` always carries the resolved wall date (ISO 8601 Gregorian), also for a typed time of day.
    public struct Resolution: Sendable, Hashable, Codable {
        /// The chosen instant.
        public var date: Date
        /// The wall time after flooring to the minute interval, as resolved.
        public var localTime: LocalTime
        /// Which policy case applied.
        public var adjustment: Adjustment
    }

    /// Resolves a wall time to an instant.
    ///
    /// The typed text of a wall time (`14:30`, `2026-12-01T09:00`) is not read here: its grammar is
    /// the product's wire rule (`TimerProtocol.LocalTimeText`, shared by `timerctl` and `timerd`),
    /// and this library takes its fields, so that the grammar exists once.
    ///
    /// - Parameters:
    ///   - localTime: The wall time.
    ///   - now: The current instant; a time of day resolves to its next occurrence strictly after it.
    ///   - timeZone: The zone the wall time is in.
    ///   - calendar: The calendar for "today" and "the next day" (its own time zone is replaced by `timeZone`).
    ///   - minuteInterval: Minutes, a divisor of 60 from 1 to 30; the minute is floored to it. Default 1.
    ///   - skippedTimePolicy: What to do in a daylight-saving gap. Default ``SkippedTimePolicy/moveForward``.
    ///   - repeatedTimePolicy: What to do with a repeated wall time. Default ``RepeatedTimePolicy/first``.
    /// - Returns: The instant, the wall time used, and which policy case applied.
    /// - Throws: ``DatePickingError/invalidLocalTime(_:)`` for a field out of range,
    ///   ``DatePickingError/invalidMinuteInterval(_:)``, ``DatePickingError/invalidDate(_:)`` for a
    ///   non-finite `now`, ``DatePickingError/nonexistentLocalTime(_:)`` or
    ///   ``DatePickingError/ambiguousLocalTime(_:)``.
    public static func resolve(
        _ localTime: LocalTime,
        now: Date,
        timeZone: TimeZone,
        calendar: Calendar,
        minuteInterval: Int = 1,
        skippedTimePolicy: SkippedTimePolicy = .moveForward,
        repeatedTimePolicy: RepeatedTimePolicy = .first
    ) throws(DatePickingError) -> Resolution {
        guard DatePicker.isValidMinuteInterval(minuteInterval) else { throw .invalidMinuteInterval(minuteInterval) }
        guard now.timeIntervalSinceReferenceDate.isFinite else {
            throw .invalidDate(String(now.timeIntervalSinceReferenceDate))
        }
        guard (0...23).contains(localTime.hour), (0...59).contains(localTime.minute),
            (0...59).contains(localTime.second)
        else { throw .invalidLocalTime("\(localTime.hour):\(localTime.minute):\(localTime.second)") }
        let now = DatePicker.sanitized(now) ?? now
        var wall = localTime
        wall.minute = wall.minute / minuteInterval * minuteInterval
        if let year = wall.year, let month = wall.month, let day = wall.day {
            let gregorian = CalendarIdentifiers.calendar(.gregorian, timeZone: timeZone)
            let parts = DateComponents(year: year, month: month, day: day, hour: wall.hour, minute: wall.minute)
            return try resolveWall(
                parts, second: wall.second, label: wall, calendar: gregorian, skipped: skippedTimePolicy,
                repeated: repeatedTimePolicy)
        }
        var local = calendar
        local.timeZone = timeZone
        let today = local.dateComponents([.era, .year, .month, .day], from: now)
        // The next occurrence is today or on one of the next few days (a zone may skip a whole day).
        for offset in 0..<4 {
            guard
                let noon = local.date(
                    from: DateComponents(
                        era: today.era, year: today.year, month: today.month, day: today.day, hour: 12)),
                let day = local.date(byAdding: .day, value: offset, to: noon)
            else { continue }
            var parts = local.dateComponents([.era, .year, .month, .day], from: day)
            parts.hour = wall.hour
            parts.minute = wall.minute
            let resolution = try resolveWall(
                parts, second: wall.second, label: wall, calendar: local, skipped: skippedTimePolicy,
                repeated: repeatedTimePolicy)
            if resolution.date > now { return resolution }
            // Asked inside a repeated hour (01:45 PDT on 2026-11-01 in Los Angeles, for 01:30): the first
            // occurrence has passed but the second (01:30 PST, 45 minutes later) is still the next one.
            if resolution.adjustment == .firstOfRepeated {
                let second = try resolveWall(
                    parts, second: wall.second, label: wall, calendar: local, skipped: skippedTimePolicy,
                    repeated: .last)
                if second.date > now { return second }
            }
        }
        throw .invalidLocalTime("\(wall.hour):\(wall.minute)")
    }

    private static func resolveWall(
        _ parts: DateComponents, second: Int, label: LocalTime, calendar: Calendar, skipped: SkippedTimePolicy,
        repeated: RepeatedTimePolicy
    ) throws(DatePickingError) -> Resolution {
        var parts = parts
        parts.second = second
        let text = describe(parts)
        // The wall time read as if it were UTC; each candidate offset turns it into an instant.
        var utc = calendar
        utc.timeZone = .gmt
        guard let naive = utc.date(from: parts) else { throw .invalidLocalTime(text) }
        let zone = calendar.timeZone
        let offsets = Set(
            [-2, -1, 0, 1, 2].map { zone.secondsFromGMT(for: naive.addingTimeInterval(Double($0) * 86_400)) })
        let valid = offsets.map { naive.addingTimeInterval(-Double($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(naive.timeIntervalSince($0)) }
            .sorted()
        let gregorian = CalendarIdentifiers.calendar(.gregorian, timeZone: .gmt)
        let wall = gregorian.dateComponents([.year, .month, .day], from: naive)
        var localTime = label
        localTime.year = wall.year
        localTime.month = wall.month
        localTime.day = wall.day
        if let first = valid.first, valid.count == 1 {
            return Resolution(date: first, localTime: localTime, adjustment: .exact)
        }
        if let first = valid.first, let last = valid.last {
            switch repeated {
            case .first: return Resolution(date: first, localTime: localTime, adjustment: .firstOfRepeated)
            case .last: return Resolution(date: last, localTime: localTime, adjustment: .lastOfRepeated)
            case .reject: throw .ambiguousLocalTime(text)
            }
        }
        // A gap: the offset before the transition is the smaller one (clocks jump forward).
        let before = zone.secondsFromGMT(for: naive.addingTimeInterval(-2 * 86_400))
        let after = zone.secondsFromGMT(for: naive.addingTimeInterval(2 * 86_400))
        switch skipped {
        case .reject:
            throw .nonexistentLocalTime(text)
        case .moveForward:
            return Resolution(
                date: naive.addingTimeInterval(-Double(before)), localTime: localTime,
                adjustment: .movedForwardOverGap(seconds: after - before))
        case .nextValidTime:
            // The transition lies between the wall time read with the later and the earlier offset.
            var low = naive.addingTimeInterval(-Double(after))
            var high = naive.addingTimeInterval(-Double(before))
            if low > high { swap(&low, &high) }
            while high.timeIntervalSince(low) > 1 {
                let middle = low.addingTimeInterval((high.timeIntervalSince(low) / 2).rounded(.down))
                if zone.secondsFromGMT(for: middle) == after { high = middle } else { low = middle }
            }
            return Resolution(date: high, localTime: localTime, adjustment: .movedToEndOfGap)
        }
    }

    private static func describe(_ parts: DateComponents) -> String {
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T"
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
    }
}
