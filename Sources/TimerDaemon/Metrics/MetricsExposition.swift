import Countdown

/// Writes the Prometheus text exposition format, version 0.0.4 (the Prometheus documentation,
/// "Exposition formats"): per metric family a `# HELP` and a `# TYPE` line, then its samples,
/// `name{label="value",…} value`, one per line, each line ending in `\n`.
///
/// Label values escape `\`, `"` and newline as `\\`, `\"` and `\n`; help texts escape `\` and
/// newline. Numbers are written as Go's `strconv.FormatFloat(v, 'g', -1, 64)` writes them, as
/// the Prometheus client libraries do: integral values without a fraction (`3`, not `3.0`),
/// others in the shortest form that reads back exactly (`0.0025`, `2.5e-05`), and `+Inf`.
struct MetricsExposition {
    /// What a family's samples mean (`# TYPE`).
    enum Kind: String {
        /// A value that goes up and down.
        case gauge
        /// A count that only grows (its name ends in `_total`).
        case counter
        /// Cumulative buckets with `_bucket`, `_sum` and `_count` samples.
        case histogram
    }

    /// The text written so far.
    private(set) var text = ""

    /// Starts a family: its `# HELP` and `# TYPE` lines.
    ///
    /// - Parameters:
    ///   - name: the metric's name (`timerd_timers`).
    ///   - kind: its type.
    ///   - help: one sentence; its unit if it has one.
    mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// Writes one sample without labels.
    ///
    /// - Parameters:
    ///   - name: the sample's name.
    ///   - value: its value.
    mutating func sample(_ name: String, _ value: Double) {
        sample(name, labels: [], value)
    }

    /// Writes one sample.
    ///
    /// - Parameters:
    ///   - name: the sample's name (the family's, or with `_bucket`, `_sum`, `_count`).
    ///   - labels: its labels in order, values unescaped.
    ///   - value: its value.
    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        sample(name, labels: labels.map { (key: $0.key, value: $0.value) }, value)
    }

    /// Writes one sample with labels given as an array.
    ///
    /// - Parameters:
    ///   - name: the sample's name.
    ///   - labels: its labels in order, values unescaped.
    ///   - value: its value.
    mutating func sample(_ name: String, labels: [(key: String, value: String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (index, label) in labels.enumerated() {
                if index > 0 { text += "," }
                text += "\(label.key)=\"\(Self.escapedLabelValue(label.value))\""
            }
            text += "}"
        }
        text += " \(Self.number(value))\n"
    }

    /// Writes a histogram's samples: one `_bucket` per bound and `+Inf`, then `_sum` and `_count`.
    ///
    /// - Parameters:
    ///   - name: the family's name (the samples add `_bucket`, `_sum`, `_count`).
    ///   - labels: labels every sample carries before `le`.
    ///   - histogram: the counts.
    /// - Complexity: O(b) for b bounds.
    mutating func histogram(
        _ name: String, labels: [(key: String, value: String)] = [], _ histogram: LatencyHistogram
    ) {
        for (bound, count) in zip(histogram.upperBounds, histogram.cumulativeCounts) {
            sample(name + "_bucket", labels: labels + [("le", Self.number(bound))], Double(count))
        }
        sample(name + "_bucket", labels: labels + [("le", "+Inf")], Double(histogram.count))
        sample(name + "_sum", labels: labels, histogram.sum)
        sample(name + "_count", labels: labels, Double(histogram.count))
    }

    /// `value` as Go's `strconv.FormatFloat(value, 'g', -1, 64)` writes it: `3`, `0.25`,
    /// `2.5e-05`, `1e+06`, `+Inf`, `-Inf`, `NaN`.
    ///
    /// - Parameter value: the number.
    /// - Returns: its text.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        // Integral values as Go writes them below 1e21 (no fraction); Int64 holds them up to 9e18.
        if value == value.rounded(), abs(value) < 9e18 { return String(Int64(value)) }
        let text = "\(value)"  // Swift's shortest round-trip digits: "0.0025", "2.5e-05", "1e+25"
        guard let exponent = text.firstIndex(of: "e") else { return text }
        // Go writes at least two exponent digits with a sign: 1e-05, 1e+21.
        let mantissa = text[..<exponent]
        var digits = text[text.index(after: exponent)...]
        var sign = "+"
        if digits.first == "-" || digits.first == "+" {
            sign = digits.first == "-" ? "-" : "+"
            digits = digits.dropFirst()
        }
        return "\(mantissa)e\(sign)\(digits.count < 2 ? "0" + digits : String(digits))"
    }

    /// A label value with `\`, `"` and newline escaped (scalar by scalar: a CR-LF pair is one
    /// `Character` in Swift, and its LF must be escaped too).
    static func escapedLabelValue(_ value: String) -> String {
        escaped(value, quotes: true)
    }

    /// A help text with `\` and newline escaped.
    static func escapedHelp(_ help: String) -> String {
        escaped(help, quotes: false)
    }

    /// `text` with `\` and newline escaped, and `"` too when `quotes`.
    private static func escaped(_ text: String, quotes: Bool) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || (quotes && $0 == 0x22) }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\"" where quotes: result.append(contentsOf: "\\\"".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
