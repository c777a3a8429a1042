import TimerModel
import TimerProtocol

/// Formats timers for people: the `status` table, progress bars, and one-line confirmations.
enum StatusTable {
    /// Width of the progress bar, in cells.
    static let barWidth = 20

    /// The table: `ID NAME STATE REMAINING PROGRESS`, columns aligned; a group shows its
    /// aggregate and `step i/n` for the child that runs.
    static func render(_ timers: [TimerInfo], color: Bool) -> String {
        let header = ["ID", "NAME", "STATE", "REMAINING", "PROGRESS"]
        let rows = timers.map { timer -> [String] in
            var progress = bar(timer.progress.fractionCompleted) + " " + percent(timer.progress.fractionCompleted)
            if let children = timer.children {
                let step = (timer.currentChild ?? (timer.state == .finished ? children.count - 1 : 0))
                progress += "  step \(step + 1)/\(children.count)"
                if children.indices.contains(step) {
                    progress += " (\(DurationFormatter.compact(seconds: children[step].duration)))"
                }
            }
            return [
                timer.id, timer.name ?? "-", timer.state.rawValue, DurationFormatter.clock(seconds: timer.remaining),
                progress,
            ]
        }
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String], states: TimerState? = nil) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let padded =
                    column == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
                text += column == 2 && color ? paint(padded, states) : padded
                if column < cells.count - 1 { text += "  " }
            }
            return text
        }
        var output = line(header) + "\n"
        for (timer, row) in zip(timers, rows) { output += line(row, states: timer.state) + "\n" }
        return output
    }

    /// `[#####---------------]` for a fraction in 0 … 1.
    static func bar(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let filled = Int((clamped * Double(barWidth)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
    }

    /// ` 25%`: the fraction as a whole percentage, rounded down, right-aligned in 4 characters.
    static func percent(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let text = "\(Int((clamped * 100).rounded(.down)))%"
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    /// One-line confirmation of a change: `started 1 "tea": 25m`.
    static func confirmation(_ verb: Verb, _ timer: TimerInfo) -> String {
        let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
        switch verb {
        case .start:
            let steps = timer.children.map { $0.map { DurationFormatter.compact(seconds: $0.duration) } }
            let what = steps?.joined(separator: " + ") ?? DurationFormatter.compact(seconds: timer.duration)
            return "started \(label): \(what)\n"
        case .stop:
            return "stopped \(label) with \(DurationFormatter.clock(seconds: timer.remaining)) left\n"
        case .pause:
            return "paused \(label) with \(DurationFormatter.clock(seconds: timer.remaining)) left\n"
        case .resume:
            return "resumed \(label): \(DurationFormatter.clock(seconds: timer.remaining)) left\n"
        case .wait:
            return timer.state == .finished ? "\(label) finished\n" : "\(label) was stopped\n"
        case .status, .ping, .reload, .help, .completion, .completeTimers, .pick, .calendar:
            return ""
        }
    }

    private static func paint(_ text: String, _ state: TimerState?) -> String {
        let code: String
        switch state {
        case .running: code = "32"
        case .paused: code = "33"
        case .stopped: code = "31"
        case .finished, .pending, .none: return text
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
