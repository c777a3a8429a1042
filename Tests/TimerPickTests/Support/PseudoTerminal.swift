import Foundation
import Glibc

/// Runs a built executable on a fresh pseudo-terminal, the way a person runs it in a terminal window.
///
/// The child is a session leader whose controlling terminal is the pseudo-terminal (opened after `setsid`, so it
/// becomes the controlling terminal; credentials(7)); its standard input and error are the terminal and its
/// standard output is a pipe, as inside `$(timerctl pick)`. The test reads what the child draws from the master
/// side and types by writing to it. Output is read with `poll` deadlines, never sleeps.
final class PseudoTerminal {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let master: Int32
    /// A descriptor of the terminal's slave side kept by the test, to read its mode (`tcgetattr`).
    let slave: Int32
    let pid: pid_t
    private let outputPipe: Int32
    private var screenBytes: [UInt8] = []

    /// Starts `executable` with `arguments` and exactly `environment` on a terminal `columns` wide;
    /// with `outputIsTerminal`, standard output is the terminal too (a full-screen program such as
    /// `timerctl watch`), else a pipe.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String], columns: Int = 80,
        rows: Int = 24, outputIsTerminal: Bool = false
    ) throws {
        // posix_openpt/grantpt/unlockpt/ptsname are not in Swift's Glibc module (they need _XOPEN_SOURCE), so this
        // does what they do on Linux: open /dev/ptmx, unlock the slave (TIOCSPTLCK) and ask its number (TIOCGPTN).
        // The request numbers are the kernel's _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0,
            ioctl(master, UInt(0x8004_5430), &number) == 0
        else {
            throw Failure(description: "/dev/ptmx: \(String(cString: strerror(errno)))")
        }
        let slavePath = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(slavePath, O_RDWR | O_NOCTTY)
        var pipeFDs: [Int32] = [0, 0]
        guard slave >= 0, pipe(&pipeFDs) == 0 else { throw Failure(description: "open/pipe failed") }

        // Close-on-exec, so that children of tests running in parallel do not hold each other's pipes open.
        for fd in [master, slave, pipeFDs[0], pipeFDs[1]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (0x80, glibc 2.26, not imported), and an empty signal mask with default actions:
        // the test runner's threads block signals, and a child would inherit that mask.
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, master)
        posix_spawn_file_actions_addclose(&actions, slave)
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawn_file_actions_adddup2(&actions, outputIsTerminal ? 0 : pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(pipeFDs[1])
        guard spawned == 0 else { throw Failure(description: "posix_spawn: \(String(cString: strerror(spawned)))") }
        self.master = master
        self.slave = slave
        self.pid = pid
        self.outputPipe = pipeFDs[0]
    }

    deinit {
        close(master)
        close(slave)
        close(outputPipe)
    }

    /// Changes the terminal's size, as a resized window does; the kernel sends SIGWINCH to the child.
    func resize(columns: Int, rows: Int = 24) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// Puts the terminal in canonical mode with echo, as a shell does when its job stops (bash and zsh
    /// restore their own mode before printing the prompt).
    func makeCooked() {
        var mode = termios()
        guard tcgetattr(slave, &mode) == 0 else { return }
        mode.c_lflag |= tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        mode.c_iflag |= tcflag_t(ICRNL)
        mode.c_oflag |= tcflag_t(OPOST)
        _ = tcsetattr(slave, TCSANOW, &mode)
    }

    /// Reads what the child draws for `seconds`, for a test that waits for something that must not happen.
    func drain(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline { pump(milliseconds: 50) }
    }

    /// Types `text` (escape sequences included) in one write, as a terminal sends one key.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what the child draws until the last frame contains `needle`, or until `seconds` pass.
    ///
    /// - Returns: The last frame's text without escape sequences and with `\r` removed; the frame is what
    ///   followed the last "clear screen" (`ESC [ 2 J`).
    @discardableResult
    func waitForFrame(containing needle: String, seconds: Double = 15) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let frame = lastFrame
            if frame.contains(needle) || Date() >= deadline { return frame }
            pump(milliseconds: 100)
        }
    }

    /// How many frames the child has drawn (each starts with "clear screen").
    var frameCount: Int {
        let clear: [UInt8] = [0x1B, 0x5B, 0x32, 0x4A]
        guard screenBytes.count >= clear.count else { return 0 }
        return (0...(screenBytes.count - clear.count)).filter { Array(screenBytes[$0..<$0 + clear.count]) == clear }
            .count
    }

    /// Reads until more than `count` frames have been drawn (or `seconds` pass) and returns the last one.
    func waitForFrame(after count: Int, seconds: Double = 15) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while frameCount <= count, Date() < deadline { pump(milliseconds: 100) }
        return lastFrame
    }

    /// The last frame drawn so far, as text.
    var lastFrame: String {
        let clear: [UInt8] = [0x1B, 0x5B, 0x32, 0x4A]
        var start = 0
        if screenBytes.count >= clear.count {
            for index in stride(from: screenBytes.count - clear.count, through: 0, by: -1)
            where Array(screenBytes[index..<index + clear.count]) == clear {
                start = index + clear.count
                break
            }
        }
        return Self.plainText(Array(screenBytes[start...]))
    }

    /// Everything the child wrote to the terminal so far, escape sequences included.
    var rawScreen: [UInt8] { screenBytes }

    /// Waits for the child to exit, draining the terminal, and returns its status and standard output.
    ///
    /// - Returns: The exit status (128 + N when killed by signal N) and the standard output.
    func finish(seconds: Double = 15) -> (status: Int32, output: String) {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var fds = [
                pollfd(fd: outputPipe, events: Int16(POLLIN), revents: 0),
                pollfd(fd: master, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, 2, 100) >= 0 else { continue }
            if fds[1].revents & Int16(POLLIN) != 0 {
                let count = read(master, &buffer, buffer.count)
                if count > 0 { screenBytes += buffer[0..<count] }
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 {
                let count = read(outputPipe, &buffer, buffer.count)
                if count <= 0 { break }
                output += buffer[0..<count]
            }
        }
        var status: Int32 = 0
        // A child still running after the deadline is a failure, not a hang: kill it.
        if waitpid(pid, &status, WNOHANG) == 0 {
            if Date() >= deadline { kill(pid, SIGKILL) }
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        pump(milliseconds: 50)
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, String(decoding: output, as: UTF8.self))
    }

    private func pump(milliseconds: Int32) {
        var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, milliseconds) > 0, fds.revents & Int16(POLLIN) != 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        if count > 0 { screenBytes += buffer[0..<count] }
    }

    /// Drops CSI sequences (`ESC [ params final`) and carriage returns.
    static func plainText(_ bytes: [UInt8]) -> String {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, index + 1 < bytes.count, bytes[index + 1] == 0x5B {
                index += 2
                while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                index += 1
                continue
            }
            if bytes[index] != 0x0D { result.append(bytes[index]) }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether the terminal is in canonical mode with echo, as a shell leaves it (not raw).
    var isCooked: Bool {
        var mode = termios()
        guard tcgetattr(slave, &mode) == 0 else { return false }
        return mode.c_lflag & tcflag_t(ICANON) != 0 && mode.c_lflag & tcflag_t(ECHO) != 0
    }

    /// The directory of the built products (`.build/debug`), where the test bundle is.
    static let productsDirectory: String = {
        let bundle = Bundle.main.bundlePath
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
            bundle,
            URL(fileURLWithPath: bundle).deletingLastPathComponent().path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/timerpick") } ?? candidates[0]
    }()
}
