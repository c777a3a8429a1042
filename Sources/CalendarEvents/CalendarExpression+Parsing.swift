import Foundation

extension CalendarExpression {
    /// The shorthands of systemd.time(7) and the expressions they stand for.
    static let shorthands: [String: String] = [
        "minutely": "*-*-* *:*:00", "hourly": "*-*-* *:00:00", "daily": "*-*-* 00:00:00",
        "monthly": "*-*-01 00:00:00", "weekly": "Mon *-*-* 00:00:00", "yearly": "*-01-01 00:00:00",
        "annually": "*-01-01 00:00:00", "quarterly": "*-01,04,07,10-01 00:00:00",
        "semiannually": "*-01,07-01 00:00:00", "semi-annually": "*-01,07-01 00:00:00",
    ]

    /// The latest `@SECONDS` systemd 252 accepts: 2199-12-31T23:59:59Z (`@7258118400`, 2200-01-01, is
    /// refused), the end of the years the language has.
    static let latestEpochSeconds = 7_258_118_399

    /// Reads a calendar expression.
    ///
    /// The grammar is systemd.time(7)'s, with the limits systemd 252's `systemd-analyze calendar` applies (see
    /// ``CalendarField``): words are separated by single spaces (trailing spaces only after weekdays or a date, as
    /// systemd); weekday names are case-insensitive, three
    /// letters or full; a weekday range must run from Monday toward Sunday; `A/R` without an end needs a second
    /// value inside the field (`*:50/20` is refused); a repetition after `~` counts toward the month's end;
    /// `~*` is every day, as `-*` (systemd normalizes `*-*~*` to `*-*-*`). `@SECONDS` (digits, an optional
    /// `+`, up to 2199-12-31T23:59:59Z) is that instant: `YYYY-MM-DD HH:MM:SS UTC`; a zone after it is
    /// checked and then ignored, as systemd does (`@1796083200 Europe/Paris` is `2026-12-01 00:00:00 UTC`).
    ///
    /// - Parameter text: The expression, e.g. `Mon..Fri 07:00`, `*:0/15`, `*-*~01 Europe/Paris`, `weekly`.
    /// - Returns: The expression.
    /// - Throws: ``CalendarExpressionError``: ``CalendarExpressionError/empty``, or a case naming the offending
    ///   token's offset and what is allowed there.
    /// - Complexity: O(n) in the length of `text`.
    public static func parse(_ text: String) throws(CalendarExpressionError) -> CalendarExpression {
        if text.isEmpty { throw .empty }
        if text.hasPrefix("@") { return try parseEpoch(text) }
        // systemd accepts trailing spaces after an expression that ends with its weekdays or its date
        // (`Mon `, `*-*~* `), and refuses them after a time, a shorthand or a zone (`07:00 `, `daily `).
        var body = Substring(text)
        while body.hasSuffix(" ") { body = body.dropLast() }
        let trailingSpace = body.utf8.count < text.utf8.count
        if body.isEmpty { throw .unexpectedToken(offset: 0, token: " ") }
        var refusesTrailingSpace = false
        var words: [(text: Substring, offset: Int)] = []
        var offset = 0
        for piece in body.split(separator: " ", omittingEmptySubsequences: false) {
            if piece.isEmpty { throw .unexpectedToken(offset: offset, token: " ") }
            words.append((piece, offset))
            offset += piece.utf8.count + 1
        }
        var expression = CalendarExpression()
        var index = 0
        if let expansion = shorthands[words[0].text.lowercased()] {
            expression = try parseExpanded(expansion)
            index = 1
            refusesTrailingSpace = true
        } else {
            if let first = words[0].text.utf8.first, isLetter(first) {
                expression.weekdays = try parseWeekdays(words[0].text, offset: words[0].offset)
                index = 1
            }
            var hasDate = false
            var hasTime = false
            if index < words.count, !words[index].text.contains(":"), startsLikeNumber(words[index].text) {
                try expression.parseDate(words[index].text, offset: words[index].offset)
                hasDate = true
                index += 1
            }
            if index < words.count, words[index].text.contains(":") {
                try expression.parseTime(words[index].text, offset: words[index].offset)
                hasTime = true
                refusesTrailingSpace = true
                index += 1
            }
            if !hasDate && !hasTime && index == 0 {
                throw .unexpectedToken(offset: words[0].offset, token: String(words[0].text))
            }
        }
        if index < words.count, let first = words[index].text.utf8.first, isLetter(first) {
            try expression.parseZone(words[index].text, offset: words[index].offset)
            index += 1
            refusesTrailingSpace = true
        }
        if index < words.count { throw .unexpectedToken(offset: words[index].offset, token: String(words[index].text)) }
        if trailingSpace && refusesTrailingSpace { throw .unexpectedToken(offset: body.utf8.count, token: " ") }
        expression.computeMasks()
        return expression
    }

    /// `@SECONDS [ZONE]`: the instant as a UTC date and time; the zone, when present, must be one the
    /// language accepts but does not change the meaning.
    private static func parseEpoch(_ text: String) throws(CalendarExpressionError) -> CalendarExpression {
        let word = text.prefix { $0 != " " }
        var digits = word.dropFirst()
        if digits.hasPrefix("+") { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let seconds = Int(digits.drop { $0 == "0" }.isEmpty ? "0" : String(digits.drop { $0 == "0" })),
            seconds <= latestEpochSeconds
        else { throw .unexpectedToken(offset: 0, token: String(word)) }
        let days = seconds / 86_400
        let (year, month, day) = CivilDateTime.civil(fromDays: days)
        let time = seconds % 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fields = "\(year)-\(two(month))-\(two(day)) \(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))"
        let rest = text.dropFirst(word.count)
        if !rest.isEmpty {
            // The zone is read (so that a bad one is refused at its own offset) and then dropped.
            do {
                _ = try parse(fields + rest)
            } catch {
                throw error.shifted(by: word.utf8.count - fields.utf8.count)
            }
        }
        return try parse(fields + " UTC")
    }

    /// A shorthand's expansion, which is valid by construction.
    private static func parseExpanded(_ text: String) throws(CalendarExpressionError) -> CalendarExpression {
        try parse(text)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func startsLikeNumber(_ word: Substring) -> Bool {
        guard let first = word.utf8.first else { return false }
        return first == UInt8(ascii: "*") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    }

    // MARK: Weekdays

    private static let weekdayWords: [String: Int] = [
        "mon": 0, "monday": 0, "tue": 1, "tuesday": 1, "wed": 2, "wednesday": 2, "thu": 3, "thursday": 3,
        "fri": 4, "friday": 4, "sat": 5, "saturday": 5, "sun": 6, "sunday": 6,
    ]

    private static func parseWeekdays(_ word: Substring, offset: Int) throws(CalendarExpressionError) -> UInt8 {
        var mask: UInt8 = 0
        var itemOffset = offset
        // systemd.time(7) writes `Wed, 17:48`: one comma may end the weekday list.
        let list = word.count > 1 && word.hasSuffix(",") ? word.dropLast() : word
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            defer { itemOffset += item.utf8.count + 1 }
            let bounds: [Substring]
            if let dots = item.range(of: "..") {
                bounds = [item[..<dots.lowerBound], item[dots.upperBound...]]
            } else {
                bounds = item.split(separator: "-", omittingEmptySubsequences: false)
            }
            let numbers = bounds.map { weekdayWords[$0.lowercased()] }
            guard (1...2).contains(numbers.count), let first = numbers[0], let last = numbers[numbers.count - 1],
                first <= last
            else { throw .invalidWeekday(offset: itemOffset, token: String(item)) }
            for day in first...last { mask |= 1 << day }
        }
        return mask
    }

    // MARK: Date and time

    private mutating func parseDate(_ word: Substring, offset: Int) throws(CalendarExpressionError) {
        var text = word
        var dayFromEnd = false
        var parts: [(Substring, Int)] = []
        var position = offset
        if let tilde = word.firstIndex(of: "~") {
            // `~*` is every day counted from the end, which is every day: systemd reads it as `-*`.
            dayFromEnd = word[word.index(after: tilde)...] != "*"
            text = word[..<tilde]
        }
        for part in text.split(separator: "-", omittingEmptySubsequences: false) {
            parts.append((part, position))
            position += part.utf8.count + 1
        }
        if let tilde = word.firstIndex(of: "~") {
            let day = word[word.index(after: tilde)...]
            parts.append((day, offset + word.utf8.distance(from: word.startIndex, to: tilde) + 1))
        }
        guard parts.count == 2 || parts.count == 3, !(dayFromEnd && parts.last?.0.contains("~") == true) else {
            throw .invalidDate(offset: offset, token: String(word))
        }
        if parts.count == 3 { years = try Self.parseChain(parts[0].0, offset: parts[0].1, field: .year) }
        months = try Self.parseChain(parts[parts.count - 2].0, offset: parts[parts.count - 2].1, field: .month)
        isDayFromEnd = dayFromEnd
        let day = parts[parts.count - 1]
        days = try Self.parseChain(day.0, offset: day.1, field: .day, fromEnd: dayFromEnd)
    }

    private mutating func parseTime(_ word: Substring, offset: Int) throws(CalendarExpressionError) {
        var parts: [(Substring, Int)] = []
        var position = offset
        for part in word.split(separator: ":", omittingEmptySubsequences: false) {
            parts.append((part, position))
            position += part.utf8.count + 1
        }
        guard parts.count == 2 || parts.count == 3 else { throw .invalidTime(offset: offset, token: String(word)) }
        hours = try Self.parseChain(parts[0].0, offset: parts[0].1, field: .hour)
        minutes = try Self.parseChain(parts[1].0, offset: parts[1].1, field: .minute)
        if parts.count == 3 {
            seconds = try Self.parseChain(parts[2].0, offset: parts[2].1, field: .second)
        } else {
            seconds = [CalendarComponent(start: 0, stop: nil, repetition: 0)]
        }
    }

    private mutating func parseZone(_ word: Substring, offset: Int) throws(CalendarExpressionError) {
        if word.lowercased() == "utc" {
            timeZone = TimeZone(secondsFromGMT: 0)
            timeZoneName = "UTC"
            return
        }
        let name = String(word)
        // Foundation's TimeZone(identifier:) traps on some GMT offsets (`UTC-05:-0`, `GMT+0..\0` + `5`,
        // found by the calendar fuzz target). No IANA name has a `:`, and an offset name (`GMT+…`,
        // `UTC-…`) is accepted only when it is a known zone anyway: such names never reach Foundation.
        let isOffsetName =
            (name.hasPrefix("GMT+") || name.hasPrefix("GMT-") || name.hasPrefix("UTC+") || name.hasPrefix("UTC-"))
            && !Self.knownZones.contains(name)
        guard !name.contains(":"), !isOffsetName, let zone = TimeZone(identifier: name),
            zone.identifier == name || Self.knownZones.contains(name)
        else {
            throw .unknownTimeZone(offset: offset, token: name)
        }
        timeZone = zone
        timeZoneName = name
    }

    private static let knownZones = Set(TimeZone.knownTimeZoneIdentifiers)
}
