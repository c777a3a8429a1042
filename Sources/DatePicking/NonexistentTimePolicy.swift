/// What a wheel spin does when it lands on a local wall time that does not exist (a daylight-saving gap).
///
/// 02:30 on 2026-03-08 does not exist in America/Los_Angeles: clocks jump from 01:59:59 PST to 03:00:00 PDT.
/// Spinning the hour wheel from 1:30 AM by one row lands on 2:30 AM. With ``revert`` the picker goes back to
/// 1:30 AM PST (09:30Z); with ``forward`` it selects 3:30 AM PDT (10:30Z), one real hour later.
///
/// Only spins of the hour, minute, AM/PM and merged date wheels are affected; a day or month wheel follows
/// the day rule of B17.4d, and a programmatic ``DatePicker/date`` is an absolute instant that never needs this.
/// Source: rules B17.4e and B23, decision A7 of docs/datepicker-rules.md.
public enum NonexistentTimePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Go back to the last valid selection, as UIKit does (inferred from its implementation). The default.
    case revert
    /// Let the calendar move the wall time forward by the length of the gap, as Foundation's
    /// `Calendar.date(from:)` and Flutter's `CupertinoDatePicker` do.
    case forward
}
