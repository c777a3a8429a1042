import CLinux
import Foundation
import Glibc

/// A private desktop for notification tests: an Xvfb X server on a free display, a private
/// `dbus-daemon` session bus (its own configuration: no service activation, so nothing but the
/// test's programs can own org.freedesktop.Notifications) and a real `dunst` on both, with a
/// dunstrc whose rule records every notification it shows (dunst(5), SCRIPTING: `DUNST_ID`,
/// `DUNST_URGENCY`, `DUNST_PROGRESS`, `DUNST_SUMMARY`, `DUNST_BODY`) and whose `dmenu` is a script
/// that answers `dunstctl context` with the menu line containing the text the test chose.
///
/// A missing program is a failure naming its Debian package, never a skip.
final class DesktopSession {
    let directory: String
    let display: String
    let busAddress: String
    private var pids: [pid_t] = []

    /// One notification as dunst showed it.
    struct Shown: Equatable, CustomStringConvertible {
        var id: Int
        /// `LOW`, `NORMAL` or `CRITICAL`.
        var urgency: String
        /// The `value` hint, or -1 without one.
        var progress: Int
        var summary: String
        var body: String
        var description: String { "\(id)|\(urgency)|\(progress)|\(summary)|\(body)" }
    }

    /// The environment every desktop program of the test runs with.
    var environment: [String: String] {
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display
        variables["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        return variables
    }

    /// Finds a program on the usual paths, or fails naming the package to install.
    static func program(_ name: String, package: String) throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where access(directory + "/" + name, X_OK) == 0 {
            return directory + "/" + name
        }
        throw SystemFailure("\(name) not found: the notifier tests need it (apt-get install \(package))")
    }

    init() throws {
        let xvfb = try Self.program("Xvfb", package: "xvfb")
        let dbusDaemon = try Self.program("dbus-daemon", package: "dbus")
        _ = try Self.program("dbus-send", package: "dbus")
        let dunst = try Self.program("dunst", package: "dunst")
        _ = try Self.program("dunstctl", package: "dunst")
        var template = Array("/tmp/timerd-desktop-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemFailure("mkdtemp failed") }
        directory = String(cString: made)

        // -displayfd: Xvfb picks a free display itself and writes its number (Xserver(1)).
        let xvfbPID = try Self.spawn(
            xvfb, ["-displayfd", "1", "-screen", "0", "800x600x24", "-nolisten", "tcp"], environment: nil,
            output: directory + "/xvfb.out", error: directory + "/xvfb.log")
        pids.append(xvfbPID)
        display = ":" + (try Self.firstLine(of: directory + "/xvfb.out", what: "Xvfb's display number"))

        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory)</listen>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try configuration.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        let busPID = try Self.spawn(
            dbusDaemon, ["--config-file=\(directory)/bus.conf", "--nofork", "--print-address=1"], environment: nil,
            output: directory + "/bus.out", error: directory + "/bus.log")
        pids.append(busPID)
        busAddress = try Self.firstLine(of: directory + "/bus.out", what: "dbus-daemon's address")

        try """
        #!/bin/sh
        printf '%s|%s|%s|%s|%s\\n' "$DUNST_ID" "$DUNST_URGENCY" "$DUNST_PROGRESS" "$DUNST_SUMMARY" "$DUNST_BODY" \
            >> \(directory)/shown.log
        """.write(toFile: directory + "/record.sh", atomically: true, encoding: .utf8)
        try """
        #!/bin/sh
        cat > \(directory)/menu.in
        grep -F -- "$(cat \(directory)/choice)" \(directory)/menu.in | head -n 1
        : > \(directory)/menu.done
        """.write(toFile: directory + "/dmenu.sh", atomically: true, encoding: .utf8)
        chmod(directory + "/record.sh", 0o755)
        chmod(directory + "/dmenu.sh", 0o755)
        try """
        [global]
            dmenu = \(directory)/dmenu.sh
            history_length = 50
        [timerd]
            appname = timerd
            script = \(directory)/record.sh
        """.write(toFile: directory + "/dunstrc", atomically: true, encoding: .utf8)
        let dunstPID = try Self.spawn(
            dunst, ["-config", directory + "/dunstrc"], environment: environment, output: directory + "/dunst.log",
            error: directory + "/dunst.log")
        pids.append(dunstPID)
        let deadline = Date().addingTimeInterval(10)
        while dunstctl(["count", "displayed"]).status != 0 {
            guard Date() < deadline else {
                throw SystemFailure("dunst did not answer on the bus within 10 s: \(log("dunst.log"))")
            }
            usleep(50_000)
        }
    }

    deinit {
        for pid in pids.reversed() {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a program in the background with its output in files.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]?, output: String, error: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // The test's threads block signals; a child inherits the mask (posix_spawn(3)), so it is
        // emptied: SIGTERM must end the programs.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw SystemFailure("posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    /// The first whole line a program writes to `path`, within 10 s.
    private static func firstLine(of path: String, what: String) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), let newline = text.firstIndex(of: "\n") {
                return String(text[..<newline])
            }
            usleep(20_000)
        }
        throw SystemFailure("no \(what) in \(path) within 10 s")
    }

    /// A log file of the session's directory.
    func log(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    /// Runs `dunstctl` on this session.
    func dunstctl(_ arguments: [String]) -> Harness.Run {
        Harness.run("/usr/bin/dunstctl", arguments, environment: environment)
    }

    /// Every notification dunst has shown so far, in order.
    func shown() -> [Shown] {
        log("shown.log").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let id = Int(fields[0]), let progress = Int(fields[2]) else { return nil }
            return Shown(id: id, urgency: fields[1], progress: progress, summary: fields[3], body: fields[4])
        }
    }

    /// Waits up to `timeout` seconds for a shown notification that `matches`.
    func waitForShown(timeout: Double = 10, _ matches: (Shown) -> Bool) -> Shown? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = shown().last(where: matches) { return found }
            usleep(50_000)
        }
        return nil
    }

    /// Opens dunst's context menu (`dunstctl context`) and picks the line that contains `text`.
    ///
    /// - Returns: the menu's lines as dunst offered them.
    func choose(_ text: String) throws -> Set<String> {
        try text.write(toFile: directory + "/choice", atomically: true, encoding: .utf8)
        unlink(directory + "/menu.done")
        let run = dunstctl(["context"])
        guard run.status == 0 else { throw SystemFailure("dunstctl context: \(run)") }
        // dunstctl returns before dunst has run the menu: the script marks its end.
        let deadline = Date().addingTimeInterval(10)
        while access(directory + "/menu.done", F_OK) != 0 {
            guard Date() < deadline else { throw SystemFailure("dunst ran no menu within 10 s: \(log("dunst.log"))") }
            usleep(20_000)
        }
        return Set(log("menu.in").split(separator: "\n").map(String.init))
    }

    /// The number of notifications dunst shows now.
    func displayedCount() -> Int? {
        Int(dunstctl(["count", "displayed"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// dunst's history (`dunstctl history`), newest first: each entry's members by name, each
    /// member's `data`.
    func history() throws -> [[String: Any]] {
        let run = dunstctl(["history"])
        guard run.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
            let data = object["data"] as? [[[String: Any]]], let entries = data.first
        else { throw SystemFailure("dunstctl history: \(run)") }
        return entries.map { entry in entry.compactMapValues { ($0 as? [String: Any])?["data"] } }
    }

    /// Saves the screen as a PNG (ImageMagick's `import`).
    func screenshot(to path: String) throws {
        let importer = try Self.program("import", package: "imagemagick")
        let run = Harness.run(importer, ["-display", display, "-window", "root", path], environment: environment)
        guard run.status == 0 else { throw SystemFailure("import: \(run)") }
    }
}
