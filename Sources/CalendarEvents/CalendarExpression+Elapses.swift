import Foundation

extension CalendarExpression {
    /// The first instant strictly after `base` at which the expression elapses, or nil when it never does
    /// again (a date in the past, `*-02-30`, or nothing before the end of 2199).
    ///
    /// Wall-clock fields are read in the expression's ``timeZone``, else in `defaultZone`. Away from
    /// daylight-saving transitions the result is what `systemd-analyze calendar --base-time=BASE` prints. At
    /// transitions timerd's policy (docs/calendar.md) differs from systemd's where systemd would lose an
    /// elapse:
    ///
    /// - A wall-clock time skipped by a gap (spring forward) still elapses once, moved forward by the gap's
    ///   length, like a one-shot `--at` time: `*-*-* 02:30` in Europe/Paris elapses on 2026-03-29 at 03:30 CEST
    ///   (01:30Z), where systemd skips that day. A moved time that equals a real elapse is one elapse.
    /// - A wall-clock time repeated by an overlap (fall back) elapses once, at its first occurrence: `02:30` on
    ///   2026-10-25 in Europe/Paris elapses at 02:30 CEST (00:30Z) and not again at 02:30 CET, as in systemd.
    ///   From a base inside the second pass (02:10 CET, 01:10Z) the next `02:30` is the next day's, because its
    ///   first occurrence is past; systemd would elapse at 02:30 CET (01:30Z), a second time.
    ///
    /// - Parameters:
    ///   - base: The instant to search after (exclusive).
    ///   - defaultZone: The zone for an expression without one (the user's `TZ`, or the system zone).
    /// - Returns: The instant, at microsecond precision, or nil.
    /// - Complexity: A few field steps and zone lookups for an expression that matches at least once a year;
    ///   up to one step per matching wall-clock time in the hour after a transition.
    public func nextElapse(after base: Date, defaultZone: TimeZone) -> Date? {
        let zone = ZoneOffsets(timeZone ?? defaultZone)
        guard let next = nextElapse(afterMicroseconds: Self.microseconds(base), zone: zone) else { return nil }
        return Date(timeIntervalSince1970: Double(next.instant) / 1_000_000)
    }

    /// The next `count` elapses after `base`, in increasing order; fewer when the expression stops elapsing.
    ///
    /// - Parameters:
    ///   - base: The instant to search after (exclusive).
    ///   - defaultZone: The zone for an expression without one.
    ///   - count: How many elapses, 0 or more.
    /// - Returns: Up to `count` instants, each the ``nextElapse(after:defaultZone:)`` of the one before.
    /// - Complexity: `count` times that of ``nextElapse(after:defaultZone:)``.
    public func elapses(after base: Date, defaultZone: TimeZone, count: Int) -> [Date] {
        let zone = ZoneOffsets(timeZone ?? defaultZone)
        var result: [Date] = []
        var current = Self.microseconds(base)
        while result.count < count, let next = nextElapse(afterMicroseconds: current, zone: zone) {
            result.append(Date(timeIntervalSince1970: Double(next.instant) / 1_000_000))
            current = next.instant
        }
        return result
    }

    /// The largest whole microsecond `m` whose `Date(timeIntervalSince1970: m / 1e6)` is not after `date`.
    ///
    /// Elapses are returned as `Double(m) / 1e6`; multiplying back by 1e6 can land a hair below `m`, and
    /// flooring that would make `nextElapse(after: previousElapse)` return the same elapse again. Comparing in
    /// the returned form keeps "strictly after" exact: an elapse is never returned twice.
    static func microseconds(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 9e12 else { return seconds < 0 ? Int.min / 2 : Int.max / 2 }
        var micro = Int((seconds * 1_000_000).rounded())
        while Double(micro) / 1_000_000 > seconds { micro -= 1 }
        while Double(micro + 1) / 1_000_000 <= seconds { micro += 1 }
        return micro
    }

    /// The search behind ``nextElapse(after:defaultZone:)``, in microseconds since 1970-01-01T00:00:00Z.
    ///
    /// It walks matching wall-clock times from the base's wall-clock time (lowered by up to a day's offset
    /// change, so that a time skipped by a gap just before the base and moved after it is seen) and keeps the
    /// earliest instant after the base. A unique or repeated time ends the walk (later wall-clock times give
    /// later instants); a skipped one, moved forward by the gap, makes it jump to the gap's end, because a real
    /// time just after the gap can come first. Times at or before the base are jumped over (never walked one
    /// microsecond at a time), so an expression such as `*:*:0/0.000001` costs a few steps at a transition too.
    ///
    /// - Returns: How the elapse's wall-clock time resolved (its ``LocalTimeResolution/instant`` is the elapse),
    ///   or nil.
    func nextElapse(afterMicroseconds base: Int, zone: ZoneOffsets) -> LocalTimeResolution? {
        let day = CivilDateTime.microsecondsPerDay
        let offsetNow = zone.offset(atMicroseconds: base)
        let offsetBefore = zone.offset(atMicroseconds: base - day)
        var from = CivilDateTime(localMicroseconds: base + min(offsetNow, offsetBefore))
        var best: LocalTimeResolution?
        var horizon: Int?
        while let match = firstMatch(atOrAfter: from) {
            let local = match.localMicroseconds
            if let horizon, local > horizon { break }
            let resolution = LocalTimeResolution.resolve(local, in: zone)
            let instant = resolution.instant
            var step = 1
            if instant > base {
                // A moved (skipped) time that equals a real elapse is that real elapse.
                let bestInstant = best?.instant ?? Int.max
                if instant < bestInstant || (instant == bestInstant && !resolution.isSkipped) { best = resolution }
                // A unique or repeated time: every later wall-clock time gives a later instant.
                guard case .skipped(_, let gap) = resolution else { break }
                if horizon == nil { horizon = local + gap }
                // Later times in the gap move later still; only times after the gap can come first. The gap
                // began at the transition after `instant - gap`; it ends, on the wall clock, `gap` after it.
                if let transition = zone.transition(afterMicroseconds: instant - gap) {
                    step = max(1, transition + (local - instant) + gap - local)
                }
            } else if case .unique = resolution, zone.offset(atMicroseconds: instant) == offsetNow {
                // Same offset as the base: the base's own wall-clock time is the next one worth trying.
                step = max(1, base - instant + 1)
            } else {
                // Past the base: the wall-clock time that reads as `base + 1 µs` with this time's offset is the next
                // worth trying, but not beyond the next transition (after a fall-back, times past the repeated
                // hour come after the base again). A step of one microsecond at a time could take hours.
                var jump = base - instant + 1
                if let transition = zone.transition(afterMicroseconds: instant) {
                    jump = min(jump, transition - instant)
                }
                step = max(1, jump)
            }
            from = CivilDateTime(localMicroseconds: local + step)
        }
        return best
    }
}
