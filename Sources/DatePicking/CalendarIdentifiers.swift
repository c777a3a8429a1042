import Foundation

/// Maps calendar names to Foundation's `Calendar.Identifier` and back.
///
/// `Calendar.Identifier` has no public string initialiser on Linux, so the names are listed here: the CLDR
/// names (`islamic-umalqura`) and the Swift case names (`islamicUmmAlQura`) are both accepted.
enum CalendarIdentifiers {
    static let table: [(name: String, identifier: Calendar.Identifier)] = [
        ("gregorian", .gregorian),
        ("buddhist", .buddhist),
        ("chinese", .chinese),
        ("coptic", .coptic),
        ("ethiopic", .ethiopicAmeteMihret),
        ("ethiopic-amete-alem", .ethiopicAmeteAlem),
        ("hebrew", .hebrew),
        ("iso8601", .iso8601),
        ("indian", .indian),
        ("islamic", .islamic),
        ("islamic-civil", .islamicCivil),
        ("islamic-tbla", .islamicTabular),
        ("islamic-umalqura", .islamicUmmAlQura),
        ("japanese", .japanese),
        ("persian", .persian),
        ("roc", .republicOfChina),
    ]

    static let aliases: [String: Calendar.Identifier] = [
        "ethiopicAmeteMihret": .ethiopicAmeteMihret,
        "ethiopicAmeteAlem": .ethiopicAmeteAlem,
        "islamicCivil": .islamicCivil,
        "islamicTabular": .islamicTabular,
        "islamicUmmAlQura": .islamicUmmAlQura,
        "republicOfChina": .republicOfChina,
    ]

    static var names: [String] { table.map(\.name) }

    static func identifier(named name: String) -> Calendar.Identifier? {
        if let entry = table.first(where: { $0.name == name }) { return entry.identifier }
        return aliases[name]
    }

    static func name(of identifier: Calendar.Identifier) -> String {
        table.first(where: { $0.identifier == identifier })?.name ?? "\(identifier)"
    }

    /// Builds a calendar without reading the system time zone or locale: both are set explicitly.
    static func calendar(_ identifier: Calendar.Identifier, timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: identifier)
        calendar.timeZone = timeZone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }
}
