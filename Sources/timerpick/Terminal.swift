import Glibc
import Synchronization

/// The terminal the picker draws on: raw mode, the alternate screen, window size and the signals that must
/// restore it. Every system call of the picker is in this file.
///
/// Raw mode is undone on every way out: ``restore()`` after Enter, Escape or an error, and the handlers for
/// SIGINT, SIGTERM and SIGHUP, which restore the saved `termios` and the screen with async-signal-safe calls only
/// (`tcsetattr`, `write`, `_exit`; POSIX.1-2017 §2.4.3) and exit with 128 + the signal number. SIGWINCH only sets
/// a flag that the event loop reads after `poll` is interrupted.
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
    /// and installs the signal handlers.
    ///
    /// - Throws: ``Failure/system(_:_:)`` when `tcgetattr` or `tcsetattr` fails.
    static func enterRawMode(_ descriptors: Descriptors) throws(Failure) {
        var saved = termios()
        guard tcgetattr(descriptors.input, &saved) == 0 else { throw .system("tcgetattr", errno) }
        SavedState.termios.pointee = saved
        SavedState.inputFD = descriptors.input
        SavedState.outputFD = descriptors.output
        SavedState.isRaw = true
        installSignalHandlers()
        var raw = saved
        // cfmakeraw minus ISIG: Ctrl-C still sends SIGINT, whose handler restores the terminal.
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        guard tcsetattr(descriptors.input, TCSAFLUSH, &raw) == 0 else {
            SavedState.isRaw = false
            throw .system("tcsetattr", errno)
        }
        write(descriptors.output, "\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Leaves the alternate screen, shows the cursor and restores the saved mode. Safe to call twice.
    static func restore() {
        guard SavedState.isRaw else { return }
        SavedState.isRaw = false
        _ = tcsetattr(SavedState.inputFD, TCSAFLUSH, SavedState.termios)
        write(SavedState.outputFD, "\u{1B}[?25h\u{1B}[?1049l")
    }

    /// The terminal's width in columns (`TIOCGWINSZ`), or 80 when it does not say.
    static func columns(_ descriptors: Descriptors) -> Int {
        var size = winsize()
        guard ioctl(descriptors.output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Writes all of `text`, retrying after `EINTR` and short writes.
    static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

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
            if resizePending.exchange(false, ordering: .relaxed) { return .resized }
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

    // MARK: Signals

    /// Set by the SIGWINCH handler, read by ``next(_:)``.
    static let resizePending = Atomic<Bool>(false)

    private static func installSignalHandlers() {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: poll returns EINTR, so the loop sees a resize at once
        action.__sigaction_handler.sa_handler = { signal in
            Terminal.resizePending.store(true, ordering: .relaxed)
            _ = signal
        }
        sigaction(SIGWINCH, &action, nil)
        action.__sigaction_handler.sa_handler = { signal in
            // Async-signal-safe only: tcsetattr, write, _exit.
            if SavedState.isRaw {
                _ = tcsetattr(SavedState.inputFD, TCSAFLUSH, SavedState.termios)
                SavedState.leaveScreen.withUnsafeBufferPointer { buffer in
                    _ = Glibc.write(SavedState.outputFD, buffer.baseAddress, buffer.count)
                }
            }
            _exit(128 + signal)
        }
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaction(signal, &action, nil) }
        // A parent may have left these blocked (threads of a test runner do); the picker must receive them.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { sigaddset(&unblock, signal) }
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
    }
}

/// What the signal handlers need, set before they are installed and read-only afterwards except `isRaw`.
///
/// Plain globals, because a signal handler is a C function that cannot capture; `nonisolated(unsafe)` because the
/// only concurrent reader is a signal handler on the same thread, which Swift's model does not describe.
enum SavedState {
    /// The saved mode, in a heap cell the signal handlers read through a pointer. (A global `termios`
    /// variable was reported by AddressSanitizer as 57 bytes while `termios` is 60, so copying it
    /// overflowed in the sanitized build; a pointer to an allocation of `MemoryLayout<termios>.size`
    /// has no such question.) Touched first by `enterRawMode`, before any handler is installed.
    nonisolated(unsafe) static let termios: UnsafeMutablePointer<Glibc.termios> = {
        let cell = UnsafeMutablePointer<Glibc.termios>.allocate(capacity: 1)
        cell.initialize(to: Glibc.termios())
        return cell
    }()
    nonisolated(unsafe) static var inputFD: Int32 = 0
    nonisolated(unsafe) static var outputFD: Int32 = 1
    nonisolated(unsafe) static var isRaw = false
    /// "Show the cursor, leave the alternate screen", made before any signal can arrive.
    static let leaveScreen: [UInt8] = Array("\u{1B}[?25h\u{1B}[?1049l".utf8)
}
