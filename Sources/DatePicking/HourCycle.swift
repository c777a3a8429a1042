/// The system's 12/24-hour switch (Settings ▸ 24-Hour Time on iOS).
///
/// It is consulted only when ``DatePicker/locale`` is `nil`; an explicit locale's own hour cycle always wins
/// (rule B16 of docs/datepicker-rules.md, UIKit's `followsSystemHourCycle`). The raw values are the CLDR/Unicode
/// `hours` keyword values.
public enum HourCycle: String, Sendable, Hashable, Codable, CaseIterable {
    /// A 12-hour clock with an AM/PM wheel, hours shown 1–12.
    case h12
    /// A 24-hour clock without AM/PM, hours shown 0–23.
    case h23
}
