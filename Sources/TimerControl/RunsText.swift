import FoundationEssentials
import TimerModel
import TimerProtocol

/// The text of `timerctl logs`: one block per action run, oldest first, blocks separated by an
/// empty line. A block's first line is the start in local time, the trigger, the kind and the exit
/// status; the output follows, each line indented by four spaces.
enum RunsText {
    /// Renders a `timer.runs` result.
    ///
    /// - Parameters:
    ///   - result: the reply.
    ///   - clock: the local zone (``LocalClock/system`` outside tests).
    /// - Returns: the text, ending with a newline.
    static func render(_ result: ActionRunsResult, clock: LocalClock = .system) -> String {
        let label = result.name.map { "\(result.id) \"\($0)\"" } ?? result.id
        guard !result.runs.isEmpty else { return "timer \(label) has no action runs\n" }
        var blocks: [String] = []
        for run in result.runs {
            let when = ISO8601.date(from: run.startedAt).map(clock.offsetText) ?? run.startedAt
            var block = "\(when)  \(run.trigger)  \(run.kind)  \(statusText(run))\n"
            if let output = run.output {
                var lines = output.split(separator: "\n", omittingEmptySubsequences: false)
                if output.hasSuffix("\n") || output.isEmpty { lines.removeLast() }
                if lines.isEmpty { block += "    (no output)\n" }
                for line in lines { block += "    \(line)\n" }
                if run.outputTruncated == true { block += "    (output cut after 65536 bytes)\n" }
            } else if run.outcome != "running" {
                block += "    (output not kept: the run ended before timerd's last start)\n"
            }
            blocks.append(block)
        }
        return blocks.joined(separator: "\n")
    }

    /// `exit status 3`, `killed by signal 9 (status 137)`, `timed out (status 124)`, …
    static func statusText(_ run: ActionRunInfo) -> String {
        let status = run.exitStatus.map(String.init) ?? "?"
        switch run.outcome {
        case "exited": return "exit status \(status)"
        case "signalled": return "killed by signal \((run.exitStatus ?? 128) - 128) (status \(status))"
        case "timed-out": return "timed out (status \(status))"
        case "failed-to-start": return "could not start (status \(status))"
        case "running": return "running"
        case "interrupted": return "interrupted (timerd stopped while it ran; status unknown)"
        default: return "\(run.outcome) (status \(status))"
        }
    }
}
