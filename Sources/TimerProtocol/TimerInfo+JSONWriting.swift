import TimerModel

extension TimerInfo {
    /// Writes the timer as `JSONEncoder` (sorted keys, slashes unescaped) encodes it, byte for byte:
    /// the product's one JSON writer for timers (the daemon's replies and `timerctl --json`).
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        // Keys in sorted order: children, createdAt, currentChild, duration, elapsed, endedAt,
        // endsAt, id, missed, name, progress, recurrence, remaining, resolvedAt, startedAt, state.
        writer.bytes.append(UInt8(ascii: "{"))
        if let children {
            writer.key("children")
            writer.bytes.append(UInt8(ascii: "["))
            for (index, child) in children.enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                try child.write(to: &writer)
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
        if let recurrence {
            writer.key("recurrence")
            try recurrence.write(to: &writer)
            writer.raw(",")
        }
        writer.key("remaining")
        try writer.number(remaining)
        writer.raw(",")
        if let resolvedAt {
            writer.key("resolvedAt")
            resolvedAt.write(to: &writer)
            writer.raw(",")
        }
        if let startedAt { field("startedAt", startedAt, &writer) }
        writer.key("state")
        writer.string(state.rawValue)
        writer.bytes.append(UInt8(ascii: "}"))
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
