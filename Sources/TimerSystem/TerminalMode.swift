import Glibc
import Synchronization

/// A full-screen terminal program's hold on the terminal: raw mode, the alternate screen, the
/// window size, and the signals that must give the terminal back. Shared by the date picker
/// (`timerpick`) and `timerctl watch`.
///
/// Raw mode is undone on every way out: ``restore()`` on a normal exit or an error, and handlers for
/// SIGINT, SIGTERM and SIGHUP that restore the saved `termios`, show the cursor and leave the
/// alternate screen with async-signal-safe calls only (`tcsetattr`, `write`, `_exit`; POSIX.1-2017
/// §2.4.3, man signal-safety(7)), then exit with 128 + the signal number. SIGWINCH only sets a flag
/// (``takeResize()``); the handlers are installed without `SA_RESTART`, so a `poll` waiting for
/// input returns `EINTR` at once and the program redraws.
///
/// Ctrl-Z (SIGTSTP) gives the terminal back before the process stops, as less(1) and vim do: the
/// handler restores the saved mode, leaves the alternate screen, then stops the process with the
/// signal's default action. SIGCONT (`fg`) switches raw mode and the alternate screen on again and
/// sets the same flag as SIGWINCH, so the program redraws and keys act at once, without Enter.
public enum TerminalMode {
    /// "Show the cursor, leave the alternate screen": what every exit writes.
    public static let leaveScreen = "\u{1B}[?25h\u{1B}[?1049l"
    /// "Enter the alternate screen, hide the cursor".
    public static let enterScreen = "\u{1B}[?1049h\u{1B}[?25l"

    /// Saves `input`'s terminal mode, switches it to raw mode (as `cfmakeraw(3)` does, but keeping
    /// `ISIG`, so Ctrl-C still sends SIGINT, whose handler restores the terminal), installs the
    /// signal handlers, enters the alternate screen on `output` and hides the cursor.
    ///
    /// - Parameters:
    ///   - input: the terminal keys are read from (usually 0).
    ///   - output: the terminal drawn on (1, or a descriptor of /dev/tty).
    /// - Throws: ``SystemError`` from `tcgetattr` or `tcsetattr`.
    public static func enterRawMode(input: Int32, output: Int32) throws(SystemError) {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { throw SystemError("tcgetattr", errno: errno) }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        SavedTerminal.termios.pointee = saved
        SavedTerminal.raw.pointee = raw
        SavedTerminal.inputFD = input
        SavedTerminal.outputFD = output
        SavedTerminal.isSuspended = false
        SavedTerminal.isRaw = true
        _ = SavedTerminal.leaveScreenBytes.count  // initialized now, never first inside a handler
        _ = SavedTerminal.enterScreenBytes.count
        installSignalHandlers()
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            SavedTerminal.isRaw = false
            throw SystemError("tcsetattr", errno: errno)
        }
        write(output, enterScreen)
    }

    /// Leaves the alternate screen, shows the cursor and restores the saved mode. Safe to call
    /// twice, and a no-op when raw mode was never entered.
    public static func restore() {
        guard SavedTerminal.isRaw else { return }
        SavedTerminal.isRaw = false
        SavedTerminal.isSuspended = false
        _ = tcsetattr(SavedTerminal.inputFD, TCSAFLUSH, SavedTerminal.termios)
        write(SavedTerminal.outputFD, leaveScreen)
    }

    /// The terminal's size (`TIOCGWINSZ`), or 80 × 24 when it does not say.
    ///
    /// - Parameter fd: a descriptor of the terminal.
    /// - Returns: columns and rows, each ≥ 1.
    public static func size(of fd: Int32) -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return (80, 24) }
        return (Int(size.ws_col), max(1, Int(size.ws_row)))
    }

    /// Writes all of `text`, retrying after `EINTR` and short writes; gives up quietly on any other
    /// error (a terminal that went away).
    ///
    /// - Parameters:
    ///   - fd: the descriptor.
    ///   - text: what to write.
    public static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Whether the screen must be drawn again since the last call: the window was resized
    /// (SIGWINCH) or the process was continued after Ctrl-Z (SIGCONT).
    public static func takeResize() -> Bool { resizePending.exchange(false, ordering: .relaxed) }

    /// Set by the SIGWINCH handler.
    private static let resizePending = Atomic<Bool>(false)

    private static func installSignalHandlers() {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: poll returns EINTR, so the loop sees a resize at once
        action.__sigaction_handler.sa_handler = { _ in
            TerminalMode.resizePending.store(true, ordering: .relaxed)
        }
        sigaction(SIGWINCH, &action, nil)
        action.__sigaction_handler.sa_handler = { signal in
            // Async-signal-safe only: tcsetattr, write, _exit.
            if SavedTerminal.isRaw {
                _ = tcsetattr(SavedTerminal.inputFD, TCSAFLUSH, SavedTerminal.termios)
                SavedTerminal.leaveScreenBytes.withUnsafeBufferPointer { buffer in
                    _ = Glibc.write(SavedTerminal.outputFD, buffer.baseAddress, buffer.count)
                }
            }
            _exit(128 + signal)
        }
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaction(signal, &action, nil) }
        installStopHandler()
        action.__sigaction_handler.sa_handler = { _ in
            // Async-signal-safe only: tcgetpgrp, getpgrp, tcsetattr, write and a lock-free atomic store.
            guard SavedTerminal.isRaw, SavedTerminal.isSuspended else { return }
            // Continued in the background (`bg`): the terminal is the shell's. The next read stops the
            // process (SIGTTIN) until `fg`, whose SIGCONT comes back here.
            guard tcgetpgrp(SavedTerminal.inputFD) == getpgrp() else { return }
            SavedTerminal.isSuspended = false
            _ = tcsetattr(SavedTerminal.inputFD, TCSADRAIN, SavedTerminal.raw)
            SavedTerminal.enterScreenBytes.withUnsafeBufferPointer { buffer in
                _ = Glibc.write(SavedTerminal.outputFD, buffer.baseAddress, buffer.count)
            }
            TerminalMode.resizePending.store(true, ordering: .relaxed)
        }
        sigaction(SIGCONT, &action, nil)
        // A parent may have left these blocked (threads of a test runner do); they must arrive.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT] { sigaddset(&unblock, signal) }
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Installs the SIGTSTP handler: give the terminal back, then stop with the default action
    /// (unblocked and re-raised, as ncurses does), and reinstall itself once continued.
    ///
    /// SIGTTOU is blocked while it runs: when the picker is a child of `timerctl start --pick`, the
    /// shell sees its job (timerctl) stop and takes the terminal back before the picker's handler
    /// has restored the mode, and a `tcsetattr` from the background would stop the picker there,
    /// to stop again after `fg`. When the process group is orphaned (no shell can resume it), the
    /// kernel discards the stop; the terminal was given back all the same, and SIGCONT takes it
    /// again.
    private static func installStopHandler() {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        sigaddset(&action.sa_mask, SIGTTOU)
        action.sa_flags = 0
        action.__sigaction_handler.sa_handler = { _ in
            // Async-signal-safe only: tcsetattr, write, sigaction, sigprocmask, kill, getpid.
            let savedErrno = errno
            if SavedTerminal.isRaw, !SavedTerminal.isSuspended {
                SavedTerminal.isSuspended = true
                _ = tcsetattr(SavedTerminal.inputFD, TCSADRAIN, SavedTerminal.termios)
                SavedTerminal.leaveScreenBytes.withUnsafeBufferPointer { buffer in
                    _ = Glibc.write(SavedTerminal.outputFD, buffer.baseAddress, buffer.count)
                }
            }
            var defaultAction = sigaction()
            sigemptyset(&defaultAction.sa_mask)
            defaultAction.__sigaction_handler.sa_handler = SIG_DFL
            var ours = sigaction()
            sigaction(SIGTSTP, &defaultAction, &ours)
            var stop = sigset_t()
            sigemptyset(&stop)
            sigaddset(&stop, SIGTSTP)
            var previous = sigset_t()
            sigprocmask(SIG_UNBLOCK, &stop, &previous)
            kill(getpid(), SIGTSTP)  // stops here until SIGCONT
            sigprocmask(SIG_SETMASK, &previous, nil)
            sigaction(SIGTSTP, &ours, nil)
            errno = savedErrno
        }
        sigaction(SIGTSTP, &action, nil)
    }
}

/// What the signal handlers need, set before they are installed and read-only afterwards except
/// `isRaw` and `isSuspended`.
///
/// Plain globals, because a signal handler is a C function that cannot capture; `nonisolated(unsafe)`
/// because the only concurrent reader is a signal handler on the same thread, which Swift's model
/// does not describe.
private enum SavedTerminal {
    /// The saved mode, in a heap cell the handlers read through a pointer. (A global `termios`
    /// variable was reported by AddressSanitizer as 57 bytes while `termios` is 60, so copying it
    /// overflowed in the sanitized build; a pointer to an allocation of `MemoryLayout<termios>.size`
    /// has no such question.) Touched first by `enterRawMode`, before any handler is installed.
    nonisolated(unsafe) static let termios: UnsafeMutablePointer<Glibc.termios> = {
        let cell = UnsafeMutablePointer<Glibc.termios>.allocate(capacity: 1)
        cell.initialize(to: Glibc.termios())
        return cell
    }()
    /// The raw mode made from it, which SIGCONT switches on again; a heap cell like ``termios``.
    nonisolated(unsafe) static let raw: UnsafeMutablePointer<Glibc.termios> = {
        let cell = UnsafeMutablePointer<Glibc.termios>.allocate(capacity: 1)
        cell.initialize(to: Glibc.termios())
        return cell
    }()
    nonisolated(unsafe) static var inputFD: Int32 = 0
    nonisolated(unsafe) static var outputFD: Int32 = 1
    nonisolated(unsafe) static var isRaw = false
    /// Set by SIGTSTP once the terminal was given back, cleared by SIGCONT when raw mode is on again.
    nonisolated(unsafe) static var isSuspended = false
    /// ``TerminalMode/leaveScreen`` as bytes, made before any signal can arrive.
    static let leaveScreenBytes: [UInt8] = Array(TerminalMode.leaveScreen.utf8)
    /// ``TerminalMode/enterScreen`` as bytes, made before any signal can arrive.
    static let enterScreenBytes: [UInt8] = Array(TerminalMode.enterScreen.utf8)
}
