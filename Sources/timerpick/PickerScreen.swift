import DatePicking
import Foundation
import TimerModel

/// Renders the picker as lines of text for a terminal of a given size; the same state and size give the same
/// screen, so tests compare exact screens (only the column widths are remembered between frames).
///
/// Layout (en_US, `.dateAndTime`, 80 columns, `NO_COLOR`):
///
/// ```
///  Pick a date and time · en_US · gregorian · America/New_York
///
///      Wed, Jul 30    6     05
///      Thu, Jul 31    7     06
///   >    [Today]      8     07    AM   <
///      Sat, Aug 2     9     08    PM
///      Sun, Aug 3     10    09
///
///   = 2025-08-01T08:07:00-04:00
///   ←/→ wheel  ↑/↓ spin  PgUp/PgDn ×10  0-9 type  Enter accept  Esc cancel
/// ```
///
/// Wheels stand side by side in ``DatePicker/visualWheelOrder``; each shows its selected row and two neighbours
/// above and below (blank past the end of a non-wrapping wheel). The focused wheel's selected row is in brackets
/// (and reverse video in colour); disabled rows (rule B13: out of range, a day the month lacks, an hour a
/// daylight-saving gap skips) are dimmed in colour and in parentheses without. Each wheel's column keeps one
/// width while it spins: the widest title of all its rows (on the date wheel of every weekday in every month,
/// on the year wheel of 21 years, widened if a wider one shows up), and one column on each side for the
/// brackets or the parentheses.
///
/// When both `--min` and `--max` are given and the minimum is after the maximum, a note under the heading says
/// that neither applies (rule B10: an inverted range is ignored, as UIKit does).
///
/// No line is wider than the terminal and no more lines are drawn than it has: below ``minimumColumns``, when
/// the wheels do not fit, or when the terminal has fewer lines than the screen, the screen is a message saying
/// so, word-wrapped to the width, and the frame reports that the wheels are not shown (the key loop then
/// ignores every key but Esc, so nothing changes unseen).
struct PickerScreen {
    /// The narrowest terminal the picker draws in.
    static let minimumColumns = 40

    /// Whether to use SGR attributes (bold, reverse, dim); off for `NO_COLOR` or `TERM=dumb`.
    var usesColor: Bool

    /// Each wheel's column width so far, in columns, by wheel kind; only ever widened.
    private let widths = ColumnWidths()

    /// Creates a screen.
    ///
    /// - Parameter usesColor: Whether to use SGR attributes.
    init(usesColor: Bool) {
        self.usesColor = usesColor
    }

    /// One drawn screen.
    struct Frame: Equatable {
        /// The lines, without line ends.
        var lines: [String]
        /// Whether the wheels are on screen; `false` for a "too narrow" or "too short" message.
        var showsWheels: Bool
    }

    /// The screen's lines, none wider than `columns`.
    ///
    /// - Parameters:
    ///   - state: The picker state.
    ///   - columns: The terminal's width.
    ///   - rows: The terminal's height in lines.
    /// - Returns: The lines and whether they show the wheels.
    /// - Complexity: Titles and enabled checks for 5 rows per wheel; once per wheel, the titles of all its rows
    ///   (at most 401) for its width.
    func frame(for state: PickerState, columns: Int, rows: Int = 24) -> Frame {
        guard columns >= Self.minimumColumns else {
            return Self.message(
                "Too narrow: need \(Self.minimumColumns) columns, have \(columns).", columns: columns, rows: rows)
        }
        let picker = state.picker
        let titles = picker.titles
        let wheelsByKind = Dictionary(picker.wheels.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        let kinds = state.visualKinds
        // cells[column][line]: (text, isSelected, isEnabled)
        var cells: [[(text: String, enabled: Bool)?]] = []
        for kind in kinds {
            guard let wheel = wheelsByKind[kind] else { continue }
            let visible = (wheel.selectedRow - 2)...(wheel.selectedRow + 2)
            let texts = titles.titles(of: wheel, rows: visible)
            cells.append(
                zip(visible, texts).map { row, text in
                    text.map { ($0, picker.isEnabled(wheel.value(atRow: row), in: kind)) }
                })
        }
        let widths = kinds.compactMap { kind -> Int? in
            guard let wheel = wheelsByKind[kind] else { return nil }
            return width(of: wheel, titles: titles, calendar: picker.effectiveCalendar)
        }
        // "  > " + per wheel: "[" text "]" + "  " between wheels + "  <"
        let contentWidth = 4 + widths.reduce(0) { $0 + $1 + 2 } + 2 * max(widths.count - 1, 0) + 3
        guard contentWidth <= columns else {
            return Self.message(
                "Terminal too narrow: \(columns) columns, these wheels need \(contentWidth).", columns: columns,
                rows: rows)
        }
        var lines = [DisplayWidth.truncated(" " + heading(picker), to: columns)]
        if let note = Self.reversedRangeNote(picker) { lines.append(DisplayWidth.truncated(" " + note, to: columns)) }
        lines.append("")
        for line in 0..<5 {
            let isSelected = line == 2
            var text = isSelected ? "  > " : "    "
            // Columns a cell wider than its column takes from the gap after it.
            var borrowed = 0
            for (index, column) in cells.enumerated() {
                if index > 0 { text += String(repeating: " ", count: 2 - borrowed) }
                let drawn = cell(
                    column[line], width: widths[index], isSelected: isSelected, isFocused: index == state.focus)
                // "[(31)]": a disabled row under the cursor without colour, the one cell that can be wider than
                // its column; it takes a space from the gap on each side, so no other column moves.
                let left = (drawn.overflow + 1) / 2
                for _ in 0..<left where text.last == " " { text.removeLast() }
                borrowed = drawn.overflow - left
                text += drawn.text
            }
            if isSelected { text += String(repeating: " ", count: 2 - borrowed) + "<" }
            lines.append(text)
        }
        lines.append("")
        lines.append(DisplayWidth.truncated("  = " + state.result, to: columns))
        lines.append(
            DisplayWidth.truncated(
                "  ←/→ wheel  ↑/↓ spin  PgUp/PgDn ×10  0-9 type  Enter accept  Esc cancel", to: columns))
        guard lines.count <= rows else {
            return Self.message("Too short: need \(lines.count) lines, have \(rows).", columns: columns, rows: rows)
        }
        return Frame(lines: lines, showsWheels: true)
    }

    /// The note for a reversed range, or `nil`: "--min is after --max: an inverted range is ignored, so neither
    /// applies" (rule B10). Countdown mode has no bounds, so no note.
    static func reversedRangeNote(_ picker: DatePicker) -> String? {
        guard picker.datePickerMode != .countDownTimer, let minimum = picker.minimumDate,
            let maximum = picker.maximumDate, minimum > maximum
        else { return nil }
        return "Note: --min is after --max: an inverted range is ignored, so neither applies."
    }

    /// A message instead of the wheels, word-wrapped to `columns` and cut to `rows` lines.
    static func message(_ text: String, columns: Int, rows: Int) -> Frame {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if DisplayWidth.of(candidate) <= columns || line.isEmpty {
                line = candidate
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        let cut = lines.prefix(max(rows, 1)).map { DisplayWidth.truncated($0, to: max(columns, 1)) }
        return Frame(lines: Array(cut), showsWheels: false)
    }

    /// The wheel's column width: the widest title of its rows (all rows of a wheel of up to 60; on the date
    /// wheel every weekday in every month, ``dateRows(of:calendar:)``; the 21 years around the selection on the
    /// year wheel); remembered per wheel kind and only widened, so that the column stays put while the wheel
    /// spins.
    private func width(of wheel: Wheel, titles: WheelTitles, calendar: Calendar) -> Int {
        let visible = (wheel.selectedRow - 2)...(wheel.selectedRow + 2)
        var widest = titles.titles(of: wheel, rows: visible).compactMap { $0 }.map(DisplayWidth.of).max() ?? 0
        if widths.sampled[wheel.kind] == nil {
            let sample: [Int]
            if wheel.rowCount <= 60 {
                sample = Array(0..<wheel.rowCount)
            } else if wheel.kind == .date {
                sample = Self.dateRows(of: wheel, calendar: calendar)
            } else {
                // Years differ in width only now and then; a wider one shows up later and widens the column.
                sample = Array((wheel.selectedRow - 10)...(wheel.selectedRow + 10))
            }
            let sampled =
                sample.compactMap { row in
                    wheel.wraps || (0..<wheel.rowCount).contains(row)
                        ? DisplayWidth.of(titles.title(for: wheel.value(atRow: row), in: wheel.kind)) : nil
                }
                .max() ?? 0
            widths.sampled[wheel.kind] = sampled
        }
        widest = max(widest, widths.sampled[wheel.kind] ?? 0, widths.widest[wheel.kind] ?? 0)
        widths.widest[wheel.kind] = widest
        return widest
    }

    /// Rows of the date wheel with every weekday in every month, with two-digit days: the 22nd to the 28th of
    /// the selected month and the 12 months after it (13 for calendars with 13), and the "Today" row (the
    /// wheel's centre). 92 titles instead of a year's 366.
    static func dateRows(of wheel: Wheel, calendar: Calendar) -> [Int] {
        var rows = [wheel.rowCount / 2]
        guard case .day(let selected) = wheel.selectedValue,
            let month = calendar.dateInterval(of: .month, for: selected)?.start
        else { return rows }
        let selectedDay = calendar.startOfDay(for: selected)
        for step in 0..<13 {
            guard let start = calendar.date(byAdding: .month, value: step, to: month),
                let day22 = calendar.date(byAdding: .day, value: 21, to: start),
                let offset = calendar.dateComponents([.day], from: selectedDay, to: calendar.startOfDay(for: day22)).day
            else { continue }
            rows += (0..<7).map { wheel.selectedRow + offset + $0 }
        }
        return rows
    }

    /// One cell: the title centred in its column's `width` plus one column on each side, which the brackets of
    /// the cursor or the parentheses of a disabled row take. Only both at once, `[(31)]` without colour, can be
    /// wider: `overflow` says by how many columns (1 or 2).
    private func cell(_ content: (text: String, enabled: Bool)?, width: Int, isSelected: Bool, isFocused: Bool)
        -> (text: String, overflow: Int)
    {
        guard let content else { return (String(repeating: " ", count: width + 2), 0) }
        let shown = content.enabled || usesColor ? content.text : "(\(content.text))"
        let marked = isSelected && isFocused ? "[\(shown)]" : shown
        let overflow = max(DisplayWidth.of(marked) - (width + 2), 0)
        let framed = DisplayWidth.centred(marked, in: width + 2)
        guard usesColor else { return (framed, overflow) }
        var attributes: [String] = []
        if !content.enabled { attributes.append("2") }
        if isSelected { attributes.append("1") }
        if isSelected && isFocused { attributes.append("7") }
        guard !attributes.isEmpty else { return (framed, overflow) }
        return ("\u{1B}[\(attributes.joined(separator: ";"))m\(framed)\u{1B}[0m", overflow)
    }

    private func heading(_ picker: DatePicker) -> String {
        let what: String
        switch picker.datePickerMode {
        case .time: what = "Pick a time"
        case .date: what = "Pick a date"
        case .dateAndTime: what = "Pick a date and time"
        case .countDownTimer: what = "Pick a countdown duration"
        }
        let calendar = picker.effectiveCalendar
        return [what, picker.effectiveLocale.identifier, "\(calendar.identifier)", calendar.timeZone.identifier]
            .joined(separator: " · ")
    }
}

/// The column widths a ``PickerScreen`` has used, by wheel kind: a reference, so that drawing (which does not
/// mutate the screen) can remember them between frames. The picker draws from one thread.
final class ColumnWidths {
    /// The widest title of the rows sampled once per wheel.
    var sampled: [WheelKind: Int] = [:]
    /// The width used so far.
    var widest: [WheelKind: Int] = [:]
}
