import Glibc
import TimerSystem

/// The terminal the picker draws on: raw mode, the alternate screen, window size and the signals that must
/// restore it, through `TerminalMode` (TimerSystem), which `timerctl watch` shares. Every system call of the
/// picker is in this file or there.
///
/// Raw mode is undone on every way out: ``restore()`` after Enter, Escape or an error, and the handlers for
/// SIGINT, SIGTERM and SIGHUP, which restore the saved `termios` and the screen with async-signal-safe calls only
/// (`tcsetattr`, `write`, `_exit`; POSIX.1-2017 §2.4.3) and exit with 128 + the signal number. SIGWINCH only sets
/// a flag that the event loop reads after `poll` is interrupted. Ctrl-Z gives the terminal back before the
/// process stops, and SIGCONT (`fg`) takes it again and sets the same flag, so the picker redraws.
enum Terminal {
    /// Why the terminal cannot be used.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// Standard input is not a terminal, so there are no keys to read.
        case inputNotTerminal
        /// Neither standard output nor /dev/tty is a terminal to draw on.
        case noTerminalToDrawOn
        /// A system call failed: its name and `errno`.
        case system(String, Int32)

        var description: String {
            switch self {
            case .inputNotTerminal:
                return "standard input is not a terminal: the picker reads keys from it; run it in a terminal"
            case .noTerminalToDrawOn:
                return "no terminal to draw on: standard output is not a terminal and /dev/tty cannot be opened"
            case .system(let call, let code):
                return "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    /// The descriptors the picker uses: keys from `input`, the screen on `output`.
    struct Descriptors {
        var input: Int32
        var output: Int32
    }

    /// Checks standard input and finds a terminal to draw on: standard output when it is one, else /dev/tty
    /// (so that `$(timerctl pick)` captures only the result while the screen goes to the terminal).
    ///
    /// - Throws: ``Failure/inputNotTerminal`` or ``Failure/noTerminalToDrawOn``.
    static func open() throws(Failure) -> Descriptors {
        guard isatty(0) == 1 else { throw .inputNotTerminal }
        if isatty(1) == 1 { return Descriptors(input: 0, output: 1) }
        let tty = Glibc.open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { throw .noTerminalToDrawOn }
        guard isatty(tty) == 1 else {
            close(tty)
            throw .noTerminalToDrawOn
        }
        return Descriptors(input: 0, output: tty)
    }

    /// Saves the input terminal's mode, switches it to raw mode, enters the alternate screen, hides the cursor
    /// and installs the signal handlers (`TerminalMode`, shared with `timerctl watch`).
    ///
    /// - Throws: ``Failure/system(_:_:)`` when `tcgetattr` or `tcsetattr` fails.
    static func enterRawMode(_ descriptors: Descriptors) throws(Failure) {
        do throws(SystemError) {
            try TerminalMode.enterRawMode(input: descriptors.input, output: descriptors.output)
        } catch {
            throw .system(error.call, error.errno.rawValue)
        }
    }

    /// Leaves the alternate screen, shows the cursor and restores the saved mode. Safe to call twice.
    static func restore() { TerminalMode.restore() }

    /// The terminal's width in columns and height in lines (`TIOCGWINSZ`), or 80 × 24 when it does not say.
    static func size(_ descriptors: Descriptors) -> (columns: Int, rows: Int) {
        TerminalMode.size(of: descriptors.output)
    }

    /// Writes all of `text`, retrying after `EINTR` and short writes.
    static func write(_ fd: Int32, _ text: String) { TerminalMode.write(fd, text) }

    /// What one wait for input gave.
    enum Input {
        case bytes([UInt8])
        case resized
        case endOfInput
    }

    /// Waits for keys or a window-size change.
    ///
    /// - Throws: ``Failure/system(_:_:)`` when `poll` or `read` fails for another reason than `EINTR`.
    static func next(_ descriptors: Descriptors) throws(Failure) -> Input {
        while true {
            if TerminalMode.takeResize() { return .resized }
            var pollfd = Glibc.pollfd(fd: descriptors.input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system("poll", errno)
            }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(descriptors.input, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .system("read", errno)
            }
            if count == 0 { return .endOfInput }
            return .bytes(Array(buffer[0..<count]))
        }
    }

}
