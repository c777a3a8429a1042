import Foundation

/// How a wall-clock time maps to an instant in a zone, with timerd's policy at daylight-saving transitions.
enum LocalTimeResolution: Equatable, Sendable {
    /// The wall-clock time happens exactly once.
    case unique(instant: Int)
    /// The wall-clock time falls in a gap (spring forward); `instant` is it read with the offset before the gap,
    /// i.e. moved forward by the gap's length, and `gap` is that length, both in microseconds.
    case skipped(instant: Int, gap: Int)
    /// The wall-clock time happens twice (fall back); `instant` is the first occurrence and `repeat` the length
    /// of the repeated stretch in microseconds.
    case repeated(instant: Int, repeat: Int)

    /// The instant timerd uses, in microseconds since 1970-01-01T00:00:00Z.
    var instant: Int {
        switch self {
        case .unique(let instant), .skipped(let instant, _), .repeated(let instant, _): instant
        }
    }

    /// Whether the wall-clock time fell in a gap and was moved forward.
    var isSkipped: Bool {
        if case .skipped = self { return true }
        return false
    }

    /// Resolves `local` (microseconds since 1970-01-01 00:00:00 on the wall clock) in `zone`.
    ///
    /// The offsets a day before and a day after bracket at most one transition in every zone of the tz
    /// database at the dates this library supports (1970–2199): when they are equal the time is unique; when
    /// they differ, each offset is tried and kept if the instant it gives really has that offset. Neither: a
    /// gap; both: an overlap. Example: 02:30 on 2026-03-29 in Europe/Paris has no instant (offsets +1 h before,
    /// +2 h after); it resolves to 01:30Z, which is 03:30 CEST.
    static func resolve(_ local: Int, in zone: ZoneOffsets) -> LocalTimeResolution {
        let day = CivilDateTime.microsecondsPerDay
        let before = zone.offset(atMicroseconds: local - day)
        let after = zone.offset(atMicroseconds: local + day)
        if before == after { return .unique(instant: local - before) }
        let early = local - before
        let late = local - after
        let earlyValid = zone.offset(atMicroseconds: early) == before
        let lateValid = zone.offset(atMicroseconds: late) == after
        switch (earlyValid, lateValid) {
        case (true, true): return .repeated(instant: min(early, late), repeat: abs(before - after))
        case (true, false): return .unique(instant: early)
        case (false, true): return .unique(instant: late)
        case (false, false): return .skipped(instant: early, gap: after - before)
        }
    }
}

/// A zone's UTC offsets, in microseconds, with the fixed-offset zones (UTC) answered without a lookup.
struct ZoneOffsets {
    let zone: TimeZone
    let fixed: Int?

    init(_ zone: TimeZone) {
        self.zone = zone
        let identifier = zone.identifier
        fixed =
            identifier == "UTC" || identifier == "GMT" || identifier == "Etc/UTC" || identifier.hasPrefix("GMT+")
                || identifier.hasPrefix("GMT-") ? zone.secondsFromGMT() * 1_000_000 : nil
    }

    /// The first instant after `instant` at which the offset changes (a daylight-saving or standard-offset
    /// transition), in microseconds; nil when there is none (UTC, or no later transition).
    func transition(afterMicroseconds instant: Int) -> Int? {
        guard fixed == nil else { return nil }
        let date = Date(timeIntervalSince1970: Double(CivilDateTime.floorDivide(instant, 1_000_000)))
        guard let next = zone.nextDaylightSavingTimeTransition(after: date) else { return nil }
        let micro = Int((next.timeIntervalSince1970 * 1_000_000).rounded())
        return micro > instant ? micro : nil
    }

    /// The offset from UTC at an instant, in microseconds.
    func offset(atMicroseconds instant: Int) -> Int {
        if let fixed { return fixed }
        let seconds = CivilDateTime.floorDivide(instant, 1_000_000)
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))) * 1_000_000
    }
}
