import Glibc
import Synchronization
import TimerSystem

/// How timerd marks each line it writes to stderr: a syslog priority for the journal, else a time.
///
/// When systemd connects stderr to the journal it sets `JOURNAL_STREAM` to the stream's
/// `DEVICE:INODE` (decimal); a process whose fd 2 still has that device and inode may prefix each
/// line with `<N>`, a syslog(3) priority, which the journal strips and stores so that
/// `journalctl -p warning` finds warnings (sd-daemon(3), "Log levels"; systemd.exec(5),
/// `$JOURNAL_STREAM`). Anywhere else (a terminal, the `timerd.log` file of an autostarted daemon)
/// each line starts with an ISO 8601 UTC time with milliseconds, `2026-12-01T05:40:00.123Z`.
enum LogLine: Equatable, Sendable {
    /// stderr is the journal: `<3>` errors, `<4>` warnings, `<6>` information.
    case journal
    /// stderr is anything else: an ISO 8601 UTC time, a space, then the line.
    case timestamped

    /// The format for this process, decided once from `JOURNAL_STREAM` and `fstat(2)` of fd 2.
    static let current: LogLine = {
        var info = stat()
        guard fstat(2, &info) == 0 else { return .timestamped }
        let variable = getenv("JOURNAL_STREAM").map { String(cString: $0) }
        return detect(journalStream: variable, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }()

    /// Decides the format from `JOURNAL_STREAM` and the device and inode of stderr.
    ///
    /// - Parameters:
    ///   - journalStream: the variable's value (`"8:12345"`), or `nil` when it is unset.
    ///   - device: `st_dev` of fd 2.
    ///   - inode: `st_ino` of fd 2.
    /// - Returns: ``journal`` only when the variable parses as two decimal numbers equal to
    ///   `device` and `inode` (a child whose stderr was redirected inherits a stale variable, which
    ///   must not count: sd-daemon(3)); else ``timestamped``.
    static func detect(journalStream: String?, device: UInt64, inode: UInt64) -> LogLine {
        guard let journalStream else { return .timestamped }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let streamDevice = UInt64(parts[0]), let streamInode = UInt64(parts[1]) else {
            return .timestamped
        }
        return streamDevice == device && streamInode == inode ? .journal : .timestamped
    }

    /// The syslog priority of one of timerd's lines, read from its wording.
    ///
    /// timerd's lines say what they are after the optional `timerd: `: `error: …`, `Error: …`
    /// (usage) and `cannot start: …` are errors (3, `LOG_ERR`); `WARNING: …` (state moved aside)
    /// and `warning: …` (a cut torn record, sd_notify trouble) are warnings (4, `LOG_WARNING`);
    /// everything else is information (6, `LOG_INFO`). Numbers from syslog(3).
    ///
    /// - Parameter line: one line, without its newline.
    /// - Returns: 3, 4 or 6.
    static func priority(of line: Substring) -> Int {
        // Byte comparisons: the prefixes are ASCII, and String.hasPrefix's Unicode comparison was
        // a visible cost of every event line (docs/performance.md). Compared with memcmp over the
        // line's contiguous UTF-8: the generic `starts(with:)` of two UTF-8 views steps
        // both indexes byte by byte on every logged line.
        var line = line
        return line.withUTF8 { bytes in
            var text = UnsafeRawBufferPointer(bytes)
            if hasPrefix(text, "timerd: ") { text = UnsafeRawBufferPointer(rebasing: text.dropFirst(8)) }
            if hasPrefix(text, "error:") || hasPrefix(text, "Error:") || hasPrefix(text, "cannot start:") { return 3 }
            if hasPrefix(text, "WARNING:") || hasPrefix(text, "warning:") { return 4 }
            return 6
        }
    }

    /// Whether `text` starts with the ASCII bytes of `prefix` (compared as bytes, no Unicode rules).
    ///
    /// - Parameters:
    ///   - text: the line.
    ///   - prefix: ASCII text.
    /// - Returns: `true` when the first bytes of `text` are those of `prefix`.
    static func hasPrefix(_ text: String, _ prefix: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { hasPrefix(UnsafeRawBufferPointer($0), prefix) }
    }

    /// Whether `text` starts with the ASCII bytes of `prefix`.
    private static func hasPrefix(_ text: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard text.count >= count, let base = text.baseAddress else { return false }
        return memcmp(base, prefix.utf8Start, count) == 0
    }

    /// Marks every line of `text` for this format.
    ///
    /// The lines of one message share its first line's priority (a usage error's `Usage:` line is
    /// part of the error), and its time.
    ///
    /// - Parameters:
    ///   - text: one or more lines, without a final newline.
    ///   - seconds: the wall-clock time, seconds since 1970-01-01T00:00:00Z (used when timestamped).
    ///   - milliseconds: the milliseconds past `seconds`, 0...999.
    /// - Returns: the lines, each prefixed and ending in a newline.
    /// - Complexity: O(n) in the length of `text`.
    func render(_ text: String, seconds: Int, milliseconds: Int) -> String {
        let prefix =
            switch self {
            case .journal: "<\(LogLine.priority(of: LogLine.firstLine(of: text)))>"
            case .timestamped: LogLine.timestamp(seconds: seconds, milliseconds: milliseconds) + " "
            }
        // One line (every event line of the daemon): no splitting, one string built once.
        if !text.utf8.contains(UInt8(ascii: "\n")) { return prefix + text + "\n" }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var result = ""
        for line in lines {
            result += prefix
            result += line
            result += "\n"
        }
        return result
    }

    /// An ISO 8601 UTC time with milliseconds, `2026-12-01T05:40:00.123Z`.
    ///
    /// - Parameters:
    ///   - seconds: seconds since 1970-01-01T00:00:00Z.
    ///   - milliseconds: 0...999.
    /// - Returns: the text; the proleptic Gregorian calendar, as `gmtime_r(3)` computes it.
    static func timestamp(seconds: Int, milliseconds: Int) -> String {
        let millis =
            milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return dateAndTime(seconds: seconds) + "." + millis + "Z"
    }

    /// `2026-12-01T05:40:00` for `seconds` since the epoch (UTC, `gmtime_r(3)`); the seconds
    /// themselves when `gmtime_r` cannot represent them.
    static func dateAndTime(seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "\(seconds)" }
        return "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-"
            + "\(padded(Int(parts.tm_mday), 2))T\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):"
            + "\(padded(Int(parts.tm_sec), 2))"
    }

    /// The text up to its first newline.
    static func firstLine(of text: String) -> Substring {
        // Searched in the UTF-8 bytes, not Characters (a newline is one ASCII byte), with memchr
        // over the contiguous bytes: the generic `firstIndex(of:)` of the UTF-8 view steps index by
        // index on every logged line.
        var text = text
        let offset = text.withUTF8 { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base, 0x0A, bytes.count) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
        guard let offset else { return text[...] }
        return text[..<text.utf8.index(text.utf8.startIndex, offsetBy: offset)]
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// The process's log level as its syslog priority: lines less severe are dropped
    /// (``LogLevel/info``, 6, until the daemon sets it from `--log-level` or `log_level=`).
    private static let threshold = Atomic<Int>(LogLevel.info.priority)

    /// The level in force for ``write(_:)``; the daemon sets it at start and on reload.
    static var level: LogLevel {
        get { LogLevel.allCases.first { $0.priority == threshold.load(ordering: .relaxed) } ?? .info }
        set { threshold.store(newValue.priority, ordering: .relaxed) }
    }

    /// Writes `text` to stderr in this process's format, at the current wall-clock time, unless its
    /// priority (its first line's) is less severe than ``level``.
    ///
    /// - Parameters:
    ///   - text: one or more lines, without a final newline.
    ///   - prefix: ASCII text written before `text` (`"timerd: "`, or empty), as if it began `text`:
    ///     appended as bytes, so that the caller makes no new String per line. It must not hold a
    ///     newline, and must not change the priority (`priority(of:)` skips `timerd: ` anyway).
    static func write(_ text: String, prefix: StaticString = "") {
        let first = firstLine(of: text)
        let priority = priority(of: first)
        guard priority <= threshold.load(ordering: .relaxed) else { return }
        guard current == .timestamped || prefix.utf8CodeUnitCount == 0 else {
            // The journal's form (rare: a line per event there too, but no buffering of its own
            // prefix): the prefixed text made once, then written as before.
            return write(prefix.description + text)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = Int(now.tv_sec)
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let isOneTimestampedLine = current == .timestamped && first.endIndex == text.endIndex
        let ready = pending.withLock { pending -> [UInt8]? in
            let start = pending.bytes.count
            if isOneTimestampedLine {
                // The common case (every event line), appended as bytes: no intermediate strings.
                pending.appendTimestamp(seconds: seconds, milliseconds: milliseconds)
                pending.bytes.append(UInt8(ascii: " "))
                pending.bytes.append(
                    contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
                pending.bytes.append(contentsOf: text.utf8)
                pending.bytes.append(UInt8(ascii: "\n"))
            } else {
                // Several lines, timestamped (the prefix starts only the first, as before).
                let whole = prefix.utf8CodeUnitCount == 0 ? text : prefix.description + text
                pending.bytes.append(
                    contentsOf: current.render(whole, seconds: seconds, milliseconds: milliseconds).utf8)
            }
            guard pending.isBuffering else {
                defer { pending.bytes.removeSubrange(start...) }
                return Array(pending.bytes[start...])
            }
            return pending.bytes.count >= maximumPendingBytes ? pending.take() : nil
        }
        if let ready { try? Syscall.writeAll(2, ready) }
    }

    /// Lines written during one turn of the daemon's loop, sent to stderr in one `write(2)` at the
    /// end of the turn (``flush()``) instead of one per line: under a burst of requests every start
    /// logs a line, and a system call per line was the largest single cost of a pipelined start
    /// (docs/performance.md). At most ``maximumPendingBytes`` wait; a line is never split.
    private static let pending = Mutex(PendingLines())

    /// The most bytes held before they are written without waiting for the end of the turn: 64 KiB.
    static let maximumPendingBytes = 65_536

    /// Lines waiting for the end of the loop's turn.
    struct PendingLines: ~Copyable {
        /// Whether lines wait for ``LogLine/flush()`` (inside the loop) or are written at once.
        var isBuffering = false
        var bytes: [UInt8] = []

        /// The second whose date and time `head` holds (`2026-12-01T05:40:00`), formatted once per second.
        var headSecond = Int.min
        var head: [UInt8] = []

        /// Appends `2026-12-01T05:40:00.123Z`: the same text as ``LogLine/timestamp(seconds:milliseconds:)``.
        mutating func appendTimestamp(seconds: Int, milliseconds: Int) {
            if headSecond != seconds {
                headSecond = seconds
                head = Array(LogLine.dateAndTime(seconds: seconds).utf8)
            }
            bytes.append(contentsOf: head)
            bytes.append(UInt8(ascii: "."))
            let millis = min(max(milliseconds, 0), 999)
            bytes.append(UInt8(ascii: "0") + UInt8(millis / 100))
            bytes.append(UInt8(ascii: "0") + UInt8(millis / 10 % 10))
            bytes.append(UInt8(ascii: "0") + UInt8(millis % 10))
            bytes.append(UInt8(ascii: "Z"))
        }

        /// Hands the held bytes over and keeps the buffer's capacity.
        mutating func take() -> [UInt8] {
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
    }

    /// Holds lines until ``flush()`` (`true`, while the event loop runs) or writes each at once
    /// (`false`, the default; turning it off writes what is held).
    static func setBuffering(_ isBuffering: Bool) {
        pending.withLock { $0.isBuffering = isBuffering }
        if !isBuffering { flush() }
    }

    /// Writes the lines held since the last flush, in one `write(2)`.
    static func flush() {
        let ready = pending.withLock { pending -> [UInt8]? in pending.bytes.isEmpty ? nil : pending.take() }
        if let ready { try? Syscall.writeAll(2, ready) }
    }
}
