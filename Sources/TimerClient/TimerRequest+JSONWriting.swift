import TimerProtocol

// The one writer of request lines: every request timerctl and TimerClient send is written here, with
// TimerProtocol's JSONBytesWriter, its params' keys in sorted order and absent options left out.

extension TimerRequest {
    /// The request as one line: `{"jsonrpc":"2.0","id":N,"method":"…","params":{…}}` and a newline.
    ///
    /// - Parameter id: the request's id, echoed by the reply.
    /// - Returns: the line's bytes, newline included.
    /// - Throws: ``TimerClientError/invalidRequest(_:)`` when a number is NaN or infinite.
    package func line(id: Int) throws(TimerClientError) -> [UInt8] {
        var writer = JSONBytesWriter(capacity: 256)
        writer.raw(#"{"jsonrpc":"2.0","id":"#)
        writer.integer(Int64(id))
        writer.raw(#","method":"#)
        writer.string(method.rawValue)
        writer.raw(#","params":"#)
        do {
            try writeParams(to: &writer)
        } catch {
            throw .invalidRequest("a number in the params of \(method.rawValue) is not finite")
        }
        writer.raw("}\n")
        return writer.bytes
    }

    /// Writes the `params` object.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite number.
    package func writeParams(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        var object = ObjectWriter(writer: writer)
        defer { writer = object.finish() }
        switch self {
        case .start(let durations, let name, let action, let isHeartbeat, let loops, let wake, let alarm):
            if let action { object.member("action") { action.write(to: &$0) } }
            try object.member("durations") { writer throws(JSONBytesWriter.NonFiniteNumber) in
                writer.raw("[")
                for (index, duration) in durations.enumerated() {
                    if index > 0 { writer.raw(",") }
                    try writer.number(duration)
                }
                writer.raw("]")
            }
            if isHeartbeat { object.member("heartbeat") { $0.bool(true) } }
            if let loops { object.member("loops") { $0.integer(Int64(loops)) } }
            if let name { object.member("name") { $0.string(name) } }
            if alarm?.rings == true { object.member("ring") { $0.bool(true) } }
            Self.writeSound(alarm, to: &object)
            if wake { object.member("wake") { $0.bool(true) } }
            try Self.writeWarning(alarm, to: &object)
        case .startAt(let at, let timeZone, let minuteInterval, let name, let action, let wake, let alarm):
            if let action { object.member("action") { action.write(to: &$0) } }
            object.member("at") { $0.string(at) }
            if let minuteInterval { object.member("minuteInterval") { $0.integer(Int64(minuteInterval)) } }
            if let name { object.member("name") { $0.string(name) } }
            if alarm?.rings == true { object.member("ring") { $0.bool(true) } }
            Self.writeSound(alarm, to: &object)
            if let timeZone { object.member("timeZone") { $0.string(timeZone) } }
            if wake { object.member("wake") { $0.bool(true) } }
            try Self.writeWarning(alarm, to: &object)
        case .startRecurring(let start):
            if let action = start.action { object.member("action") { action.write(to: &$0) } }
            if let durations = start.durations {
                try object.member("durations") { writer throws(JSONBytesWriter.NonFiniteNumber) in
                    writer.raw("[")
                    for (index, duration) in durations.enumerated() {
                        if index > 0 { writer.raw(",") }
                        try writer.number(duration)
                    }
                    writer.raw("]")
                }
            }
            if let every = start.every {
                try object.member("every") { writer throws(JSONBytesWriter.NonFiniteNumber) in try writer.number(every)
                }
            }
            if let from = start.from { object.member("from") { $0.string(from) } }
            if let loops = start.loops { object.member("loops") { $0.integer(Int64(loops)) } }
            if let name = start.name { object.member("name") { $0.string(name) } }
            if let on = start.on { object.member("on") { $0.string(on) } }
            if let overlap = start.overlap { object.member("overlap") { $0.string(overlap) } }
            if let delay = start.randomizedDelay {
                try object.member("randomizedDelay") { writer throws(JSONBytesWriter.NonFiniteNumber) in
                    try writer.number(delay)
                }
            }
            if start.skipMissed { object.member("skipMissed") { $0.bool(true) } }
            if let timeZone = start.timeZone { object.member("timeZone") { $0.string(timeZone) } }
            if start.wake { object.member("wake") { $0.bool(true) } }
        case .stop(let timer), .pause(let timer), .resume(let timer), .status(let timer), .wait(let timer),
            .restart(let timer), .beat(let timer), .skip(let timer), .runs(let timer), .ack(let timer):
            object.member("timer") { $0.string(timer) }
        case .list(let includingEnded):
            object.member("all") { $0.bool(includingEnded) }
        case .extend(let timer, let seconds):
            try object.member("by") { writer throws(JSONBytesWriter.NonFiniteNumber) in try writer.number(seconds) }
            object.member("timer") { $0.string(timer) }
        case .snooze(let timer, let seconds):
            if let seconds {
                try object.member("for") { writer throws(JSONBytesWriter.NonFiniteNumber) in try writer.number(seconds)
                }
            }
            object.member("timer") { $0.string(timer) }
        case .rename(let timer, let name):
            object.member("name") { $0.string(name) }
            object.member("timer") { $0.string(timer) }
        case .remove(let timer):
            if let timer {
                object.member("timer") { $0.string(timer) }
            } else {
                object.member("allEnded") { $0.bool(true) }
            }
        case .subscribe(let timer, let kinds, let afterSeq):
            if let afterSeq { object.member("afterSeq") { $0.integer(Int64(clamping: afterSeq)) } }
            if let kinds {
                object.member("events") { writer in
                    writer.raw("[")
                    for (index, kind) in kinds.enumerated() {
                        if index > 0 { writer.raw(",") }
                        writer.string(kind)
                    }
                    writer.raw("]")
                }
            }
            if let timer { object.member("timer") { $0.string(timer) } }
        case .unsubscribe(let subscription):
            object.member("subscription") { $0.integer(Int64(clamping: subscription)) }
        case .ping, .reload, .stats, .metrics:
            break
        }
    }
}

extension TimerRequest {
    /// Writes `"warn": seconds` of an alarm that warns, then `"warnEach": true` (the last keys of a
    /// start's params).
    private static func writeWarning(_ alarm: AlarmRequest?, to object: inout ObjectWriter)
        throws(JSONBytesWriter.NonFiniteNumber)
    {
        if let warning = alarm?.warning {
            try object.member("warn") { writer throws(JSONBytesWriter.NonFiniteNumber) in try writer.number(warning) }
        }
        if alarm?.warnsEachStep == true { object.member("warnEach") { $0.bool(true) } }
    }

    /// Writes `"sound": true` or `"sound": "/path"` of an alarm with a sound.
    private static func writeSound(_ alarm: AlarmRequest?, to object: inout ObjectWriter) {
        switch alarm?.sound {
        case nil: return
        case .standard?: object.member("sound") { $0.bool(true) }
        case .file(let path)?: object.member("sound") { $0.string(path) }
        }
    }
}

extension TimerAction {
    /// Writes `{"cwd":…,"env":{…},"exec"?:…,"notify"?:true}`.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw(#"{"cwd":"#)
        writer.string(workingDirectory)
        writer.raw(#","env":{"#)
        for (index, variable) in environment.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(variable.name)
            writer.raw(":")
            writer.string(variable.value)
        }
        writer.raw("}")
        if let command {
            writer.raw(#","exec":"#)
            writer.string(command)
        }
        if notify { writer.raw(#","notify":true"#) }
        writer.raw("}")
    }
}

/// Writes a JSON object member by member, the commas between them.
private struct ObjectWriter {
    private var writer: JSONBytesWriter
    private var isFirst = true

    /// Starts the object (`{`) on `writer`.
    init(writer: JSONBytesWriter) {
        self.writer = writer
        self.writer.raw("{")
    }

    /// Writes `"key":` and then the value `body` writes.
    mutating func member<E: Error>(_ key: StaticString, _ body: (inout JSONBytesWriter) throws(E) -> Void) throws(E) {
        if !isFirst { writer.raw(",") }
        isFirst = false
        writer.key(key)
        try body(&writer)
    }

    /// Closes the object (`}`) and hands the writer back.
    mutating func finish() -> JSONBytesWriter {
        writer.raw("}")
        return writer
    }
}
