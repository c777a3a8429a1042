import TimerModel

extension TimerInfo {
    /// Writes the timer as `JSONEncoder` (sorted keys, slashes unescaped) encodes it, byte for byte.
    ///
    /// - Returns: `false`, having written nothing usable, for what is left to `JSONEncoder`: a
    ///   ``resolvedAt`` (only in replies to `timer.start` with a local time).
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) -> Bool {
        guard resolvedAt == nil else { return false }
        // Keys in sorted order: children, createdAt, currentChild, duration, elapsed, endedAt,
        // endsAt, id, missed, name, progress, remaining, startedAt, state.
        writer.bytes.append(UInt8(ascii: "{"))
        if let children {
            writer.key("children")
            writer.bytes.append(UInt8(ascii: "["))
            for (index, child) in children.enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                guard try child.write(to: &writer) else { return false }
            }
            writer.raw("],")
        }
        if let createdAt { field("createdAt", createdAt, &writer) }
        if let currentChild {
            writer.key("currentChild")
            writer.integer(Int64(currentChild))
            writer.bytes.append(UInt8(ascii: ","))
        }
        writer.key("duration")
        try writer.number(duration)
        writer.raw(",")
        writer.key("elapsed")
        try writer.number(elapsed)
        writer.raw(",")
        if let endedAt { field("endedAt", endedAt, &writer) }
        if let endsAt { field("endsAt", endsAt, &writer) }
        field("id", id, &writer)
        if let missed {
            writer.key("missed")
            writer.bool(missed)
            writer.bytes.append(UInt8(ascii: ","))
        }
        writer.key("name")
        if let name { writer.string(name) } else { writer.null() }
        writer.raw(",")
        writer.key("progress")
        try progress.write(to: &writer)
        writer.raw(",")
        writer.key("remaining")
        try writer.number(remaining)
        writer.raw(",")
        if let startedAt { field("startedAt", startedAt, &writer) }
        writer.key("state")
        writer.string(state.rawValue)
        writer.bytes.append(UInt8(ascii: "}"))
        return true
    }

    private func field(_ key: StaticString, _ value: String, _ writer: inout JSONBytesWriter) {
        writer.key(key)
        writer.string(value)
        writer.bytes.append(UInt8(ascii: ","))
    }
}

extension ProgressSnapshot {
    /// Writes the snapshot as `JSONEncoder` with sorted keys does.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        writer.raw(#"{"completedUnitCount":"#)
        writer.integer(completedUnitCount)
        writer.raw(#","fractionCompleted":"#)
        try writer.number(fractionCompleted)
        writer.raw(#","isCancelled":"#)
        writer.bool(isCancelled)
        writer.raw(#","isFinished":"#)
        writer.bool(isFinished)
        writer.raw(#","isIndeterminate":"#)
        writer.bool(isIndeterminate)
        writer.raw(#","isPaused":"#)
        writer.bool(isPaused)
        writer.raw(#","totalUnitCount":"#)
        writer.integer(totalUnitCount)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}
