// Over 450 lines on purpose: the extension trailer's whole byte contract (the table of every tag's
// layout, then its writer and its readers) stays in one file, so that a format change is read and
// reviewed in one place beside docs/durability.md.
import Countdown

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The extension trailer that ends a record's binary form from format version 4 on (the shared
// contract in docs/durability.md): a UInt32 count, then per extension a UInt16 tag, a UInt32 byte length and
// that many bytes. A reader that does not know a tag keeps its bytes verbatim (written back as they
// came), so a newer daemon's data survives an older one. Tags: 1 the on-finish action (below);
// 2 recurrence (`TimerRecurrence`, below); 3 the heartbeat mark (`TimerHeartbeat`, below); 4 the wake
// mark (`TimerExtension.wake`, below); 5 a series' group or a run's series (`SeriesGroup`, below);
// 6 the alarm (`TimerAlarm`, below).
//
// Tag 1, the on-finish action (`TimerAction`), all little-endian:
//
// | field | form |
// |---|---|
// | flags | UInt8: 1 command present, 2 notify, 4 sound present |
// | command | when flag 1: a UInt32 byte count and UTF-8 |
// | sound | when flag 4: the sound file's absolute path, a UInt32 byte count and UTF-8 |
// | workingDirectory | a UInt32 byte count and UTF-8 |
// | environment | UInt32 count, then per variable its name and its value as strings |
// | runs | UInt32 count, then per run: kind UInt8 (0 exec, 1 notify, 2 sound), trigger UInt8 (0 finished, 1 missed, 2 elapsed, 3 ringing, 4 warning), startedAt Double, outcome UInt8 (0 running, 1 exited, 2 signalled, 3 timed out, 4 failed to start, 5 interrupted), the outcome's value Int64 (status, signal or errno; else 0), endedAt presence UInt8 (0 or 1) and Double (0 when absent) |
//
// Tag 2, the recurrence (`TimerRecurrence`), all little-endian:
//
// | field | form |
// |---|---|
// | version | UInt8: 1 |
// | kind | UInt8: 0 calendar, 1 every |
// | rule | calendar: expression and zone as strings (UInt32 byte count and UTF-8), flags UInt8 (1 follows the system zone); every: seconds Double |
// | flags | UInt8: 1 skip missed |
// | randomizedDelay | Double, seconds |
// | nextElapse, lastElapse | each a presence UInt8 (0 or 1) and a Double (seconds since 2001-01-01; 0 when absent) |
// | elapseCount | UInt64 |
// | lastMissed, pendingMissed | UInt32 each |
//
// Tag 3, the heartbeat mark (`TimerHeartbeat`), all little-endian, 18 bytes:
//
// | field | form |
// |---|---|
// | version | UInt8: 1 |
// | beatCount | UInt64 |
// | lastBeatAt | a presence UInt8 (0 or 1) and a Double (seconds since 2001-01-01; 0 when absent) |
//
// Tag 4, the wake mark (`--wake`), 1 byte:
//
// | field | form |
// |---|---|
// | version | UInt8: 1 |
//
// Tag 5, a series' group (`TimerExtension.seriesGroup`) or a run's series (`TimerExtension.seriesRun`),
// all little-endian:
//
// | field | form |
// |---|---|
// | version | UInt8: 1 |
// | role | UInt8: 0 the group of a series, 1 a run of a series |
// | role 0: durations | UInt32 count (1 to 100), then each a Double, seconds (> 0) |
// | role 0: overlap | UInt8: 0 skip, 1 queue, 2 restart |
// | role 0: run | a presence UInt8 (0 or 1) and a UInt64 id (0 when absent) |
// | role 0: flags | UInt8: 1 a run is queued |
// | role 0: runCount, skippedCount | UInt64 each |
// | role 1: series | UInt64, the series' id |
//
// Tag 6, the alarm (`--warn`, `--ring`; `TimerAlarm`), all little-endian, 43 bytes (version 1) or
// 47 (version 2, written only for `--warn-each`, so that other alarms stay readable by a build
// before it):
//
// | field | form |
// |---|---|
// | version | UInt8: 1, or 2 with warnedSteps at the end |
// | flags | UInt8: 1 rings, 2 warns, 4 warned, 8 outcome present, 16 warns each step (version 2 only) |
// | ring interval, ring limit | Double seconds each (0 when it does not ring); > 0 and ≤ 1 day, > 0 and ≤ 366 days |
// | warning | Double seconds (0 when it does not warn); > 0 and ≤ 366 days |
// | ringCount, snoozeCount | UInt32 each |
// | snoozedNanoseconds | Int64, ≥ 0 |
// | outcome | UInt8: 0 acknowledged, 1 unanswered (0 when absent) |
// | warnedSteps | version 2: UInt32, the steps warned so far |
extension TimerRecord {
    /// The smallest trailer entry: a tag and a length.
    private static let extensionHeaderSize = 6

    /// Appends the extension trailer (a count of 0 when there are none).
    ///
    /// - Parameter writer: where the bytes go.
    /// - Complexity: O(b) in the extensions' bytes.
    func encodeExtensions(to writer: inout BinaryWriter) {
        writer.write(UInt32(extensions.count))
        for item in extensions {
            writer.write(item.tag)
            switch item {
            case .action(let action):
                var body = BinaryWriter(capacity: 64)
                Self.encode(action, to: &body)
                writer.write(UInt32(body.bytes.count))
                writer.write(raw: body.bytes)
            case .recurrence(let recurrence):
                var body = BinaryWriter(capacity: 64)
                Self.encode(recurrence, to: &body)
                writer.write(UInt32(body.bytes.count))
                writer.write(raw: body.bytes)
            case .heartbeat(let heartbeat):
                var body = BinaryWriter(capacity: 18)
                body.write(UInt8(1))
                body.write(heartbeat.beatCount)
                body.write(UInt8(heartbeat.lastBeatAt == nil ? 0 : 1))
                body.write(heartbeat.lastBeatAt?.timeIntervalSinceReferenceDate ?? 0)
                writer.write(UInt32(body.bytes.count))
                writer.write(raw: body.bytes)
            case .wake:
                writer.write(UInt32(1))
                writer.write(UInt8(1))
            case .seriesGroup(let group):
                var body = BinaryWriter(capacity: 40 + 8 * group.durations.count)
                body.write(UInt8(1))
                body.write(UInt8(0))
                body.write(UInt32(group.durations.count))
                for seconds in group.durations { body.write(seconds) }
                body.write(UInt8(SeriesGroup.Overlap.allCases.firstIndex(of: group.overlap) ?? 0))
                body.write(UInt8(group.run == nil ? 0 : 1))
                body.write(group.run ?? 0)
                body.write(UInt8(group.queued ? 1 : 0))
                body.write(group.runCount)
                body.write(group.skippedCount)
                writer.write(UInt32(body.bytes.count))
                writer.write(raw: body.bytes)
            case .seriesRun(let series):
                writer.write(UInt32(10))
                writer.write(UInt8(1))
                writer.write(UInt8(1))
                writer.write(series)
            case .alarm(let alarm):
                var body = BinaryWriter(capacity: 43)
                Self.encode(alarm, to: &body)
                writer.write(UInt32(body.bytes.count))
                writer.write(raw: body.bytes)
            case .unknown(_, let bytes):
                writer.write(UInt32(bytes.count))
                writer.write(raw: bytes)
            }
        }
    }

    /// Reads the extension trailer.
    ///
    /// - Parameter reader: positioned at the trailer; left after it.
    /// - Returns: the extensions, in stored order.
    /// - Throws: ``BinaryReader/Problem`` when the trailer is truncated, a length overruns the
    ///   record, or a known tag's bytes are damaged or not read to their end.
    /// - Complexity: O(b) in the extensions' bytes.
    static func decodeExtensions(from reader: inout BinaryReader) throws(BinaryReader.Problem) -> [TimerExtension] {
        let count = try reader.readCount("extension count", elementSize: extensionHeaderSize)
        var extensions: [TimerExtension] = []
        for _ in 0..<count {
            let tag = try reader.readUInt16("extension tag")
            let length = try reader.readCount("extension length", elementSize: 1)
            let end = reader.offset + length
            switch tag {
            case TimerExtension.actionTag:
                let action = try decodeAction(from: &reader)
                guard reader.offset == end else {
                    throw .invalid(
                        field: "action extension", offset: reader.offset,
                        reason: "\(end - reader.offset) bytes of its announced length unread")
                }
                extensions.append(.action(action))
            case TimerExtension.recurrenceTag:
                let recurrence = try decodeRecurrence(from: &reader)
                guard reader.offset == end else {
                    throw .invalid(
                        field: "recurrence extension", offset: reader.offset,
                        reason: "\(end - reader.offset) bytes of its announced length unread")
                }
                extensions.append(.recurrence(recurrence))
            case TimerExtension.heartbeatTag:
                let heartbeat = try decodeHeartbeat(from: &reader)
                guard reader.offset == end else {
                    throw .invalid(
                        field: "heartbeat extension", offset: reader.offset,
                        reason: "\(end - reader.offset) bytes of its announced length unread")
                }
                extensions.append(.heartbeat(heartbeat))
            case TimerExtension.wakeTag:
                let versionOffset = reader.offset
                let version = try reader.readUInt8("wake version")
                guard version == 1 else {
                    throw .invalid(field: "wake version", offset: versionOffset, reason: "unknown version \(version)")
                }
                guard reader.offset == end else {
                    throw .invalid(
                        field: "wake extension", offset: reader.offset,
                        reason: "\(end - reader.offset) bytes of its announced length unread")
                }
                extensions.append(.wake)
            case TimerExtension.seriesTag:
                let item = try decodeSeries(from: &reader)
                guard reader.offset == end else {
                    throw .invalid(
                        field: "series extension", offset: reader.offset,
                        reason: "\(end - reader.offset) bytes of its announced length unread")
                }
                extensions.append(item)
            case TimerExtension.alarmTag:
                let alarm = try decodeAlarm(from: &reader)
                guard reader.offset == end else {
                    throw .invalid(
                        field: "alarm extension", offset: reader.offset,
                        reason: "\(end - reader.offset) bytes of its announced length unread")
                }
                extensions.append(.alarm(alarm))
            default:
                extensions.append(.unknown(tag: tag, bytes: try reader.readBytes(length, "extension \(tag)")))
            }
        }
        return extensions
    }

    /// Reads tag 5 (the layout in the table above).
    private static func decodeSeries(from reader: inout BinaryReader) throws(BinaryReader.Problem) -> TimerExtension {
        let versionOffset = reader.offset
        let version = try reader.readUInt8("series version")
        guard version == 1 else {
            throw .invalid(field: "series version", offset: versionOffset, reason: "unknown version \(version)")
        }
        let roleOffset = reader.offset
        switch try reader.readUInt8("series role") {
        case 0:
            let countOffset = reader.offset
            let count = try reader.readCount("series durations", elementSize: 8)
            guard (1...TimerEngine.maximumGroupSize).contains(count) else {
                throw .invalid(
                    field: "series durations", offset: countOffset,
                    reason: "\(count) steps, not 1 to \(TimerEngine.maximumGroupSize)")
            }
            var durations: [Double] = []
            durations.reserveCapacity(count)
            for _ in 0..<count {
                let offset = reader.offset
                let seconds = try reader.readFiniteDouble("series duration")
                guard seconds > 0 else {
                    throw .invalid(field: "series duration", offset: offset, reason: "\(seconds), not > 0")
                }
                durations.append(seconds)
            }
            let overlapOffset = reader.offset
            let overlapByte = Int(try reader.readUInt8("series overlap"))
            guard SeriesGroup.Overlap.allCases.indices.contains(overlapByte) else {
                throw .invalid(field: "series overlap", offset: overlapOffset, reason: "unknown overlap \(overlapByte)")
            }
            var group = SeriesGroup(durations: durations, overlap: SeriesGroup.Overlap.allCases[overlapByte])
            let hasRun = try flag(from: &reader, "series run presence")
            let run = try reader.readUInt64("series run")
            group.run = hasRun ? run : nil
            group.queued = try flag(from: &reader, "series flags")
            group.runCount = try reader.readUInt64("series run count")
            group.skippedCount = try reader.readUInt64("series skipped count")
            return .seriesGroup(group)
        case 1:
            return .seriesRun(series: try reader.readUInt64("series id"))
        case let other:
            throw .invalid(field: "series role", offset: roleOffset, reason: "unknown role \(other)")
        }
    }

    private static func encode(_ recurrence: TimerRecurrence, to writer: inout BinaryWriter) {
        writer.write(UInt8(1))
        switch recurrence.rule {
        case .calendar(let expression, let zone, let follows):
            writer.write(UInt8(0))
            writer.write(expression)
            writer.write(zone)
            writer.write(UInt8(follows ? 1 : 0))
        case .every(let seconds):
            writer.write(UInt8(1))
            writer.write(seconds)
        }
        writer.write(UInt8(recurrence.skipMissed ? 1 : 0))
        writer.write(recurrence.randomizedDelay)
        for date in [recurrence.nextElapse, recurrence.lastElapse] {
            writer.write(UInt8(date == nil ? 0 : 1))
            writer.write(date?.timeIntervalSinceReferenceDate ?? 0)
        }
        writer.write(recurrence.elapseCount)
        writer.write(recurrence.lastMissed)
        writer.write(recurrence.pendingMissed)
    }

    private static func decodeRecurrence(from reader: inout BinaryReader) throws(BinaryReader.Problem)
        -> TimerRecurrence
    {
        let versionOffset = reader.offset
        let version = try reader.readUInt8("recurrence version")
        guard version == 1 else {
            throw .invalid(field: "recurrence version", offset: versionOffset, reason: "unknown version \(version)")
        }
        let kindOffset = reader.offset
        let rule: TimerRecurrence.Rule
        switch try reader.readUInt8("recurrence kind") {
        case 0:
            let expression = try reader.readString("recurrence expression")
            let zone = try reader.readString("recurrence zone")
            let follows = try flag(from: &reader, "recurrence zone flags")
            rule = .calendar(expression: expression, zone: zone, followsSystemZone: follows)
        case 1:
            let secondsOffset = reader.offset
            let seconds = try reader.readFiniteDouble("recurrence period")
            guard seconds > 0 else {
                throw .invalid(field: "recurrence period", offset: secondsOffset, reason: "\(seconds), not > 0")
            }
            rule = .every(seconds: seconds)
        case let other:
            throw .invalid(field: "recurrence kind", offset: kindOffset, reason: "unknown kind \(other)")
        }
        var recurrence = TimerRecurrence(rule: rule)
        recurrence.skipMissed = try flag(from: &reader, "recurrence flags")
        let delayOffset = reader.offset
        recurrence.randomizedDelay = try reader.readFiniteDouble("recurrence randomized delay")
        guard recurrence.randomizedDelay >= 0 else {
            throw .invalid(field: "recurrence randomized delay", offset: delayOffset, reason: "negative")
        }
        recurrence.nextElapse = try optionalDate(from: &reader, "recurrence next elapse")
        recurrence.lastElapse = try optionalDate(from: &reader, "recurrence last elapse")
        recurrence.elapseCount = try reader.readUInt64("recurrence elapse count")
        recurrence.lastMissed = try reader.readUInt32("recurrence last missed")
        recurrence.pendingMissed = try reader.readUInt32("recurrence pending missed")
        return recurrence
    }

    private static func decodeHeartbeat(from reader: inout BinaryReader) throws(BinaryReader.Problem)
        -> TimerHeartbeat
    {
        let versionOffset = reader.offset
        let version = try reader.readUInt8("heartbeat version")
        guard version == 1 else {
            throw .invalid(field: "heartbeat version", offset: versionOffset, reason: "unknown version \(version)")
        }
        let count = try reader.readUInt64("heartbeat beat count")
        return TimerHeartbeat(beatCount: count, lastBeatAt: try optionalDate(from: &reader, "heartbeat last beat"))
    }

    private enum AlarmFlag {
        static let rings: UInt8 = 1
        static let warns: UInt8 = 2
        static let warned: UInt8 = 4
        static let outcome: UInt8 = 8
        static let warnsEachStep: UInt8 = 16
        static let all: UInt8 = 15
        static let allVersion2: UInt8 = 31
    }

    private static let alarmOutcomes: [TimerAlarm.Outcome] = [.acknowledged, .unanswered]

    private static func encode(_ alarm: TimerAlarm, to writer: inout BinaryWriter) {
        writer.write(UInt8(alarm.warnsEachStep ? 2 : 1))
        var flags: UInt8 = alarm.warnsEachStep ? AlarmFlag.warnsEachStep : 0
        if alarm.ring != nil { flags |= AlarmFlag.rings }
        if alarm.warning != nil { flags |= AlarmFlag.warns }
        if alarm.isWarned { flags |= AlarmFlag.warned }
        if alarm.outcome != nil { flags |= AlarmFlag.outcome }
        writer.write(flags)
        writer.write(alarm.ring?.interval ?? 0)
        writer.write(alarm.ring?.limit ?? 0)
        writer.write(alarm.warning ?? 0)
        writer.write(alarm.ringCount)
        writer.write(alarm.snoozeCount)
        writer.write(alarm.snoozedNanoseconds)
        writer.write(UInt8(alarm.outcome.flatMap { alarmOutcomes.firstIndex(of: $0) } ?? 0))
        if alarm.warnsEachStep { writer.write(alarm.warnedSteps) }
    }

    private static func decodeAlarm(from reader: inout BinaryReader) throws(BinaryReader.Problem) -> TimerAlarm {
        let versionOffset = reader.offset
        let version = try reader.readUInt8("alarm version")
        guard version == 1 || version == 2 else {
            throw .invalid(field: "alarm version", offset: versionOffset, reason: "unknown version \(version)")
        }
        let flagsOffset = reader.offset
        let flags = try reader.readUInt8("alarm flags")
        let known = version == 2 ? AlarmFlag.allVersion2 : AlarmFlag.all
        guard flags & ~known == 0 else {
            throw .invalid(field: "alarm flags", offset: flagsOffset, reason: "unknown flag bits \(flags & ~known)")
        }
        let interval = try seconds(
            from: &reader, "alarm ring interval", upTo: 86_400, present: flags & AlarmFlag.rings != 0)
        let limit = try seconds(
            from: &reader, "alarm ring limit", upTo: 31_622_400, present: flags & AlarmFlag.rings != 0)
        let warning = try seconds(
            from: &reader, "alarm warning", upTo: 31_622_400, present: flags & AlarmFlag.warns != 0)
        let ringCount = try reader.readUInt32("alarm ring count")
        let snoozeCount = try reader.readUInt32("alarm snooze count")
        let snoozedOffset = reader.offset
        let snoozed = try reader.readInt64("alarm snoozed nanoseconds")
        guard snoozed >= 0 else {
            throw .invalid(field: "alarm snoozed nanoseconds", offset: snoozedOffset, reason: "negative")
        }
        let outcome = try code(from: &reader, "alarm outcome", in: alarmOutcomes)
        let warnedSteps = version == 2 ? try reader.readUInt32("alarm warned steps") : 0
        return TimerAlarm(
            ring: interval.map { TimerAlarm.Ring(interval: $0, limit: limit ?? $0) }, warning: warning,
            isWarned: flags & AlarmFlag.warned != 0, ringCount: ringCount, snoozeCount: snoozeCount,
            snoozedNanoseconds: snoozed, outcome: flags & AlarmFlag.outcome != 0 ? outcome : nil,
            warnsEachStep: flags & AlarmFlag.warnsEachStep != 0, warnedSteps: warnedSteps)
    }

    /// Seconds of an alarm field: > 0 and ≤ `maximum` when `present`, else read and dropped.
    private static func seconds(
        from reader: inout BinaryReader, _ field: String, upTo maximum: Double, present: Bool
    ) throws(BinaryReader.Problem) -> Double? {
        let offset = reader.offset
        let value = try reader.readFiniteDouble(field)
        guard present else { return nil }
        guard value > 0, value <= maximum else {
            throw .invalid(field: field, offset: offset, reason: "\(value), not > 0 and ≤ \(Int(maximum))")
        }
        return value
    }

    private static func flag(from reader: inout BinaryReader, _ field: String) throws(BinaryReader.Problem) -> Bool {
        let offset = reader.offset
        let value = try reader.readUInt8(field)
        guard value <= 1 else { throw .invalid(field: field, offset: offset, reason: "\(value), not 0 or 1") }
        return value == 1
    }

    private static func optionalDate(from reader: inout BinaryReader, _ field: String) throws(BinaryReader.Problem)
        -> Date?
    {
        let present = try flag(from: &reader, field + " presence")
        let seconds = try reader.readFiniteDouble(field)
        return present ? Date(timeIntervalSinceReferenceDate: seconds) : nil
    }

    private enum ActionFlag {
        static let command: UInt8 = 1
        static let notify: UInt8 = 2
        static let sound: UInt8 = 4
        static let all: UInt8 = 7
    }

    private static let kinds: [TimerAction.Kind] = [.exec, .notify, .sound]
    private static let triggers: [TimerAction.Trigger] = [.finished, .missed, .elapsed, .ringing, .warning]

    private static func encode(_ action: TimerAction, to writer: inout BinaryWriter) {
        writer.write(
            (action.command == nil ? 0 : ActionFlag.command) | (action.notify ? ActionFlag.notify : 0)
                | (action.sound == nil ? 0 : ActionFlag.sound))
        if let command = action.command { writer.write(command) }
        if let sound = action.sound { writer.write(sound) }
        writer.write(action.workingDirectory)
        writer.write(UInt32(action.environment.count))
        for variable in action.environment {
            writer.write(variable.name)
            writer.write(variable.value)
        }
        writer.write(UInt32(action.runs.count))
        for run in action.runs {
            writer.write(UInt8(kinds.firstIndex(of: run.kind) ?? 0))
            writer.write(UInt8(triggers.firstIndex(of: run.trigger) ?? 0))
            writer.write(run.startedAt.timeIntervalSinceReferenceDate)
            let (code, value): (UInt8, Int64)
            switch run.outcome {
            case .running: (code, value) = (0, 0)
            case .exited(let status): (code, value) = (1, Int64(status))
            case .signalled(let signal): (code, value) = (2, Int64(signal))
            case .timedOut: (code, value) = (3, 0)
            case .failedToStart(let error): (code, value) = (4, Int64(error))
            case .interrupted: (code, value) = (5, 0)
            }
            writer.write(code)
            writer.write(value)
            writer.write(UInt8(run.endedAt == nil ? 0 : 1))
            writer.write(run.endedAt?.timeIntervalSinceReferenceDate ?? 0)
        }
    }

    private static func decodeAction(from reader: inout BinaryReader) throws(BinaryReader.Problem) -> TimerAction {
        let flagsOffset = reader.offset
        let flags = try reader.readUInt8("action flags")
        guard flags & ~ActionFlag.all == 0 else {
            throw .invalid(
                field: "action flags", offset: flagsOffset, reason: "unknown flag bits \(flags & ~ActionFlag.all)")
        }
        let command = flags & ActionFlag.command != 0 ? try reader.readString("action command") : nil
        let sound = flags & ActionFlag.sound != 0 ? try reader.readString("action sound") : nil
        let directory = try reader.readString("action working directory")
        let variableCount = try reader.readCount("action environment count", elementSize: 8)
        var environment: [TimerAction.Variable] = []
        for _ in 0..<variableCount {
            let name = try reader.readString("action variable name")
            environment.append(TimerAction.Variable(name, try reader.readString("action variable value")))
        }
        let runCount = try reader.readCount("action run count", elementSize: 28)
        var runs: [ActionRun] = []
        for _ in 0..<runCount {
            let kind = try code(from: &reader, "action run kind", in: kinds)
            let trigger = try code(from: &reader, "action run trigger", in: triggers)
            let startedAt = try reader.readFiniteDouble("action run startedAt")
            let outcomeOffset = reader.offset
            let outcomeCode = try reader.readUInt8("action run outcome")
            let value = try reader.readInt64("action run outcome value")
            guard let value32 = Int32(exactly: value) else {
                throw .invalid(
                    field: "action run outcome value", offset: outcomeOffset + 1, reason: "\(value) out of range")
            }
            let outcome: ActionRun.Outcome
            switch outcomeCode {
            case 0: outcome = .running
            case 1: outcome = .exited(value32)
            case 2: outcome = .signalled(value32)
            case 3: outcome = .timedOut
            case 4: outcome = .failedToStart(value32)
            case 5: outcome = .interrupted
            default:
                throw .invalid(
                    field: "action run outcome", offset: outcomeOffset, reason: "unknown outcome code \(outcomeCode)")
            }
            let presenceOffset = reader.offset
            let hasEnded = try reader.readUInt8("action run endedAt presence")
            let endedAt = try reader.readFiniteDouble("action run endedAt")
            guard hasEnded <= 1 else {
                throw .invalid(
                    field: "action run endedAt presence", offset: presenceOffset, reason: "\(hasEnded), not 0 or 1")
            }
            runs.append(
                ActionRun(
                    kind: kind, trigger: trigger, startedAt: Date(timeIntervalSinceReferenceDate: startedAt),
                    endedAt: hasEnded == 1 ? Date(timeIntervalSinceReferenceDate: endedAt) : nil, outcome: outcome))
        }
        return TimerAction(
            command: command, notify: flags & ActionFlag.notify != 0, workingDirectory: directory,
            environment: environment, runs: runs, sound: sound)
    }

    private static func code<Value>(from reader: inout BinaryReader, _ field: String, in values: [Value])
        throws(BinaryReader.Problem) -> Value
    {
        let offset = reader.offset
        let code = Int(try reader.readUInt8(field))
        guard code < values.count else { throw .invalid(field: field, offset: offset, reason: "unknown code \(code)") }
        return values[code]
    }
}
