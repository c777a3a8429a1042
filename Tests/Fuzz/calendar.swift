// libFuzzer target: systemd.time(7) calendar expressions (CalendarEvents), the grammar behind
// timerd's calendar timers (scripts/fuzz builds and runs it).
//
// The input's first 8 bytes (fewer: zeros) are the base time, its 9th picks the default zone, the
// rest is the expression text. The base is read as seconds since 1970 (a little-endian Int64 kept
// within ±2^40 s, about ±35,000 years) or, when the 9th byte is odd, as the raw bits of a Double
// (NaN, infinities, subnormals included). For every input:
// - `CalendarExpression.parse` throws a CalendarExpressionError or returns; it never crashes.
// - The normalized form parses again to an expression with the same normalized form (the form is
//   systemd's canonical text, so it must be a fixed point) and the same next elapses.
// - `elapses(after:defaultZone:count:)` are strictly increasing, each after the base, and the first
//   is `nextElapse(after:defaultZone:)`; each is a finite instant.
import CalendarEvents
import Foundation

/// Zones with and without daylight saving, half-hour and 45-minute offsets, and far from UTC.
private let zones: [TimeZone] = [
    "UTC", "Europe/Paris", "America/Los_Angeles", "Pacific/Kiritimati", "Australia/Lord_Howe", "Asia/Kathmandu",
    "America/St_Johns", "Pacific/Apia",
].compactMap { TimeZone(identifier: $0) }

/// How many elapses are asked for each input.
private let count = 4

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalendar(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var raw: UInt64 = 0
    for (index, byte) in bytes.prefix(8).enumerated() { raw |= UInt64(byte) << (8 * UInt64(index)) }
    let selector = size > 8 ? Int(bytes[8]) : 0
    let base: Date
    if selector & 1 == 1 {
        base = Date(timeIntervalSince1970: Double(bitPattern: raw))
    } else {
        let limit: Int64 = 1 << 40
        base = Date(timeIntervalSince1970: Double(Int64(bitPattern: raw) % limit))
    }
    let zone = zones[(selector >> 1) % zones.count]
    let text = String(decoding: bytes.dropFirst(9), as: UTF8.self)
    guard let expression = try? CalendarExpression.parse(text) else { return 0 }
    let normalized = expression.normalized
    let again: CalendarExpression
    do {
        again = try CalendarExpression.parse(normalized)
    } catch {
        preconditionFailure("the normalized form '\(normalized)' of '\(text)' does not parse: \(error)")
    }
    precondition(
        again.normalized == normalized,
        "'\(text)' normalizes to '\(normalized)', which normalizes to '\(again.normalized)'")
    let elapses = expression.elapses(after: base, defaultZone: zone, count: count)
    precondition(
        expression.nextElapse(after: base, defaultZone: zone) == elapses.first,
        "nextElapse and elapses disagree for '\(text)' after \(base.timeIntervalSince1970) in \(zone.identifier)")
    var previous = base
    for elapse in elapses {
        precondition(elapse.timeIntervalSince1970.isFinite, "'\(text)' elapsed at a non-finite instant")
        precondition(
            elapse > previous || !previous.timeIntervalSince1970.isFinite,
            "'\(text)' in \(zone.identifier): elapse \(elapse.timeIntervalSince1970) is not after \(previous.timeIntervalSince1970)"
        )
        previous = elapse
    }
    precondition(
        again.elapses(after: base, defaultZone: zone, count: count) == elapses,
        "'\(text)' and its normalized form '\(normalized)' elapse differently in \(zone.identifier)")
    return 0
}
