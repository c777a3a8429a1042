/// Data a timer carries beyond ``TimerRecord``'s fixed fields, persisted in the store's extension
/// trailer (format version 4: a count, then per extension a UInt16 tag, a UInt32 byte length and
/// the bytes; `TimerRecord+BinaryCoding.swift`).
///
/// Tags: 1 is ``action(_:)``; 2 is ``recurrence(_:)``; 3 is ``heartbeat(_:)``; 4 is ``wake``; 5 is
/// ``seriesGroup(_:)`` on a series and ``seriesRun(series:)`` on its runs; 6 is ``alarm(_:)``; others
/// are free. An extension this
/// build does not know is kept as ``unknown(tag:bytes:)`` and written back verbatim, so that an
/// older daemon never loses what a newer one stored.
public enum TimerExtension: Sendable, Hashable {
    /// Tag 1: the on-finish action and its runs.
    case action(TimerAction)
    /// Tag 2: the recurrence of a recurring timer (`--on`, `--every`) and where its series stands.
    case recurrence(TimerRecurrence)
    /// Tag 3: the mark of a heartbeat timer (`--heartbeat`) and its beats.
    case heartbeat(TimerHeartbeat)
    /// Tag 4: the timer wakes the machine from suspend at its end (`--wake`, systemd's `WakeSystem=`).
    case wake
    /// Tag 5 on a recurring series: the group it starts at each elapse (``SeriesGroup``).
    case seriesGroup(SeriesGroup)
    /// Tag 5 on a run a series started: the series' id.
    case seriesRun(series: UInt64)
    /// Tag 6: the warning and the ringing of an alarm (`--warn`, `--ring`) and where they stand.
    case alarm(TimerAlarm)
    /// A tag this build does not read, with its bytes as stored.
    case unknown(tag: UInt16, bytes: [UInt8])

    /// The tag of ``action(_:)``.
    public static let actionTag: UInt16 = 1
    /// The tag of ``recurrence(_:)``.
    public static let recurrenceTag: UInt16 = 2
    /// The tag of ``heartbeat(_:)``.
    public static let heartbeatTag: UInt16 = 3
    /// The tag of ``wake``.
    public static let wakeTag: UInt16 = 4
    /// The tag of ``seriesGroup(_:)`` and ``seriesRun(series:)`` (one tag, told apart by a role byte).
    public static let seriesTag: UInt16 = 5
    /// The tag of ``alarm(_:)``.
    public static let alarmTag: UInt16 = 6

    /// The extension's tag in the trailer.
    public var tag: UInt16 {
        switch self {
        case .action: return Self.actionTag
        case .recurrence: return Self.recurrenceTag
        case .heartbeat: return Self.heartbeatTag
        case .wake: return Self.wakeTag
        case .seriesGroup, .seriesRun: return Self.seriesTag
        case .alarm: return Self.alarmTag
        case .unknown(let tag, _): return tag
        }
    }
}

extension TimerRecord {
    /// The on-finish action (extension tag 1), or `nil`; setting `nil` removes it.
    ///
    /// - Complexity: O(e) for e extensions (almost always 0 or 1).
    public var action: TimerAction? {
        get {
            for case .action(let action) in extensions { return action }
            return nil
        }
        set {
            let index = extensions.firstIndex { $0.tag == TimerExtension.actionTag }
            switch (index, newValue) {
            case (let index?, let action?): extensions[index] = .action(action)
            case (let index?, nil): extensions.remove(at: index)
            case (nil, let action?): extensions.append(.action(action))
            case (nil, nil): break
            }
        }
    }
}
