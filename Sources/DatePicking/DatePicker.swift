import Foundation

/// A UI-free model of UIKit's `UIDatePicker` in the wheels style.
///
/// The model holds the same properties as `UIDatePicker` (``datePickerMode``, ``date``, ``minimumDate``,
/// ``maximumDate``, ``minuteInterval``, ``roundsToMinuteInterval``, ``countDownDuration``, ``calendar``,
/// ``locale``, ``timeZone``), describes the wheels the picker would show (``wheels``), and simulates a user
/// spinning one wheel (``spin(_:by:)``). Its behaviour follows the rules B1–B30 and decisions A1–A17 of
/// docs/datepicker-rules.md, each cited where it applies.
///
/// It never reads the clock or the system settings: "now", the system locale, time zone, calendar and 12/24-hour
/// switch come in through ``environment``. Nothing traps on any input: out-of-range or non-finite values are
/// ignored or clamped like UIKit does, and the throwing `set…` methods report them as ``DatePickingError``.
///
/// ```swift
/// var picker = DatePicker(environment: DatePickerEnvironment(now: Date(timeIntervalSince1970: 1_767_268_800)))
/// picker.minuteInterval = 15
/// picker.date = Date(timeIntervalSince1970: 1_778_407_620)  // 2026-05-10T10:07:00Z
/// picker.date  // 2026-05-10T10:00:00Z: floored to the 15-minute grid (B7)
/// picker.spin(.minute, by: 1)  // 10:15, one valueChanged event
/// ```
public struct DatePicker: Sendable, Hashable, Codable {
    /// The instant and system settings the picker uses instead of reading the system.
    public var environment: DatePickerEnvironment

    /// The mode: which wheels the picker shows. Default ``DatePickerMode/dateAndTime`` (rule B1).
    ///
    /// Changing the mode keeps ``date`` and the countdown selection (rule B28): switching to
    /// ``DatePickerMode/countDownTimer`` restores the previous countdown value, or one interval.
    ///
    /// When the old and new modes share no displayed wheel units (``DatePickerMode/time`` and
    /// ``DatePickerMode/date``), the stored date is rebuilt from the last selection: the wall time the wheels
    /// showed, so whole seconds stay and the fraction of a second goes (rule B28, decision A3).
    public var datePickerMode: DatePickerMode = .dateAndTime {
        didSet {
            guard Self.shareNoDisplayedUnits(oldValue, datePickerMode) else { return }
            let calendar = effectiveCalendar
            if let rebuilt = selection(in: calendar).resolved(in: calendar).flatMap(Self.sanitized) {
                storedDate = rounded(rebuilt, in: calendar)
            }
        }
    }

    /// The earliest selectable date, or `nil` for no lower bound. Default `nil`.
    ///
    /// Stored as given; ``date`` is clamped to it on read (decision A6). When both bounds are set and
    /// `minimumDate > maximumDate`, both are ignored (rule B10). Ignored in countdown mode. A non-finite date
    /// counts as no bound and is not stored: setting NaN or ±infinity leaves `nil`, so the picker always
    /// encodes to JSON.
    public var minimumDate: Date? {
        didSet { if let value = minimumDate, !value.timeIntervalSinceReferenceDate.isFinite { minimumDate = nil } }
    }

    /// The latest selectable date, or `nil` for no upper bound. Default `nil`. See ``minimumDate``; a non-finite
    /// date is likewise stored as `nil`.
    public var maximumDate: Date? {
        didSet { if let value = maximumDate, !value.timeIntervalSinceReferenceDate.isFinite { maximumDate = nil } }
    }

    /// Whether ``date`` is floored to ``minuteInterval`` on set and on read. Default `true` (rule B7).
    ///
    /// When `false`, a programmatic ``date`` is returned exactly as set, while the minute wheel still shows the
    /// floored row (rule B8): the pre-iOS 15 behaviour.
    public var roundsToMinuteInterval = true

    /// The calendar the wheels count in, or `nil` for ``DatePickerEnvironment/calendar``. Default `nil`.
    ///
    /// The calendar's own time zone is not used: when ``timeZone`` is `nil` the environment's zone applies.
    /// UIKit (rule B2) would use the calendar's zone, but a Foundation `Calendar` always carries one, the
    /// system's unless set, so it cannot say "no particular zone"; honouring it would make results depend on
    /// the machine. Set ``timeZone`` (or the environment's zone) instead. The calendar's identifier is merged
    /// into ``effectiveLocale``.
    public var calendar: Calendar?

    /// The locale whose patterns order the wheels, or `nil` for ``DatePickerEnvironment/locale`` plus the system
    /// 12/24-hour switch. Default `nil` (rules B14 and B16).
    public var locale: Locale?

    /// The time zone the wheels show the instant in, or `nil` for ``DatePickerEnvironment/timeZone``.
    ///
    /// Changing it changes only the presentation, never the stored instant (rule B4).
    public var timeZone: TimeZone?

    /// What a spin does when it lands in a daylight-saving gap. Default ``NonexistentTimePolicy/revert`` (A7).
    public var nonexistentTimePolicy: NonexistentTimePolicy = .revert

    /// Whether the countdown may show 0:00. Default `false`, like UIKit's private `_allowsZeroTimeInterval`
    /// (decision A5).
    public var allowsZeroCountDownDuration = false

    /// How many `valueChanged` events the picker has sent: one per settled user spin that changed the
    /// selection or had to restrict it (rule B22, decision A11). Programmatic changes never send one. The count
    /// saturates at `Int.max` instead of overflowing.
    public internal(set) var valueChangedCount = 0

    var storedMinuteInterval = 1
    var storedDate: Date
    var countDownHour = 0
    var countDownMinute = 0

    /// Creates a picker with UIKit's defaults whose ``date`` is the environment's ``DatePickerEnvironment/now``.
    ///
    /// - Parameter environment: The instant and system settings to use.
    public init(environment: DatePickerEnvironment) {
        self.environment = environment
        self.storedDate = Self.sanitized(environment.now) ?? Date(timeIntervalSinceReferenceDate: 0)
    }

    // MARK: Minute interval

    /// The minute wheel's step, in minutes. Default 1.
    ///
    /// Only the divisors of 60 from 1 to 30 are accepted (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30). Any other value
    /// is ignored and the previous value kept (rule B3, decision A1; Apple's documentation says the default is
    /// used instead, which differs only after a valid non-default value). Use ``setMinuteInterval(_:)`` to be
    /// told about a rejected value. A larger interval floors ``date`` on its next read (B7.3).
    public var minuteInterval: Int {
        get { Self.isValidMinuteInterval(storedMinuteInterval) ? storedMinuteInterval : 1 }
        set {
            if Self.isValidMinuteInterval(newValue) { storedMinuteInterval = newValue }
        }
    }

    /// Sets ``minuteInterval``, throwing instead of ignoring a value UIKit would ignore.
    ///
    /// - Parameter interval: Minutes, a divisor of 60 from 1 to 30.
    /// - Throws: ``DatePickingError/invalidMinuteInterval(_:)`` for any other value; the interval is unchanged.
    public mutating func setMinuteInterval(_ interval: Int) throws(DatePickingError) {
        guard Self.isValidMinuteInterval(interval) else { throw .invalidMinuteInterval(interval) }
        storedMinuteInterval = interval
    }

    /// Whether `interval` is a divisor of 60 from 1 to 30 (rule B3).
    ///
    /// - Parameter interval: Minutes.
    /// - Returns: `true` for 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 and 30.
    public static func isValidMinuteInterval(_ interval: Int) -> Bool {
        (1...30).contains(interval) && 60 % interval == 0
    }

    // MARK: Date

    /// The selected instant: the stored value floored to ``minuteInterval``, then clamped to the valid range.
    ///
    /// Setting stores the value floored (when ``roundsToMinuteInterval``) but not clamped, and sends no
    /// `valueChanged`; reading floors again and clamps to ``minimumDate``/``maximumDate`` at full precision
    /// (rules B7 and B11, decision A6). So with a minimum of 09:07 and an interval of 10 the result is 09:07 while
    /// the minute wheel shows 00; removing a bound brings the stored value back.
    ///
    /// Flooring rebuilds the date from calendar components (era … second): whole seconds stay, the fraction of a
    /// second goes (A3), and a date already on the grid is returned untouched. Because of the rebuild, a date in
    /// the second occurrence of a repeated hour moves to the first: in Europe/London, 2026-10-25 01:37 GMT
    /// (01:37Z) with an interval of 15 becomes 01:30 BST (00:30Z), one hour earlier (rule B9).
    ///
    /// In countdown mode, setting loads the instant's local hour and minute as ``countDownDuration`` (A12).
    /// A non-finite date is ignored; dates are clamped to `Date.distantPast` … ``latestDate``
    /// (the end of year 10 000, the last row of the year wheel, rule B15).
    public var date: Date {
        get { effectiveDate(in: effectiveCalendar) }
        set {
            guard let value = Self.sanitized(newValue) else { return }
            let calendar = effectiveCalendar
            storedDate = rounded(value, in: calendar)
            if datePickerMode == .countDownTimer {
                let wallTime = WallTime(value, in: calendar)
                countDownHour = wallTime.hour
                countDownMinute = wallTime.minute
            }
        }
    }

    /// Sets ``date``, throwing instead of ignoring a non-finite instant.
    ///
    /// - Parameter date: The new instant; it need not be within the bounds (it is clamped on read).
    /// - Throws: ``DatePickingError/invalidDate(_:)`` when the time interval is NaN or infinite.
    public mutating func setDate(_ date: Date) throws(DatePickingError) {
        guard date.timeIntervalSinceReferenceDate.isFinite else {
            throw .invalidDate(String(date.timeIntervalSinceReferenceDate))
        }
        self.date = date
    }

    /// The calendar actually used: ``calendar`` or the environment's, in ``timeZone``, else in the environment's
    /// zone (rule B2; see ``calendar`` for why the calendar's own zone is not used).
    public var effectiveCalendar: Calendar {
        var result = calendar ?? environment.calendar
        let zone = timeZone ?? environment.timeZone
        if result.timeZone != zone { result.timeZone = zone }
        return result
    }

    /// The locale actually used for the wheel patterns and titles: ``locale`` or the environment's, with the
    /// identifier of the calendar actually used (``calendar``, else the environment's) merged in as the
    /// `calendar` keyword, like UIKit and like Foundation's own formatters given a locale and a calendar
    /// (rule B2). So en_US with the Hebrew calendar orders `.date` wheels day, month, year (`d MMMM y`), not
    /// month, day, year; and `ja_JP@calendar=japanese` on a Gregorian system titles years `2025年`, not
    /// `西暦2025年` (the Japanese calendar's pattern with a Gregorian era). A locale whose own calendar is
    /// already the one used is returned as it is (`en_US` with Gregorian stays `en_US`).
    public var effectiveLocale: Locale {
        let base = locale ?? environment.locale
        let identifier = (calendar ?? environment.calendar).identifier
        guard base.calendar.identifier != identifier else { return base }
        var components = Locale.Components(locale: base)
        components.calendar = identifier
        return Locale(components: components)
    }

    /// Whether two modes show no wheel unit in common (AM/PM aside): only `.time` and `.date` (rule B28).
    static func shareNoDisplayedUnits(_ old: DatePickerMode, _ new: DatePickerMode) -> Bool {
        (old == .time && new == .date) || (old == .date && new == .time)
    }

    /// The bounds that apply now: none in countdown mode or when `minimumDate > maximumDate` (rule B10).
    var validBounds: (minimum: Date?, maximum: Date?) {
        guard datePickerMode != .countDownTimer else { return (nil, nil) }
        let minimum = minimumDate.flatMap(Self.sanitized)
        let maximum = maximumDate.flatMap(Self.sanitized)
        if let minimum, let maximum, minimum > maximum { return (nil, nil) }
        return (minimum, maximum)
    }

    func effectiveDate(in calendar: Calendar) -> Date {
        // A decoded picker may carry any stored instant, so it is sanitised here as well.
        let stored = Self.sanitized(storedDate) ?? Date(timeIntervalSinceReferenceDate: 0)
        return clamped(rounded(stored, in: calendar))
    }

    func clamped(_ value: Date) -> Date {
        let bounds = validBounds
        if let minimum = bounds.minimum, value < minimum { return minimum }
        if let maximum = bounds.maximum, value > maximum { return maximum }
        return value
    }

    /// Floors the minute to ``minuteInterval`` through calendar components (rule B7).
    func rounded(_ value: Date, in calendar: Calendar) -> Date {
        let interval = minuteInterval
        guard roundsToMinuteInterval, interval >= 2 else { return value }
        var wallTime = WallTime(value, in: calendar)
        guard wallTime.minute % interval != 0 else { return value }
        wallTime.minute = wallTime.minute / interval * interval
        return wallTime.resolved(in: calendar).flatMap(Self.sanitized) ?? value
    }

    /// The latest date the model holds: 10000-12-31T23:59:59Z. The year wheel runs to year 10 000 (rule B15),
    /// so `Date.distantFuture` (year 4001) would cut it short.
    public static let latestDate = Date(timeIntervalSinceReferenceDate: 252_455_615_999)

    /// Replaces a non-finite date by `nil` and clamps others to `Date.distantPast` … ``latestDate``.
    static func sanitized(_ value: Date) -> Date? {
        guard value.timeIntervalSinceReferenceDate.isFinite else { return nil }
        return Swift.min(Swift.max(value, .distantPast), latestDate)
    }

    // MARK: Countdown

    /// The countdown duration, in seconds: a whole number of minutes from one interval to 86 340 (23:59).
    ///
    /// Setting drops leftover seconds and caps the value at 86 340 (decision A4; Apple documents 23:59, the
    /// header says "div 60"); negative and NaN values count as 0. Reading returns what the wheels show:
    /// hours × 3600 + minutes × 60, the minute floored to ``minuteInterval``. The wheels never show 0:00 unless
    /// ``allowsZeroCountDownDuration``: the value is then one interval, 60 × ``minuteInterval`` (rule B20,
    /// decision A5), so a fresh picker reports 60. Examples: 100 → 60; 50 000 → 49 980; interval 10: 4 000 →
    /// 3 600. ``minimumDate`` and ``maximumDate`` do not apply (rule B21). No `valueChanged` is sent.
    public var countDownDuration: TimeInterval {
        get {
            let interval = minuteInterval
            let hour = Swift.min(Swift.max(countDownHour, 0), 23)
            let minute = Swift.min(Swift.max(countDownMinute, 0), 59) / interval * interval
            if hour == 0, minute == 0, !allowsZeroCountDownDuration { return TimeInterval(60 * interval) }
            return TimeInterval(hour * 3600 + minute * 60)
        }
        set {
            let seconds = newValue.isNaN ? 0 : Swift.min(Swift.max(newValue, 0), 86_340)
            let whole = Int(seconds)
            countDownHour = whole / 3600
            countDownMinute = whole % 3600 / 60
        }
    }

    /// Sets ``countDownDuration``, throwing instead of ignoring a value that is not a duration.
    ///
    /// - Parameter duration: Seconds, finite and ≥ 0. Values above 86 340 are capped, seconds are dropped.
    /// - Throws: ``DatePickingError/invalidCountDownDuration(_:)`` for NaN, infinite or negative values.
    public mutating func setCountDownDuration(_ duration: TimeInterval) throws(DatePickingError) {
        guard duration.isFinite, duration >= 0 else { throw .invalidCountDownDuration(String(duration)) }
        countDownDuration = duration
    }
}
