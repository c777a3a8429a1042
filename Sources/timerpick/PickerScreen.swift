import DatePicking
import Foundation
import TimerModel

/// Renders the picker as lines of text for a terminal of a given width: pure, so tests compare exact screens.
///
/// Layout (en_US, `.dateAndTime`, 80 columns, `NO_COLOR`):
///
/// ```
///  Pick a date and time · en_US · gregorian · America/New_York
///
///     Wed, Jul 30     6    05
///     Thu, Jul 31     7    06
///  > [   Today   ]    8    07    AM   <
///     Sat, Aug 2      9    08    PM
///     Sun, Aug 3     10    09
///
///  = 2025-08-01T08:07:00-04:00
///  ←/→ wheel  ↑/↓ spin  PgUp/PgDn ×10  0-9 type  Enter accept  Esc cancel
/// ```
///
/// Wheels stand side by side in ``DatePicker/visualWheelOrder``; each shows its selected row and two neighbours
/// above and below (blank past the end of a non-wrapping wheel). The focused wheel's selected row is in brackets
/// (and reverse video in colour); disabled rows (rule B13: out of range, or a day the month lacks) are dimmed in
/// colour and in parentheses without. No line is wider than the terminal: below ``minimumColumns``, or when the
/// wheels do not fit, the screen is one line saying the terminal is too narrow.
struct PickerScreen {
    /// The narrowest terminal the picker draws in.
    static let minimumColumns = 40

    /// Whether to use SGR attributes (bold, reverse, dim); off for `NO_COLOR` or `TERM=dumb`.
    var usesColor: Bool

    /// The screen's lines, none wider than `columns`.
    ///
    /// - Parameters:
    ///   - state: The picker state.
    ///   - columns: The terminal's width.
    /// - Returns: Lines without line ends.
    /// - Complexity: Titles and enabled checks for 5 rows per wheel.
    func lines(for state: PickerState, columns: Int) -> [String] {
        guard columns >= Self.minimumColumns else {
            return [
                DisplayWidth.truncated("Too narrow: need \(Self.minimumColumns) columns, have \(columns).", to: columns)
            ]
        }
        let picker = state.picker
        let titles = picker.titles
        let wheelsByKind = Dictionary(picker.wheels.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        let kinds = state.visualKinds
        // cells[column][line]: (text, isSelected, isEnabled)
        var cells: [[(text: String, enabled: Bool)?]] = []
        for kind in kinds {
            guard let wheel = wheelsByKind[kind] else { continue }
            let rows = (wheel.selectedRow - 2)...(wheel.selectedRow + 2)
            let texts = titles.titles(of: wheel, rows: rows)
            cells.append(
                zip(rows, texts).map { row, text in
                    text.map { ($0, picker.isEnabled(wheel.value(atRow: row), in: kind)) }
                })
        }
        let widths = cells.map { column in
            column.compactMap { $0 }.map { DisplayWidth.of($0.text) + ($0.enabled ? 0 : 2) }.max() ?? 0
        }
        // "  > " + per wheel: "[" text "]" + "  " between wheels + "  <"
        let contentWidth = 4 + widths.reduce(0) { $0 + $1 + 2 } + 2 * max(widths.count - 1, 0) + 3
        guard contentWidth <= columns else {
            return [
                DisplayWidth.truncated(
                    "Terminal too narrow: \(columns) columns, these wheels need \(contentWidth).", to: columns)
            ]
        }
        var lines = [DisplayWidth.truncated(" " + heading(picker), to: columns), ""]
        for line in 0..<5 {
            let isSelected = line == 2
            var text = isSelected ? "  > " : "    "
            for (index, column) in cells.enumerated() {
                if index > 0 { text += "  " }
                text += cell(
                    column[line], width: widths[index], isSelected: isSelected, isFocused: index == state.focus)
            }
            if isSelected { text += "  <" }
            lines.append(text)
        }
        lines.append("")
        lines.append(DisplayWidth.truncated("  = " + state.result, to: columns))
        lines.append(
            DisplayWidth.truncated(
                "  ←/→ wheel  ↑/↓ spin  PgUp/PgDn ×10  0-9 type  Enter accept  Esc cancel", to: columns))
        return lines
    }

    private func cell(_ content: (text: String, enabled: Bool)?, width: Int, isSelected: Bool, isFocused: Bool)
        -> String
    {
        guard let content else { return String(repeating: " ", count: width + 2) }
        let shown = content.enabled || usesColor ? content.text : "(\(content.text))"
        let padded = DisplayWidth.centred(shown, in: width)
        let framed = isSelected && isFocused ? "[\(padded)]" : " \(padded) "
        guard usesColor else { return framed }
        var attributes: [String] = []
        if !content.enabled { attributes.append("2") }
        if isSelected { attributes.append("1") }
        if isSelected && isFocused { attributes.append("7") }
        guard !attributes.isEmpty else { return framed }
        return "\u{1B}[\(attributes.joined(separator: ";"))m\(framed)\u{1B}[0m"
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
