import DatePicking
import Foundation
import Glibc

/// `timerpick`'s entry point: parse, check the terminal, run the key loop, print the result.
enum PickCommand {
    /// Runs the picker.
    ///
    /// - Parameters:
    ///   - arguments: The arguments without the program name.
    ///   - now: The current instant.
    /// - Returns: The exit status: 0 picked (the result is on standard output), 1 cancelled, 64 usage error,
    ///   69 no terminal, 70 a system call failed. Signals exit with 128 + N from their handler.
    static func run(_ arguments: [String], now: Date) -> Int32 {
        let options: PickOptions
        let picker: DatePicker
        do throws(PickOptions.UsageError) {
            options = try PickOptions.parse(arguments)
            if options.isHelp {
                Terminal.write(1, PickOptions.help)
                return 0
            }
            if options.isVersion {
                Terminal.write(1, "timerpick 1.0\n")
                return 0
            }
            let zone = PickTimeZone.current()
            if let warning = zone.warning { Terminal.write(2, "timerctl pick: warning: \(warning)\n") }
            picker = try options.makePicker(now: now, timeZone: zone.zone, systemLocale: systemLocale())
            if PickerScreen.reversedRangeNote(picker) != nil {
                Terminal.write(
                    2,
                    "timerctl pick: warning: --min is after --max: an inverted range is ignored, so neither"
                        + " applies\n")
            }
        } catch {
            Terminal.write(
                2, "Error: \(error)\nSee 'timerctl pick --help'.\n")
            return 64
        }
        let descriptors: Terminal.Descriptors
        do throws(Terminal.Failure) {
            descriptors = try Terminal.open()
            try Terminal.enterRawMode(descriptors)
        } catch {
            Terminal.write(2, "Error: \(error)\n")
            if case .system = error { return 70 }
            return 69
        }
        let screen = PickerScreen(usesColor: usesColor())
        var state = PickerState(picker: picker)
        let status = loop(&state, screen: screen, descriptors: descriptors)
        Terminal.restore()
        if descriptors.output != 1 { close(descriptors.output) }
        if status == 0 { Terminal.write(1, state.result + "\n") }
        return status
    }

    private static func loop(_ state: inout PickerState, screen: PickerScreen, descriptors: Terminal.Descriptors)
        -> Int32
    {
        var showsWheels = draw(state, screen: screen, descriptors: descriptors)
        while true {
            let input: Terminal.Input
            do throws(Terminal.Failure) {
                input = try Terminal.next(descriptors)
            } catch {
                Terminal.restore()
                Terminal.write(2, "Error: \(error)\n")
                return 70
            }
            switch input {
            case .endOfInput:
                return 1
            case .resized:
                break
            case .bytes(let bytes):
                for key in Key.decode(bytes) {
                    // A "too narrow" or "too short" message is on screen: only Esc acts, nothing changes unseen.
                    guard showsWheels || key == .escape else { continue }
                    switch state.handle(key) {
                    case .accept: return 0
                    case .cancel: return 1
                    case .redraw: break
                    }
                }
            }
            showsWheels = draw(state, screen: screen, descriptors: descriptors)
        }
    }

    /// Draws one frame; returns whether it shows the wheels.
    private static func draw(_ state: PickerState, screen: PickerScreen, descriptors: Terminal.Descriptors) -> Bool {
        let size = Terminal.size(descriptors)
        let frame = screen.frame(for: state, columns: size.columns, rows: size.rows)
        // Home, clear, then the lines; CR LF because raw mode turns off output processing.
        Terminal.write(descriptors.output, "\u{1B}[H\u{1B}[2J" + frame.lines.joined(separator: "\r\n"))
        return frame.showsWheels
    }

    /// "Now": `TIMERPICK_NOW` (an ISO 8601 instant, so tests can fix the clock) or the system clock, with its
    /// seconds: `--min now` is this instant; the wheels open at it cut to the whole minute
    /// (``PickOptions/makePicker(now:timeZone:systemLocale:)``).
    static func now(environment: [String: String]) -> Date {
        environment["TIMERPICK_NOW"].flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date()
    }

    /// The locale of `LC_ALL`, `LC_TIME` or `LANG` (POSIX order), else en_US.
    static func systemLocale() -> Locale {
        let environment = ProcessInfo.processInfo.environment
        for name in ["LC_ALL", "LC_TIME", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let identifier = String(value.prefix { $0 != "." && $0 != "@" })
            if identifier == "C" || identifier == "POSIX" { break }
            if let locale = try? DatePicker.locale(identifier: identifier) { return locale }
        }
        return Locale(identifier: "en_US")
    }

    /// Attributes unless `NO_COLOR` is set (no-color.org) or `TERM` is `dumb`.
    static func usesColor() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["NO_COLOR"].map(\.isEmpty) ?? true && environment["TERM"] != "dumb"
    }
}
