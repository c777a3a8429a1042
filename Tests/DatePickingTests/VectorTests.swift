import Foundation
import Testing

@testable import DatePicking

/// Runs every vector of `vectors/datepicker.json` (schema 1, described in `vectors/README.md`).
@Suite("Shared test vectors")
struct VectorTests {
    /// Vectors that cannot pass, each with the rule it contradicts. The test checks they still fail, so a fix
    /// (or a changed vector) shows up here instead of being silently skipped.
    static let knownDeviations: [String: String] = [:]

    @Test("Every vector passes, except the listed known deviations")
    func allVectors() throws {
        let (url, data) = try Self.loadVectorFile()
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["schema"] as? Int == 1)
        let defaults = try #require(root["defaults"] as? [String: Any])
        let vectors = try #require(root["vectors"] as? [[String: Any]])
        var passed = 0
        var ids: Set<String> = []
        for vector in vectors {
            let id = vector["id"] as? String ?? "?"
            ids.insert(id)
            let failures = VectorRunner(defaults: defaults, vector: vector).run()
            if let reason = Self.knownDeviations[id] {
                #expect(!failures.isEmpty, "vector \(id) is listed as a known deviation (\(reason)) but now passes")
                continue
            }
            for failure in failures {
                Issue.record("vector \(id): \(failure)")
            }
            if failures.isEmpty { passed += 1 }
        }
        for id in Self.knownDeviations.keys {
            #expect(ids.contains(id), "known deviation \(id) is no longer in the vector file")
        }
        print("DatePicking vectors: ran \(vectors.count) vectors from \(url.path)")
        #expect(passed + Self.knownDeviations.count == vectors.count)
    }

    /// `DATEPICKING_VECTORS` (a file to try instead, for a new set of vectors), else the committed file
    /// `Resources/datepicker.json`: nothing outside the repository is read.
    static func loadVectorFile() throws -> (URL, Data) {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["DATEPICKING_VECTORS"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        candidates.append(testsDirectory.appendingPathComponent("Resources/datepicker.json"))
        for candidate in candidates {
            if let data = try? Data(contentsOf: candidate) { return (candidate.standardizedFileURL, data) }
        }
        throw VectorFileMissing(searched: candidates.map(\.path))
    }

    struct VectorFileMissing: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "no vector file found; searched " + searched.joined(separator: ", ") }
    }
}

/// Builds a picker for one vector, runs its steps and collects every failed expectation.
struct VectorRunner {
    var defaults: [String: Any]
    var vector: [String: Any]

    func run() -> [String] {
        var failures: [String] = []
        var config = defaults
        for (key, value) in vector["config"] as? [String: Any] ?? [:] { config[key] = value }
        var picker: DatePicker
        do {
            picker = try makePicker(config)
        } catch {
            return ["cannot build the picker: \(error)"]
        }
        let steps = vector["steps"] as? [[String: Any]] ?? []
        for (index, step) in steps.enumerated() {
            let label = "step \(index + 1) (\(step["op"] as? String ?? "?"))"
            do {
                let htmlValue = try apply(step, to: &picker)
                if let expect = step["expect"] as? [String: Any] {
                    failures += check(expect, picker: picker, htmlValue: htmlValue).map { "\(label): \($0)" }
                }
            } catch {
                failures.append("\(label): \(error)")
            }
        }
        return failures
    }

    struct HarnessError: Error, CustomStringConvertible {
        var description: String
    }

    func instant(_ value: Any?) throws -> Date? {
        guard let text = value as? String else { return nil }
        guard let date = Instants.parse(text) else { throw HarnessError(description: "bad instant \(text)") }
        return date
    }

    func makePicker(_ config: [String: Any]) throws -> DatePicker {
        let now = try instant(config["now"]) ?? Date(timeIntervalSince1970: 0)
        let systemLocale = config["systemLocale"] as? String ?? "en_US"
        let hourCycle = (config["hourCycle"] as? String).flatMap(HourCycle.init(rawValue:))
        let environment = try DatePickerEnvironment(
            now: now, localeIdentifier: systemLocale, timeZoneIdentifier: "UTC", hourCycle: hourCycle)
        var picker = DatePicker(environment: environment)
        if let name = config["mode"] as? String {
            guard let mode = DatePickerMode(name: name) else { throw HarnessError(description: "bad mode \(name)") }
            picker.datePickerMode = mode
        }
        try picker.setCalendar(identifier: config["calendar"] as? String)
        try picker.setLocale(identifier: config["locale"] as? String)
        try picker.setTimeZone(identifier: config["timeZone"] as? String)
        if let interval = config["minuteInterval"] as? Int { picker.minuteInterval = interval }
        if let rounds = config["roundsToMinuteInterval"] as? Bool { picker.roundsToMinuteInterval = rounds }
        picker.minimumDate = try instant(config["minimumDate"])
        picker.maximumDate = try instant(config["maximumDate"])
        return picker
    }

    /// Runs one operation; returns the value string of an `htmlStep`.
    func apply(_ step: [String: Any], to picker: inout DatePicker) throws -> String? {
        let value = step["value"]
        switch step["op"] as? String ?? "" {
        case "check":
            break
        case "setDate":
            picker.date = try instant(value) ?? picker.date
        case "setMinimumDate":
            picker.minimumDate = try instant(value)
        case "setMaximumDate":
            picker.maximumDate = try instant(value)
        case "setMinuteInterval":
            picker.minuteInterval = value as? Int ?? 0
        case "setRoundsToMinuteInterval":
            picker.roundsToMinuteInterval = value as? Bool ?? true
        case "setCountDownDuration":
            picker.countDownDuration = (value as? NSNumber)?.doubleValue ?? .nan
        case "setMode":
            let name = value as? String ?? ""
            guard let mode = DatePickerMode(name: name) else { throw HarnessError(description: "bad mode \(name)") }
            picker.datePickerMode = mode
        case "setTimeZone":
            try picker.setTimeZone(identifier: value as? String)
        case "setLocale":
            try picker.setLocale(identifier: value as? String)
        case "setCalendar":
            try picker.setCalendar(identifier: value as? String)
        case "spin":
            let name = step["wheel"] as? String ?? ""
            guard let kind = WheelKind(rawValue: name) else { throw HarnessError(description: "bad wheel \(name)") }
            picker.spin(kind, by: step["by"] as? Int ?? 0)
        case "htmlStep":
            let type = step["type"] as? String ?? ""
            guard let inputType = HTMLInputStepping.InputType(rawValue: type),
                let method = HTMLInputStepping.Method(rawValue: step["method"] as? String ?? "")
            else { throw HarnessError(description: "bad htmlStep \(step)") }
            let input = HTMLInputStepping(
                type: inputType, value: value as? String ?? "", min: step["min"] as? String,
                max: step["max"] as? String, step: step["step"] as? String)
            return try input.run(method, n: step["n"] as? Int ?? 1)
        case let other:
            throw HarnessError(description: "unknown op \(other)")
        }
        return nil
    }

    func check(_ expect: [String: Any], picker: DatePicker, htmlValue: String?) -> [String] {
        var failures: [String] = []
        let zone = picker.effectiveCalendar.timeZone
        if let text = expect["date"] as? String {
            if let wanted = Instants.parse(text) {
                let got = picker.date
                if abs(got.timeIntervalSince(wanted)) >= 0.001 {
                    failures.append("date is \(Instants.format(got)), expected \(text)")
                }
            } else {
                failures.append("bad expected instant \(text)")
            }
        }
        if let wanted = expect["countDownDuration"] as? Int, Int(picker.countDownDuration) != wanted {
            failures.append("countDownDuration is \(picker.countDownDuration), expected \(wanted)")
        }
        if let wanted = expect["minuteInterval"] as? Int, picker.minuteInterval != wanted {
            failures.append("minuteInterval is \(picker.minuteInterval), expected \(wanted)")
        }
        if let wanted = expect["mode"] as? String, picker.datePickerMode.description != wanted {
            failures.append("mode is \(picker.datePickerMode), expected \(wanted)")
        }
        if let wanted = expect["roundsToMinuteInterval"] as? Bool, picker.roundsToMinuteInterval != wanted {
            failures.append("roundsToMinuteInterval is \(picker.roundsToMinuteInterval), expected \(wanted)")
        }
        if let wanted = expect["valueChangedCount"] as? Int, picker.valueChangedCount != wanted {
            failures.append("valueChangedCount is \(picker.valueChangedCount), expected \(wanted)")
        }
        if let wanted = expect["value"] as? String, htmlValue != wanted {
            failures.append("html value is \(htmlValue ?? "nil"), expected \(wanted)")
        }
        let wheels = picker.wheels
        if let wanted = expect["wheels"] as? [[String: Any]] {
            failures += checkWheels(wanted, wheels)
        }
        if let wanted = expect["visualWheels"] as? [String], picker.visualWheelOrder.map(\.rawValue) != wanted {
            failures.append("visualWheels are \(picker.visualWheelOrder.map(\.rawValue)), expected \(wanted)")
        }
        for (name, value) in expect["selected"] as? [String: Any] ?? [:] {
            guard let wheel = wheels.first(where: { $0.kind.rawValue == name }) else {
                failures.append("no \(name) wheel selected")
                continue
            }
            let shown = Self.text(wheel.selectedValue, zone: zone)
            if shown != "\(value)" { failures.append("selected \(name) is \(shown), expected \(value)") }
        }
        for (key, wantEnabled) in [("disabled", false), ("enabled", true)] {
            for (name, values) in expect[key] as? [String: [Any]] ?? [:] {
                guard let kind = WheelKind(rawValue: name) else {
                    failures.append("bad wheel \(name)")
                    continue
                }
                for value in values {
                    guard let rowValue = Self.wheelValue(value, zone: zone) else {
                        failures.append("bad row value \(value)")
                        continue
                    }
                    if picker.isEnabled(rowValue, in: kind) != wantEnabled {
                        failures.append("\(name) row \(value) should be \(key)")
                    }
                }
            }
        }
        return failures
    }

    func checkWheels(_ wanted: [[String: Any]], _ wheels: [Wheel]) -> [String] {
        let kinds = wanted.compactMap { $0["kind"] as? String }
        guard kinds == wheels.map(\.kind.rawValue) else {
            return ["wheels are \(wheels.map(\.kind.rawValue)), expected \(kinds)"]
        }
        var failures: [String] = []
        for (entry, wheel) in zip(wanted, wheels) {
            let name = wheel.kind.rawValue
            if let first = entry["first"] as? Int, wheel.firstValue.number != first {
                failures.append("\(name) first is \(wheel.firstValue), expected \(first)")
            }
            if let last = entry["last"] as? Int, wheel.lastValue.number != last {
                failures.append("\(name) last is \(wheel.lastValue), expected \(last)")
            }
            if let count = entry["count"] as? Int, wheel.rowCount != count {
                failures.append("\(name) has \(wheel.rowCount) rows, expected \(count)")
            }
            if let wraps = entry["wraps"] as? Bool, wheel.wraps != wraps {
                failures.append("\(name) wraps is \(wheel.wraps), expected \(wraps)")
            }
            if let values = entry["values"] as? [Any] {
                let shown = (wheel.values ?? []).map { Self.text($0, zone: .gmt) }
                if shown != values.map({ "\($0)" }) {
                    failures.append("\(name) values are \(shown), expected \(values)")
                }
            }
        }
        return failures
    }

    static func text(_ value: WheelValue, zone: TimeZone) -> String {
        switch value {
        case .number(let number): return String(number)
        case .meridiem(let meridiem): return meridiem.rawValue
        case .day(let date): return Instants.gregorianDay(date, in: zone)
        }
    }

    static func wheelValue(_ value: Any, zone: TimeZone) -> WheelValue? {
        if let number = value as? Int { return .number(number) }
        guard let text = value as? String else { return nil }
        if let meridiem = WheelValue.Meridiem(rawValue: text) { return .meridiem(meridiem) }
        return Instants.noon(ofGregorianDay: text, in: zone).map(WheelValue.day)
    }
}
