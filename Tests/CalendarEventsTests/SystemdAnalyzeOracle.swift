import Foundation

/// Runs `systemd-analyze calendar` on this machine and reads its answers: the normalized form and the next
/// elapses (whole seconds since the epoch, read from the "(in UTC):" lines, or from the elapse lines themselves
/// when the process zone is UTC and systemd prints no "(in UTC):" line).
enum SystemdAnalyzeOracle {
    /// systemd's answer for one expression; nil normalized form when it refused the expression.
    struct Answer {
        var normalized: String
        var elapses: [Int]
    }

    /// What one run of `systemd-analyze calendar` said.
    struct Run {
        /// The answers for the expressions it accepted and evaluated, keyed by the expression's text.
        var answers: [String: Answer] = [:]
        /// Expressions it accepted but gave up on ("Infinite loop in calendar calculation", then "Failed to
        /// determine next elapse for 'X'"): a systemd 252 defect, not a refusal.
        var gaveUp: Set<String> = []
    }

    /// The path of `systemd-analyze`, or nil when it is not installed.
    static var path: String? {
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze", "/usr/local/bin/systemd-analyze"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Evaluates many expressions in one process with `TZ=zone`.
    ///
    /// systemd prints one block per accepted expression, in order ("Original form:" only when it differs from
    /// the normalized form), and "Failed to parse calendar specification 'X'" on standard error for each
    /// refused one; the blocks are matched to the accepted expressions in order.
    ///
    /// - Returns: The answers, and the expressions systemd gave up on.
    static func evaluate(
        _ expressions: [String], zone: String, base: Int, iterations: Int, executable: String
    ) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["calendar", "--iterations=\(iterations)", "--base-time=@\(base)"] + expressions
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = zone
        environment["LC_ALL"] = "C"
        environment["SYSTEMD_COLORS"] = "0"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is short (one line per refused expression); read standard output fully first.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorLines = String(decoding: errorData, as: UTF8.self).split(separator: "\n")
        func quoted(after prefix: String) -> Set<String> {
            Set(
                errorLines.compactMap { line -> String? in
                    guard line.hasPrefix(prefix), let end = line.range(of: "': ", options: .backwards) else {
                        return nil
                    }
                    return String(line[line.index(line.startIndex, offsetBy: prefix.count)..<end.lowerBound])
                })
        }
        let refused = quoted(after: "Failed to parse calendar specification '")
        var run = Run(gaveUp: quoted(after: "Failed to determine next elapse for '"))
        let failed = refused.union(run.gaveUp)
        var remaining = expressions.filter { !failed.contains($0) }[...]
        for block in parse(String(decoding: data, as: UTF8.self)) {
            // A block names its expression ("Original form:", else the normalized form is the text itself).
            let text = block.original ?? block.answer.normalized
            guard let position = remaining.firstIndex(of: text) else { continue }
            run.answers[text] = block.answer
            remaining = remaining[(position + 1)...]
        }
        return run
    }

    /// Reads the blocks `systemd-analyze calendar` prints, in order.
    static func parse(_ text: String) -> [(original: String?, answer: Answer)] {
        var answers: [(original: String?, answer: Answer)] = []
        var original: String?
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        lines.append("")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix("Original form: ") {
                original = String(line.dropFirst("Original form: ".count))
            } else if line.hasPrefix("Normalized form: ") {
                let normalized = String(line.dropFirst("Normalized form: ".count))
                answers.append((original, Answer(normalized: normalized, elapses: [])))
                original = nil
            } else if line.hasPrefix("Next elapse: ") || line.hasPrefix("Iter. #"), !answers.isEmpty {
                guard !line.hasSuffix("never") else { continue }
                var stamp = line
                if lines[index].hasPrefix("(in UTC): ") {
                    stamp = lines[index]
                    index += 1
                }
                if let seconds = utcSeconds(stamp) { answers[answers.count - 1].answer.elapses.append(seconds) }
            }
        }
        return answers
    }

    /// Seconds since the epoch of a line ending in `Www YYYY-MM-DD HH:MM:SS UTC`.
    static func utcSeconds(_ line: String) -> Int? {
        let words = line.split(separator: " ")
        guard words.count >= 4, words[words.count - 1] == "UTC" else { return nil }
        let date = words[words.count - 3].split(separator: "-").compactMap { Int($0) }
        let time = words[words.count - 2].split(separator: ":").compactMap { Int($0) }
        guard date.count == 3, time.count == 3 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (date[0], date[1], date[2])
        (components.hour, components.minute, components.second) = (time[0], time[1], time[2])
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(secondsFromGMT: 0) else { return nil }
        calendar.timeZone = utc
        return calendar.date(from: components).map { Int($0.timeIntervalSince1970) }
    }
}
