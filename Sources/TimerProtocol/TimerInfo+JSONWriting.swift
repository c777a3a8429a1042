import TimerModel

extension TimerInfo {
    /// Writes the timer as `JSONEncoder` (sorted keys, slashes unescaped) encodes it, byte for byte:
    /// the product's one JSON writer for timers (the daemon's replies and `timerctl --json`).
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        // Each key is written with its quotes and colon (and the comma before it) in one `raw`
        // append: four appends per key with `key(_:)` were 7 % of a pipelined start in callgrind
        // Keys in sorted order: alarm, children, createdAt, currentChild, duration, elapsed,
        // endedAt, endsAt, heartbeat, id, missed, name, progress, recurrence, remaining, resolvedAt, startedAt, state, wake, warning.
        writer.bytes.append(UInt8(ascii: "{"))
        if let alarm {
            writer.raw(#""alarm":"#)
            try alarm.write(to: &writer)
            writer.bytes.append(UInt8(ascii: ","))
        }
        if let children {
            writer.raw(#""children":"#)
            writer.bytes.append(UInt8(ascii: "["))
            for (index, child) in children.enumerated() {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                try child.write(to: &writer)
            }
            writer.raw("],")
        }
        if let createdAt { field(#""createdAt":"#, createdAt, &writer) }
        if let currentChild {
            writer.raw(#""currentChild":"#)
            writer.integer(Int64(currentChild))
            writer.bytes.append(UInt8(ascii: ","))
        }
        writer.raw(#""duration":"#)
        try writer.number(duration)
        writer.raw(#","elapsed":"#)
        try writer.number(elapsed)
        writer.raw(",")
        if let endedAt { field(#""endedAt":"#, endedAt, &writer) }
        if let endsAt { field(#""endsAt":"#, endsAt, &writer) }
        if let heartbeat {
            writer.raw(#""heartbeat":"#)
            heartbeat.write(to: &writer)
            writer.bytes.append(UInt8(ascii: ","))
        }
        field(#""id":"#, id, &writer)
        if let missed {
            writer.raw(#""missed":"#)
            writer.bool(missed)
            writer.bytes.append(UInt8(ascii: ","))
        }
        writer.raw(#""name":"#)
        if let name { writer.string(name) } else { writer.null() }
        writer.raw(#","progress":"#)
        try progress.write(to: &writer)
        writer.raw(",")
        if let recurrence {
            writer.raw(#""recurrence":"#)
            try recurrence.write(to: &writer)
            writer.raw(",")
        }
        writer.raw(#""remaining":"#)
        try writer.number(remaining)
        writer.raw(",")
        if let resolvedAt {
            writer.raw(#""resolvedAt":"#)
            resolvedAt.write(to: &writer)
            writer.raw(",")
        }
        if let startedAt { field(#""startedAt":"#, startedAt, &writer) }
        writer.raw(#""state":"#)
        writer.string(state.rawValue)
        if let wake { writer.raw(wake ? #","wake":true"# : #","wake":false"#) }
        if let warning {
            writer.raw(#","warning":"#)
            writer.string(warning)
        }
        writer.bytes.append(UInt8(ascii: "}"))
    }

    /// Writes `"name":"value",`; `key` is the member's name already quoted with its colon: one
    /// append per key instead of four.
    private func field(_ key: StaticString, _ value: String, _ writer: inout JSONBytesWriter) {
        writer.raw(key)
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
        // Each Boolean with its key in one append: the same text as key, then `bool`.
        writer.raw(isCancelled ? #","isCancelled":true"# : #","isCancelled":false"#)
        writer.raw(isFinished ? #","isFinished":true"# : #","isFinished":false"#)
        writer.raw(isIndeterminate ? #","isIndeterminate":true"# : #","isIndeterminate":false"#)
        writer.raw(isPaused ? #","isPaused":true"# : #","isPaused":false"#)
        writer.raw(#","totalUnitCount":"#)
        writer.integer(totalUnitCount)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}
