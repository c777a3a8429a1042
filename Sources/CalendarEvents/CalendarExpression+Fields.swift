extension CalendarExpression {
    /// Reads one field: `*`, or a comma-separated list of `A`, `A..B`, `A/R` and `A..B/R`.
    ///
    /// - Parameters:
    ///   - text: The field's text.
    ///   - offset: The byte offset of `text` in the whole expression, for errors.
    ///   - field: Which field it is (its range and unit).
    ///   - fromEnd: Whether it is a day after `~` (values 1–28 counted back from the month's end).
    /// - Returns: The items, sorted and without duplicates; empty for `*`.
    /// - Throws: ``CalendarExpressionError/invalidValue(offset:token:field:)`` or
    ///   ``CalendarExpressionError/valueOutOfRange(offset:token:field:)``.
    static func parseChain(
        _ text: Substring, offset: Int, field: CalendarField, fromEnd: Bool = false
    ) throws(CalendarExpressionError) -> [CalendarComponent] {
        if text == "*" && !fromEnd { return [] }
        var items: [CalendarComponent] = []
        var itemOffset = offset
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            items.append(try parseItem(item, offset: itemOffset, field: field, fromEnd: fromEnd))
            itemOffset += item.utf8.count + 1
        }
        // systemd reads `*` in seconds as `0/1`, and so prints a seconds list holding `0/1` as `*` (every whole
        // second, the list's other items included or not): `*:*:0/1,5` is `*-*-* *:*:*`.
        if field == .second && items.contains(CalendarComponent(start: 0, stop: nil, repetition: field.unit)) {
            return []
        }
        items.sort()
        var unique: [CalendarComponent] = []
        for item in items where unique.last != item { unique.append(item) }
        return unique
    }

    private static func parseItem(
        _ item: Substring, offset: Int, field: CalendarField, fromEnd: Bool
    ) throws(CalendarExpressionError) -> CalendarComponent {
        let invalid = CalendarExpressionError.invalidValue(offset: offset, token: String(item), field: field)
        var base = item
        var repetition = 0
        if let slash = item.firstIndex(of: "/") {
            base = item[..<slash]
            let text = item[item.index(after: slash)...]
            guard let value = number(text, field: field, isRepetition: true), value > 0 else { throw invalid }
            repetition = value
        }
        var startText = base
        var stopText: Substring?
        if let dots = base.range(of: "..") {
            startText = base[..<dots.lowerBound]
            stopText = base[dots.upperBound...]
        }
        let bounds = fromEnd ? 1...28 : field.bounds
        func value(_ text: Substring, at position: Int) throws(CalendarExpressionError) -> Int {
            guard let value = number(text, field: field, isRepetition: false) else { throw invalid }
            guard bounds.contains(value) else {
                throw .valueOutOfRange(offset: position, token: String(text), field: field)
            }
            return value
        }
        let start = try value(startText, at: offset)
        guard let stopText else {
            if repetition > 0 {
                // systemd refuses a repetition that cannot reach a second value.
                let second = fromEnd ? start - repetition : start + repetition
                guard bounds.contains(second) else { throw invalid }
            }
            return CalendarComponent(start: start, stop: nil, repetition: repetition)
        }
        let stopOffset = offset + item.utf8.distance(from: item.startIndex, to: stopText.startIndex)
        let stop = try value(stopText, at: stopOffset)
        guard start <= stop else { throw invalid }
        let step = repetition > 0 ? repetition : field.unit
        let last = start + (stop - start) / step * step
        if last == start {
            // systemd accepts `5..5` as `05` except for seconds, where it refuses a range of one value
            // unless it has a repetition (`59..59` is refused, `54..57/5` is `54`).
            guard field != .second || repetition > 0 else { throw invalid }
            return CalendarComponent(start: start, stop: nil, repetition: 0)
        }
        return CalendarComponent(start: start, stop: last, repetition: step)
    }

    /// A number of the field: digits, with up to six fractional digits for seconds (more are rounded to the
    /// microsecond, as systemd does); years of one or two digits are 2000–2069 (below 70) or 1970–1999.
    private static func number(_ text: Substring, field: CalendarField, isRepetition: Bool) -> Int? {
        let utf8 = Array(text.utf8)
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let point = utf8.firstIndex(of: UInt8(ascii: "."))
        let whole = utf8[..<(point ?? utf8.count)]
        guard !whole.isEmpty, whole.count <= 9, whole.allSatisfy(isDigit) else { return nil }
        var value = whole.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        if field == .year && !isRepetition && whole.count <= 2 { value += value < 70 ? 2000 : 1900 }
        guard field == .second else { return point == nil ? value : nil }
        value *= 1_000_000
        if let point {
            let fraction = utf8[(point + 1)...]
            guard !fraction.isEmpty, fraction.count <= 18, fraction.allSatisfy(isDigit) else { return nil }
            var micro = 0
            for (index, byte) in fraction.prefix(6).enumerated() {
                micro += Int(byte - UInt8(ascii: "0")) * [100_000, 10_000, 1000, 100, 10, 1][index]
            }
            if fraction.count > 6, fraction[fraction.startIndex + 6] >= UInt8(ascii: "5") { micro += 1 }
            value += micro
        }
        return value
    }
}
