/// Identifies one wheel ("drum") of a ``DatePicker``.
///
/// The raw values are the wheel names of the shared test vectors (`vectors/README.md`).
public enum WheelKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Hour of the time: 1–12 on a 12-hour wheel, 0–23 on a 24-hour wheel; wraps.
    case hour
    /// Minute: multiples of ``DatePicker/minuteInterval`` from 0; wraps.
    case minute
    /// AM/PM: two rows, does not wrap.
    case ampm
    /// Day of month in `.date` mode: 1 to the calendar's maximum (31, or 30 for Hebrew); wraps.
    case day
    /// Month in `.date` mode: 1 to the calendar's maximum (12, or 13 for Hebrew); wraps.
    case month
    /// Year in `.date` mode as the calendar counts it (within the era for Japanese): 1–10000; does not wrap.
    case year
    /// The merged day wheel of `.dateAndTime`: one row per day, ±5000 days around "today" (or around the
    /// selected day when that is further away); does not wrap.
    case date
    /// Countdown hours, 0–23; does not wrap.
    case countdownHour
    /// Countdown minutes, multiples of ``DatePicker/minuteInterval``; wraps.
    case countdownMinute
}
