/// What one settled user spin did: whether it sent `valueChanged` and how the selection had to be restricted.
///
/// Returned by ``DatePicker/spin(_:by:)``; the picker's ``DatePicker/valueChangedCount`` also counts the event.
public struct SpinOutcome: Sendable, Hashable {
    /// Whether the spin sent `valueChanged`: the selection changed or a restriction was applied (rule B17.6).
    public var sentValueChanged: Bool
    /// How the candidate selection was restricted, or `nil` when it was valid as spun.
    public var restriction: Restriction?

    /// How an invalid candidate selection was made valid (rule B17.4 of docs/datepicker-rules.md), in the order checked.
    public enum Restriction: String, Sendable, Hashable, Codable, CaseIterable {
        /// Before ``DatePicker/minimumDate``: the minimum's displayed units were used (B17.4a).
        case clampedToMinimum
        /// After ``DatePicker/maximumDate``: the maximum's displayed units were used (B17.4a).
        case clampedToMaximum
        /// Japanese calendar: the calendar-normalised date was used, e.g. Reiwa 8 Feb 30 → Mar 2 (B17.4b, A14).
        case normalized
        /// The month does not exist in that year (Hebrew Adar I in a common year): month − 1 (B17.4c).
        case previousMonth
        /// The day is beyond the month's length: the last day, e.g. Feb 30 → Feb 28 (B17.4d, B19).
        case lastDayOfMonth
        /// The day is within the month but skipped by the calendar or zone (Pacific/Apia 2011-12-30): day − 1
        /// (B17.4d, B25).
        case previousDay
        /// A wall time in a daylight-saving gap, under ``NonexistentTimePolicy/revert``: the last valid
        /// selection was restored (B17.4e, B23).
        case revertedToLastValidSelection
        /// A wall time in a daylight-saving gap, under ``NonexistentTimePolicy/forward``: moved forward by the
        /// gap, e.g. 02:30 → 03:30 (B23).
        case movedForwardOverGap
        /// Countdown: 0:00 cannot be shown, so the minute became one interval (B20).
        case countDownMinimum
    }
}
