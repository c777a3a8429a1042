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
}
