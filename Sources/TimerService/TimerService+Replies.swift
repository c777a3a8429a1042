import Countdown
import TimerModel
import TimerProtocol

// Reply lines, written with the product's one JSON writer (`JSONBytesWriter`), byte for byte as
// `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` wrote them before.
extension TimerService {
    /// The error reply for a line longer than ``maximumLineBytes``.
    public static let tooLongMessage = "request line exceeds 65536 bytes; send one JSON object per line, at most 64 KiB"

    /// An error reply line: `{"error":{"code":…,"message":…},"id":…,"jsonrpc":"2.0"}`.
    ///
    /// - Parameters:
    ///   - id: the request's id, or `.null` when it could not be read.
    ///   - error: the error object.
    /// - Returns: the JSON line, without the newline.
    public static func errorLine(id: RPCID, _ error: RPCError) -> [UInt8] {
        var writer = JSONBytesWriter(capacity: error.message.utf8.count + 64)
        writer.raw(#"{"error":"#)
        error.write(to: &writer)
        writer.raw(#","id":"#)
        id.write(to: &writer)
        writer.raw(#","jsonrpc":"2.0"}"#)
        return writer.bytes
    }

    package static func errorLine(id: RPCID, _ error: any Error) -> [UInt8] {
        if let error = error as? RPCError { return errorLine(id: id, error) }
        if let error = error as? CountdownError { return errorLine(id: id, RPCError(error)) }
        return errorLine(id: id, RPCError(.internalError, "internal error: \(error)"))
    }

    package static func resultLine(id: RPCID, resultJSON: [UInt8]) -> [UInt8] {
        var writer = JSONBytesWriter(capacity: resultJSON.count + 48)
        writer.raw(#"{"id":"#)
        id.write(to: &writer)
        writer.raw(#","jsonrpc":"2.0","result":"#)
        writer.bytes += resultJSON
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// A timer as the protocol sends it, its instants formatted through ``timestamps``.
    ///
    /// - Parameters:
    ///   - snapshot: the engine's values.
    ///   - resolvedAt: how a local `at` was resolved (only in the reply to `timer.start`).
    /// - Throws: `JSONBytesWriter.NonFiniteNumber` for a NaN or infinite figure (the engine makes none).
    mutating func json(_ snapshot: TimerSnapshot, resolvedAt: LocalTimeResolution? = nil) throws -> [UInt8] {
        var info = TimerInfo(snapshot, timestamps: &timestamps)
        info.resolvedAt = resolvedAt
        var writer = JSONBytesWriter()
        try info.write(to: &writer)
        return writer.bytes
    }

    /// The reply line to a request answered with one timer, `{"id":…,"jsonrpc":"2.0","result":{…}}`:
    /// the same bytes as ``resultLine(id:resultJSON:)`` of ``json(_:resolvedAt:)``, in one buffer.
    ///
    /// A plain timer (no children, no recurrence, no heartbeat, no wake mark, no alarm, no resolved local time: every
    /// `timer.start` with `durations` alone) is written straight from the snapshot
    /// (``writePlain(_:to:)``), without a `TimerInfo` and its strings; any other goes through
    /// `TimerInfo.write`. Building the reply
    /// twice (the result, then the line around it) and the `TimerInfo` were a fifth of a pipelined
    /// start in callgrind. `ReplyLineTests` compare both paths on many snapshots.
    ///
    /// - Parameters:
    ///   - id: the request's id (`.null` for a notification, whose line is then dropped).
    ///   - snapshot: the engine's values.
    ///   - resolvedAt: how a local `at` was resolved (only in the reply to `timer.start`).
    /// - Returns: the line, without the newline.
    /// - Throws: `JSONBytesWriter.NonFiniteNumber` for a NaN or infinite figure (the engine makes none).
    mutating func resultLine(id: RPCID, snapshot: TimerSnapshot, resolvedAt: LocalTimeResolution? = nil) throws
        -> [UInt8]
    {
        var writer = JSONBytesWriter(capacity: 512)
        writer.raw(#"{"id":"#)
        id.write(to: &writer)
        writer.raw(#","jsonrpc":"2.0","result":"#)
        if snapshot.children.isEmpty, snapshot.recurrence == nil, snapshot.heartbeat == nil, !snapshot.wake,
            snapshot.alarm == nil, resolvedAt == nil
        {
            try writePlain(snapshot, to: &writer)
        } else {
            var info = TimerInfo(snapshot, timestamps: &timestamps)
            info.resolvedAt = resolvedAt
            try info.write(to: &writer)
        }
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// Writes what `TimerInfo(snapshot).write(to:)` writes for a timer without children, recurrence,
    /// heartbeat, wake mark or resolved local time, member for member in its sorted order (`createdAt`,
    /// `duration`, `elapsed`, `endedAt`, `endsAt`, `id`, `missed`, `name`, `progress`, `remaining`,
    /// `startedAt`, `state`; `TimerInfo(_:timestamps:)` leaves `currentChild`, `children`,
    /// `heartbeat`, `recurrence` and `wake` out for such a timer, and `missed` unless it is true).
    ///
    /// - Throws: `JSONBytesWriter.NonFiniteNumber` for a NaN or infinite figure.
    private mutating func writePlain(_ snapshot: TimerSnapshot, to writer: inout JSONBytesWriter)
        throws(JSONBytesWriter.NonFiniteNumber)
    {
        writer.raw(#"{"createdAt":"#)
        writer.bytes.append(contentsOf: timestamps.quoted(from: snapshot.createdAt))
        writer.raw(#","duration":"#)
        try writer.number(snapshot.duration)
        writer.raw(#","elapsed":"#)
        try writer.number(snapshot.elapsed)
        if let endedAt = snapshot.endedAt {
            writer.raw(#","endedAt":"#)
            writer.bytes.append(contentsOf: timestamps.quoted(from: endedAt))
        }
        if let endsAt = snapshot.endsAt {
            writer.raw(#","endsAt":"#)
            writer.bytes.append(contentsOf: timestamps.quoted(from: endsAt))
        }
        // `String(snapshot.id)` as a JSON string: decimal digits need no escaping.
        writer.raw(#","id":""#)
        if snapshot.id <= UInt64(Int64.max) {
            writer.integer(Int64(snapshot.id))
        } else {
            writer.bytes.append(contentsOf: String(snapshot.id).utf8)
        }
        writer.bytes.append(UInt8(ascii: "\""))
        if snapshot.missed { writer.raw(#","missed":true"#) }
        writer.raw(#","name":"#)
        if let name = snapshot.name { writer.string(name) } else { writer.null() }
        writer.raw(#","progress":"#)
        try snapshot.progress.write(to: &writer)
        writer.raw(#","remaining":"#)
        try writer.number(snapshot.remaining)
        writer.raw(#","startedAt":"#)
        writer.bytes.append(contentsOf: timestamps.quoted(from: snapshot.startedAt))
        // The state's raw value as a literal (plain ASCII words, nothing to escape).
        switch snapshot.state {
        case .running: writer.raw(#","state":"running"}"#)
        case .paused: writer.raw(#","state":"paused"}"#)
        case .finished: writer.raw(#","state":"finished"}"#)
        case .stopped: writer.raw(#","state":"stopped"}"#)
        case .pending: writer.raw(#","state":"pending"}"#)
        case .ringing: writer.raw(#","state":"ringing"}"#)
        }
    }

    /// Timers as the protocol sends an array of them.
    ///
    /// - Parameter snapshots: the engine's values.
    /// - Throws: `JSONBytesWriter.NonFiniteNumber` for a NaN or infinite figure (the engine makes none).
    /// - Complexity: O(n) in the number of timers.
    mutating func json(_ snapshots: [TimerSnapshot]) throws -> [UInt8] {
        var writer = JSONBytesWriter(capacity: 512 * snapshots.count + 2)
        writer.bytes.append(UInt8(ascii: "["))
        for (index, snapshot) in snapshots.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            try TimerInfo(snapshot, timestamps: &timestamps).write(to: &writer)
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return writer.bytes
    }

    /// The reply to a `daemon.reload` once it is done.
    ///
    /// - Parameters:
    ///   - id: the request's id (`nil` for a notification: no reply).
    ///   - result: what the reload read, or the error (`RPCErrorCode.reloadFailed`,
    ///     `RPCErrorCode.permissionDenied`).
    /// - Returns: the reply line without the newline, or `nil` for a notification.
    public static func reloadReply(id: RPCID?, _ result: Result<ReloadResult, RPCError>) -> [UInt8]? {
        guard let id else { return nil }
        switch result {
        case .success(let value):
            var writer = JSONBytesWriter(capacity: 128)
            value.write(to: &writer)
            return resultLine(id: id, resultJSON: writer.bytes)
        case .failure(let error):
            return errorLine(id: id, error)
        }
    }

    /// The reply to a `daemon.metrics`.
    ///
    /// - Parameters:
    ///   - id: the request's id (`nil` for a notification: no reply).
    ///   - result: the rendered metrics, or the error (`RPCErrorCode.permissionDenied`).
    /// - Returns: the reply line without the newline, or `nil` for a notification.
    public static func metricsReply(id: RPCID?, _ result: Result<MetricsResult, RPCError>) -> [UInt8]? {
        guard let id else { return nil }
        switch result {
        case .success(let value):
            var writer = JSONBytesWriter(capacity: value.text.utf8.count + 96)
            value.write(to: &writer)
            return resultLine(id: id, resultJSON: writer.bytes)
        case .failure(let error):
            return errorLine(id: id, error)
        }
    }
}
