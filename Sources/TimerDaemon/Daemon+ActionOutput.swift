/// The first ``limit`` bytes an action run wrote to stdout and stderr, kept for `timer.runs`
/// (the log gets the same bytes line by line, Daemon+Actions.swift).
struct CapturedOutput {
    /// The most bytes kept: ``Daemon/actionOutputLimit`` (64 KiB).
    static let limit = Daemon.actionOutputLimit
    /// The bytes kept, at most ``limit``.
    private(set) var bytes: [UInt8] = []
    /// Whether the run wrote more than ``limit`` bytes.
    private(set) var truncated = false

    /// Appends what fits of `chunk`; the rest only sets ``truncated``.
    mutating func append(_ chunk: ArraySlice<UInt8>) {
        let room = Self.limit - bytes.count
        if chunk.count > room {
            truncated = true
            bytes += chunk.prefix(max(room, 0))
        } else {
            bytes += chunk
        }
    }
}

extension LocalBackend {
    /// Hands the output to the service, which keeps it with the timer's run record.
    func keepActionOutput(_ launch: ActionLaunch, output: CapturedOutput) {
        service.keepActionOutput(
            timer: launch.timerID, kind: launch.kind, output: output.bytes, truncated: output.truncated)
    }
}
