import FoundationEssentials

/// Fixed instants that several test targets share, each with the wall time it stands for, so that
/// no test reads the machine's clock or zone (a test that depended on either could pass or fail by machine).
///
/// The daylight-saving instants are those of America/Los_Angeles in 2026 (tz database: the gap is
/// 02:00-03:00 on 2026-03-08, the repeated hour 01:00-02:00 on 2026-11-01).
public enum FixedInstant {
    /// 2026-11-29T15:17:33Z: the wall clock when the engine's, service's and daemon's tests start.
    public static let engineStart = Date(timeIntervalSince1970: 1_795_965_453)
    /// 2026-01-01T12:00:00Z: the date picker fixtures' "now".
    public static let newYearNoon = Date(timeIntervalSince1970: 1_767_268_800)
    /// 2026-05-10T10:07:00Z: a minute that is not a multiple of common minute intervals.
    public static let mayMorning = Date(timeIntervalSince1970: 1_778_407_620)
    /// 2026-03-08T09:30:00Z = 01:30 PST in America/Los_Angeles, half an hour before the spring-forward gap.
    public static let springForwardBefore = Date(timeIntervalSince1970: 1_772_962_200)
    /// 2026-03-08T10:30:00Z = 03:30 PDT in America/Los_Angeles, half an hour after the gap (02:30 does not exist).
    public static let springForwardAfter = Date(timeIntervalSince1970: 1_772_965_800)
    /// 2026-11-01T08:30:00Z = 01:30 PDT in America/Los_Angeles: the first of the two 01:30s of the fall-back day.
    public static let fallBackFirst = Date(timeIntervalSince1970: 1_793_521_800)
}
