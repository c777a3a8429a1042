import FoundationEssentials
import TimerModel
import TimerProtocol

/// The frames of `timerctl watch`: pure text from a ``WatchModel``, a size and the time, so tests
/// pin them without a terminal.
///
/// No line is wider than the terminal, so nothing ever wraps: on a narrow terminal whole columns go,
/// in this order, while even a 4-column name does not fit: the step, END, the percentage beside the
/// bar, the bar (DONE, the percentage alone, takes its place), DONE, then STATE. Names are cut (with
/// `…`) and the bar shrinks; no column is ever cut in the middle of a word until only ID, NAME and
/// LEFT remain, and what still does not fit then (below about 30 columns) is cut at the right edge.
/// Widths are display columns (`DisplayWidth`: a CJK character takes 2).
struct WatchScreen {
    /// Whether to colour states and the selected row (not with `NO_COLOR` or `TERM=dumb`).
    var usesColor: Bool
    /// The local zone for end times.
    var clock: LocalClock = .system

    /// The keys, as the last line shows them.
    static let keys = "p pause/resume  s stop  +/- 1 min  n next step  ↑/↓ select  q quit"
    /// The keys on a narrow terminal.
    static let shortKeys = "p pause s stop +/- 1m n next q quit"

    /// One frame, line by line (without line ends), at most `rows` lines of at most `columns`
    /// display columns each.
    ///
    /// - Parameters:
    ///   - model: what to show.
    ///   - columns: the terminal's width, ≥ 1.
    ///   - rows: the terminal's height, ≥ 1.
    ///   - now: boot-time nanoseconds (running timers count down from their last report).
    ///   - wallNow: the wall clock now, for the header and END.
    /// - Returns: the lines.
    /// - Complexity: O(n) in the timers shown.
    func lines(_ model: WatchModel, columns: Int, rows: Int, now: Int64, wallNow: Date) -> [String] {
        let entries = model.ordered
        let count = entries.filter { $0.timer.state.isLive }.count
        let summary = "\(count) live timer\(count == 1 ? "" : "s") · \(clock.endText(wallNow, now: wallNow))"
        var lines = [fit(["timerctl watch · " + summary, summary], columns), ""]
        let rowsForTimers = max(0, rows - 5)
        if !model.isLoaded {
            lines.append(clip("waiting for timerd …", columns))
        } else if entries.isEmpty {
            lines.append(clip("no live timers: start one with 'timerctl start 25m'", columns))
        } else {
            let table = self.table(entries, model: model, columns: columns, now: now, wallNow: wallNow)
            let selected = entries.firstIndex { $0.timer.id == model.selectedID } ?? 0
            let first = max(0, min(selected - rowsForTimers + 2, entries.count - rowsForTimers + 1))
            lines.append(table.header)
            let visible = table.rows[first..<min(table.rows.count, first + max(1, rowsForTimers - 1))]
            lines += visible
            if first + visible.count < table.rows.count {
                lines.append(clip("… \(table.rows.count - first - visible.count) more (↓)", columns))
            }
        }
        lines.append("")
        lines.append(model.message.map { clip($0, columns) } ?? fit([Self.keys, Self.shortKeys], columns))
        return Array(lines.prefix(rows))
    }

    /// The column header and one row per timer, fitted to `columns`.
    private func table(
        _ entries: [WatchModel.Entry], model: WatchModel, columns: Int, now: Int64, wallNow: Date
    ) -> (header: String, rows: [String]) {
        struct Cells {
            var id: String
            var name: String
            var state: TimerState
            var left: String
            var end: String
            var fraction: Double
            var step: String
            var isSelected: Bool
        }
        let cells = entries.map { entry -> Cells in
            let timer = entry.timer
            let left = WatchModel.remaining(entry, now: now)
            let fraction = timer.duration > 0 ? min(1, max(0, (timer.duration - left) / timer.duration)) : 1
            var step = ""
            if let children = timer.children {
                let index = timer.currentChild ?? (timer.state == .finished ? children.count - 1 : 0)
                step = "step \(index + 1)/\(children.count)"
            }
            var end = "-"
            if timer.state == .running {
                end = clock.endText(wallNow.addingTimeInterval(left), now: wallNow)
            }
            return Cells(
                id: timer.id, name: timer.name ?? "-", state: timer.state,
                left: DurationFormatter.countdown(seconds: left), end: end, fraction: fraction, step: step,
                isSelected: timer.id == model.selectedID)
        }
        let idWidth = max(2, cells.map(\.id.count).max() ?? 0)
        let leftWidth = max(4, cells.map(\.left.count).max() ?? 0)
        let endWidth = max(3, cells.map(\.end.count).max() ?? 0)
        let stepWidth = cells.map(\.step.count).max() ?? 0
        let nameWanted = min(24, max(4, cells.map { DisplayWidth.of($0.name) }.max() ?? 4))
        // "> " + id + "  " + name + "  " + state (8) + "  " + left, then "  " + "[" bar "]" with the
        // optional " " + percentage (or the percentage alone), "  " + END and "  " + step.
        var showsStep = stepWidth > 0
        var showsEnd = true
        var showsPercent = true
        var showsBar = true
        var showsState = true
        func width(name: Int, bar: Int) -> Int {
            let progress = showsBar ? bar + 2 + (showsPercent ? 5 : 0) : (showsPercent ? 4 : 0)
            return 2 + idWidth + 2 + name + (showsState ? 2 + 8 : 0) + 2 + leftWidth + (progress > 0 ? 2 + progress : 0)
                + (showsEnd ? 2 + endWidth : 0) + (showsStep ? 2 + stepWidth : 0)
        }
        // While even a 4-column name and a 5-cell bar do not fit, drop the step, then END, then the
        // percentage; then the bar gives way to the percentage alone (DONE); then DONE goes, then
        // STATE: whole columns, never one cut mid-word.
        if showsStep, width(name: 4, bar: 5) > columns { showsStep = false }
        if showsEnd, width(name: 4, bar: 5) > columns { showsEnd = false }
        if width(name: 4, bar: 5) > columns { showsPercent = false }
        if width(name: 4, bar: 5) > columns { (showsBar, showsPercent) = (false, true) }
        if width(name: 4, bar: 5) > columns { showsPercent = false }
        if width(name: 4, bar: 5) > columns { showsState = false }
        // The name gets what it needs while the bar keeps 10 cells, and at least 8 columns (or
        // what it needs) before the bar grows; the bar takes the rest, up to 40 cells.
        let room = columns - width(name: 0, bar: 0)
        let nameWidth = max(4, min(nameWanted, showsBar ? max(min(nameWanted, 8), room - 10) : room))
        let barCells = max(5, min(40, room - nameWidth))
        // Columns two spaces apart; the last one's padding (LEFT, when it is last) is not kept.
        func compose(_ parts: [String]) -> String {
            var line = parts.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
        var headerParts = ["  " + "ID".padded(to: idWidth), "NAME".padded(to: nameWidth)]
        if showsState { headerParts.append("STATE   ") }
        headerParts.append("LEFT".padded(to: leftWidth))
        if showsEnd { headerParts.append("END".padded(to: endWidth)) }
        if showsBar || showsPercent { headerParts.append(showsBar ? "PROGRESS" : "DONE") }
        let header = clip(compose(headerParts), columns)
        let rows = cells.map { cell -> String in
            let name =
                DisplayWidth.of(cell.name) > nameWidth
                ? DisplayWidth.truncated(cell.name, to: nameWidth - 1) + "…" : cell.name
            var parts = [(cell.isSelected ? "> " : "  ") + cell.id.padded(to: idWidth), name.padded(to: nameWidth)]
            if showsState { parts.append(cell.state.rawValue.padded(to: 8)) }
            parts.append(cell.left.padded(to: leftWidth))
            if showsEnd { parts.append(cell.end.padded(to: endWidth)) }
            let percent = StatusTable.percent(cell.fraction)
            if showsBar {
                parts.append(Self.bar(cell.fraction, cells: barCells) + (showsPercent ? " " + percent : ""))
            } else if showsPercent {
                parts.append(percent)
            }
            if showsStep, !cell.step.isEmpty { parts.append(cell.step) }
            let plain = compose(parts)
            guard usesColor, DisplayWidth.of(plain) <= columns else { return clip(plain, columns) }
            if showsState { parts[2] = Self.paint(parts[2], cell.state) }
            let line = compose(parts)
            return cell.isSelected ? "\u{1B}[1m" + line + "\u{1B}[0m" : line
        }
        return (header, rows)
    }

    /// `[#####-----]` with `cells` cells for a fraction in 0 … 1.
    static func bar(_ fraction: Double, cells: Int) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let filled = Int((clamped * Double(cells)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "]"
    }

    private static func paint(_ text: String, _ state: TimerState) -> String {
        switch state {
        case .running: return "\u{1B}[32m" + text + "\u{1B}[0m"
        case .paused: return "\u{1B}[33m" + text + "\u{1B}[0m"
        case .stopped: return "\u{1B}[31m" + text + "\u{1B}[0m"
        case .ringing: return "\u{1B}[1;35m" + text + "\u{1B}[0m"
        case .finished, .pending: return text
        }
    }

    /// The first of `texts` that fits in `columns`, else the last one cut.
    private func fit(_ texts: [String], _ columns: Int) -> String {
        texts.first { DisplayWidth.of($0) <= columns } ?? clip(texts.last ?? "", columns)
    }

    /// `text` cut to `columns` display columns.
    private func clip(_ text: String, _ columns: Int) -> String {
        DisplayWidth.of(text) <= columns ? text : DisplayWidth.truncated(text, to: columns)
    }
}

extension String {
    /// The string padded with spaces on the right to `width` display columns.
    fileprivate func padded(to width: Int) -> String {
        let used = DisplayWidth.of(self)
        return used >= width ? self : self + String(repeating: " ", count: width - used)
    }
}
