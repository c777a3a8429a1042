import TestSupport

/// Draws random calendar expressions in systemd.time(7) syntax for the differential test: weekday lists,
/// dates with `*`, values, ranges, repetitions and `~`, times with fractions, shorthands and trailing zones,
/// biased toward the small hours so that daylight-saving gaps and overlaps are hit often. About one in forty
/// is out of range, so that rejection is compared too. A day after `~` is one item and never `~A/R`: systemd
/// 252 refuses some `~` lists with ranges the library accepts (`*-*~5,25..27`) and misses days of `~A/R` after
/// a month change (`*-*~21/18` from 2026-12-31 skips 2027-01-11). Seconds have fractional values but no
/// fractional repetition: after one, systemd 252 skips the first value of the next minute (`*:*:0/9.5` from
/// 13:08:57 gives 13:09:09.5, not 13:09:00). docs/calendar.md lists these.
struct RandomCalendarExpression {
    var generator: SplitMix64

    static let zones = [
        "UTC", "Europe/Paris", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Apia",
        "Asia/Kolkata",
    ]
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays = ["monday", "Tuesday", "WED", "thursday", "Friday", "sat", "SUNDAY"]
    private static let shorthands = [
        "minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually", "quarterly", "semiannually",
    ]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    mutating func next() -> String {
        if chance(8) {
            let shorthand = Self.shorthands[int(0...Self.shorthands.count - 1)]
            return chance(40) ? shorthand + " " + Self.zones[int(0...Self.zones.count - 1)] : shorthand
        }
        var words: [String] = []
        if chance(35) { words.append(weekdayList()) }
        if chance(55) || words.isEmpty {
            let year = chance(80) ? "*" : field(lo: 2026, hi: 2032, maxItems: 2)
            let month = chance(55) ? "*" : field(lo: 1, hi: 12, maxItems: 3)
            if chance(15) {
                words.append(
                    (chance(50) ? year + "-" : "") + month + "~" + field(lo: 1, hi: 28, maxItems: 1, fromEnd: true))
            } else {
                let day = chance(50) ? "*" : field(lo: 1, hi: 31, maxItems: 3)
                words.append((chance(70) ? year + "-" : "") + month + "-" + day)
            }
        }
        if chance(85) {
            let hour = chance(35) ? smallHours() : (chance(25) ? "*" : field(lo: 0, hi: 23, maxItems: 3))
            let minute = chance(20) ? "*" : field(lo: 0, hi: 59, maxItems: 3)
            var time = hour + ":" + minute
            if chance(40) { time += ":" + seconds() }
            words.append(time)
        }
        if chance(25) { words.append(Self.zones[int(0...Self.zones.count - 1)]) }
        return words.joined(separator: " ")
    }

    /// Hours around the usual 02:00/03:00 transitions (and Lord Howe's half hour).
    private mutating func smallHours() -> String {
        ["2", "02", "1..3", "2,3", "0/2", "1,2", "3"][int(0...6)]
    }

    private mutating func weekdayList() -> String {
        var items: [String] = []
        for _ in 0..<int(1...2) {
            let first = int(0...6)
            let name = { (day: Int, long: Bool) in long ? Self.longWeekdays[day] : Self.weekdays[day] }
            if chance(40) {
                let last = int(first...6)
                items.append(name(first, chance(20)) + (chance(70) ? ".." : "-") + name(last, chance(20)))
            } else {
                items.append(name(first, chance(20)))
            }
        }
        return items.joined(separator: ",")
    }

    private mutating func seconds() -> String {
        switch int(0...9) {
        case 0: return "*"
        case 1: return String(int(0...59)) + "." + String(int(1...9))
        case 2: return String(int(0...20)) + "/" + String(int(1...19))
        default: return field(lo: 0, hi: 59, maxItems: 2)
        }
    }

    private mutating func field(lo: Int, hi: Int, maxItems: Int, fromEnd: Bool = false) -> String {
        var items: [String] = []
        for _ in 0..<int(1...maxItems) { items.append(item(lo: lo, hi: hi, fromEnd: fromEnd)) }
        return items.joined(separator: ",")
    }

    private mutating func item(lo: Int, hi: Int, fromEnd: Bool) -> String {
        if chance(2) { return String(hi + int(1...3)) }  // out of range: both must refuse it
        let padsWithZero = chance(50)
        let pad = { (value: Int) in value < 10 && padsWithZero ? "0\(value)" : "\(value)" }
        switch int(0...9) {
        case 0...4:
            return pad(int(lo...hi))
        case 5, 6:
            let start = int(lo...hi)
            return pad(start) + ".." + pad(int(start...min(hi, start + 12)))
        case 7, 8:
            if fromEnd {
                // Not `~A/R`: systemd 252 misses some of its days after a month change (docs/calendar.md).
                let start = int(lo...hi - 1)
                return pad(start) + ".." + pad(int(start + 1...hi)) + "/" + String(int(1...3))
            }
            let start = int(lo...hi - 1)
            return pad(start) + "/" + String(int(1...max(1, min(hi - start, 20))))
        default:
            let start = int(lo...hi)
            let stop = int(start...hi)
            return pad(start) + ".." + pad(stop) + "/" + String(int(1...5))
        }
    }
}
