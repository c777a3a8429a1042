// The protocol's result and error objects, written by hand as `JSONEncoder` with `.sortedKeys` and
// `.withoutEscapingSlashes` wrote them (keys in sorted order, absent optionals left out), so that
// the product has one JSON writer (``JSONBytesWriter``). Tests compare each with `JSONEncoder`.

extension RPCID {
    /// Writes the id as it came: an integral number without a fraction, a string, or `null`.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        switch self {
        case .number(let value) where value == value.rounded() && abs(value) < 9e15:
            writer.integer(Int64(value))
        case .number(let value):
            // Ids come from parsed JSON and are finite; `null` guards a value built by hand.
            if (try? writer.number(value)) == nil { writer.null() }
        case .largeInteger(let digits):
            // Only built from a parsed integer literal (`-?[0-9]+`), so the digits are valid JSON.
            writer.bytes.append(contentsOf: digits.utf8)
        case .string(let value):
            writer.string(value)
        case .null:
            writer.null()
        }
    }
}

extension RPCError {
    /// Writes `{"code":…,"message":…}`.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw(#"{"code":"#)
        writer.integer(Int64(code))
        writer.raw(#","message":"#)
        writer.string(message)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension PingResult {
    /// Writes `{"hostID":…,"pid":…,"protocolVersion":…,"store":…,"version":…}` (keys sorted;
    /// `hostID` and `store` left out when absent).
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.bytes.append(UInt8(ascii: "{"))
        if let hostID {
            writer.raw(#""hostID":"#)
            writer.string(hostID)
            writer.raw(",")
        }
        writer.raw(#""pid":"#)
        writer.integer(Int64(pid))
        writer.raw(#","protocolVersion":"#)
        writer.integer(Int64(protocolVersion))
        if let store {
            writer.raw(#","store":"#)
            writer.string(store)
        }
        writer.raw(#","version":"#)
        writer.string(version)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension ReloadResult {
    /// Writes `{"config":…,"found":…}`, `config` left out when there is none.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.bytes.append(UInt8(ascii: "{"))
        if let config {
            writer.key("config")
            writer.string(config)
            writer.bytes.append(UInt8(ascii: ","))
        }
        writer.key("found")
        writer.bool(found)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension StatsResult {
    /// Writes `{"catchUpTimers":…,"firedTimers":…,"latenessMicroseconds":{…},"liveTimers":…,"runningTimers":…,
    /// "store":{…}}`, `catchUpTimers` left out when `nil`, `latenessMicroseconds` before the first firing,
    /// `store` without a shared store.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        writer.raw("{")
        if let catchUpTimers {
            writer.raw(#""catchUpTimers":"#)
            writer.integer(Int64(catchUpTimers))
            writer.bytes.append(UInt8(ascii: ","))
        }
        writer.raw(#""firedTimers":"#)
        writer.integer(Int64(firedTimers))
        writer.bytes.append(UInt8(ascii: ","))
        if let latenessMicroseconds {
            writer.raw(#""latenessMicroseconds":{"count":"#)
            writer.integer(Int64(latenessMicroseconds.count))
            writer.raw(#","max":"#)
            try writer.number(latenessMicroseconds.max)
            writer.raw(#","p50":"#)
            try writer.number(latenessMicroseconds.p50)
            writer.raw(#","p99":"#)
            try writer.number(latenessMicroseconds.p99)
            writer.raw("},")
        }
        writer.raw(#""liveTimers":"#)
        writer.integer(Int64(liveTimers))
        writer.raw(#","runningTimers":"#)
        writer.integer(Int64(runningTimers))
        if let store {
            writer.raw(#","store":{"claims":"#)
            writer.integer(Int64(store.claims))
            writer.raw(#","claimsPerSecond":"#)
            try writer.number(store.claimsPerSecond)
            writer.raw(#","fencesLost":"#)
            writer.integer(Int64(store.fencesLost))
            writer.raw(#","leaseRescues":"#)
            writer.integer(Int64(store.leaseRescues))
            writer.raw(#","roundTripMicrosecondsP50":"#)
            try writer.number(store.roundTripMicrosecondsP50)
            writer.raw(#","roundTripMicrosecondsP99":"#)
            try writer.number(store.roundTripMicrosecondsP99)
            writer.bytes.append(UInt8(ascii: "}"))
        }
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension LocalTimeResolution {
    /// Writes `{"adjustment":…,"localTime":…,"timeZone":…}` (the instant is read back from `localTime`).
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw(#"{"adjustment":"#)
        writer.string(adjustment)
        writer.raw(#","localTime":"#)
        writer.string(localTime)
        writer.raw(#","timeZone":"#)
        writer.string(timeZone)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

/// A wire type the one JSON writer can write (what `timerctl --json` prints).
package protocol JSONWritable {
    /// Writes the value as `JSONEncoder` with sorted keys did.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber)
}

extension TimerInfo: JSONWritable {}
extension PingResult: JSONWritable {}
extension ReloadResult: JSONWritable {}
extension StatsResult: JSONWritable {}

extension Array: JSONWritable where Element: JSONWritable {
    /// Writes `[…]`, the elements separated by commas.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        writer.bytes.append(UInt8(ascii: "["))
        for (index, element) in enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            try element.write(to: &writer)
        }
        writer.bytes.append(UInt8(ascii: "]"))
    }
}
