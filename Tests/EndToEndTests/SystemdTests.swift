import Foundation
import Glibc
import Testing
import TimerSystem

/// The repository's root, found from this file's path (Tests/EndToEndTests/SystemdTests.swift).
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// timerd under systemd's protocols, without PID 1: `systemd-analyze security --offline=yes` on the
/// shipped units, and the real daemon under `systemd-socket-activate` with a notify receiver.
@Suite("timerd under systemd: units, socket activation, sd_notify", .serialized, .tags(.endToEnd))
struct SystemdTests {
    @Test(
        "systemd-analyze security rates the shipped services",
        // The system unit is strict (0.5 measured with systemd 252, with the CAP_WAKE_ALARM that --wake
        // needs, which rules out ProtectClock=); the user unit gives up what the
        // user's own on-finish actions need (3.2 measured, "OK"; the unit's comments list each setting).
        arguments: [("dist/systemd/timerd.service", 0.5), ("dist/systemd/user/timerd.service", 3.2)])
    func exposure(unit: String, limit: Double) throws {
        let run = Harness.run("/usr/bin/systemd-analyze", ["security", "--offline=yes", repositoryRoot + "/" + unit])
        let line = try #require(
            run.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(run)")
        // "→ Overall exposure level for timerd.service: 0.4 SAFE 😀"
        let figure = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(figure, "cannot read \(line)")
        print("systemd-analyze security --offline=yes \(unit): \(exposure)")
        #expect(exposure <= limit, "\(line)")
    }

    /// The settings of `unit` (`Key=value` lines, comments and sections left out), in order.
    private static func settings(of unit: String) throws -> [(key: String, value: String)] {
        let text = try String(contentsOfFile: repositoryRoot + "/" + unit, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    @Test(
        "Every unit's Documentation= names timerd's own man pages",
        arguments: [
            ("dist/systemd/timerd.service", "man:timerd(8) man:timerctl(1) man:timerd.conf(5)"),
            ("dist/systemd/user/timerd.service", "man:timerd(8) man:timerctl(1) man:timerd.conf(5)"),
            ("dist/systemd/timerd.socket", "man:timerd(8) man:systemd.socket(5)"),
            ("dist/systemd/user/timerd.socket", "man:timerd(8) man:systemd.socket(5)"),
            ("dist/systemd/user/timerctl-notifier.service", "man:timerctl(1)"),
        ])
    func documentation(unit: String, expected: String) throws {
        // `systemctl help timerd` opens the first page named here.
        let values = try Self.settings(of: unit).filter { $0.key == "Documentation" }.map(\.value)
        #expect(values == [expected])
    }

    @Test("The user unit leaves out what breaks the README's actions; the system unit keeps it")
    func userUnitLetsActionsWork() throws {
        // Each of these breaks an action the README or docs/actions.md shows: `echo … >> ~/log`
        // (a read-only home), an action started from /tmp/dir (a private /tmp), curl to a web hook
        // (no network), a JIT runtime (no writable executable memory), `nice` (no @resources).
        let breaking: [(String, String)] = [
            ("ProtectSystem", "strict"), ("ProtectHome", "read-only"), ("ProtectHome", "yes"),
            ("PrivateTmp", "yes"), ("PrivateNetwork", "yes"), ("IPAddressDeny", "any"),
            ("RestrictAddressFamilies", "AF_UNIX"), ("MemoryDenyWriteExecute", "yes"),
            ("RestrictNamespaces", "yes"), ("SystemCallFilter", "~@privileged @resources"),
        ]
        let user = try Self.settings(of: "dist/systemd/user/timerd.service")
        let system = try Self.settings(of: "dist/systemd/timerd.service")
        for (key, value) in breaking {
            #expect(!user.contains { $0 == (key, value) }, "user unit has \(key)=\(value)")
        }
        // The system unit serves many users and runs actions only for its own user: it stays strict.
        // The system unit's filter also leaves out @clock (for the ProtectClock= that CAP_WAKE_ALARM rules out).
        for (key, value) in breaking where !(key == "ProtectHome" && value == "read-only") {
            let kept = key == "SystemCallFilter" ? value + " @clock" : value
            #expect(system.contains { $0 == (key, kept) }, "system unit lost \(key)=\(kept)")
        }
        #expect(user.contains { $0 == ("ProtectSystem", "full") })
        #expect(user.contains { $0 == ("NoNewPrivileges", "yes") })
    }

    @Test("A bad configuration file refuses to start with exit 78 and names file and line")
    func badConfig() throws {
        let harness = try Harness()
        let config = harness.directory + "/timerd.conf"
        try "# ok\nhistroy_limit=5\n".write(toFile: config, atomically: true, encoding: .utf8)
        let run = Harness.run(
            Harness.timerd,
            ["--socket", harness.socketPath, "--state-dir", harness.stateDirectory, "--config", config])
        #expect(run.status == 78)
        #expect(run.stderr.contains("\(config):2: unknown key \"histroy_limit\"; keys: history_limit"))
    }

    @Test("--config naming a missing file refuses to start with exit 78 (EX_CONFIG) and says so")
    func missingConfig() throws {
        let harness = try Harness()
        let config = harness.directory + "/nonexistent.conf"
        let run = Harness.run(
            Harness.timerd,
            ["--socket", harness.socketPath, "--state-dir", harness.stateDirectory, "--config", config])
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.contains("timerd: cannot start: \(config): no such file (named by --config)"), "\(run)")
    }

    @Test("Socket activation and sd_notify: READY, STATUS, WATCHDOG, RELOADING, STOPPING")
    func activation() throws {
        let harness = try Harness()
        let receiver = try NotifyReceiver(path: harness.directory + "/notify")
        let config = harness.directory + "/timerd.conf"
        // An empty file, as the system unit's ExecStartPre= makes one: --config must name a file.
        try "".write(toFile: config, atomically: false, encoding: .utf8)
        let log = harness.directory + "/activate.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        process.arguments = [
            "-l", harness.socketPath, "--fdname=control", "-E", "NOTIFY_SOCKET=\(receiver.path)",
            "-E", "WATCHDOG_USEC=200000", Harness.timerd, "--state-dir", harness.stateDirectory, "--config", config,
        ]
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        func daemonLog() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        // systemd-socket-activate listens first and execs timerd at the first connection.
        let deadline = Date().addingTimeInterval(10)
        // The socket file can appear before systemd-socket-activate listens: retry a refused connect.
        var connected: RawClient?
        while connected == nil && Date() < deadline {
            connected = try? RawClient(path: harness.socketPath)
            if connected == nil { usleep(10_000) }
        }
        let client = try #require(connected, "systemd-socket-activate did not listen within 10 s")
        let ping = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#)
        let result = try #require(ping["result"] as? [String: Any], "\(ping) \(daemonLog())")
        #expect(result["pid"] as? Int == Int(process.processIdentifier), "exec keeps the pid")

        let ready = try #require(receiver.next(timeout: 10), "no datagram: \(daemonLog())")
        #expect(ready.split(separator: "\n").contains("READY=1"), "\(ready)")
        #expect(ready.split(separator: "\n").contains { $0.hasPrefix("STATUS=") }, "\(ready)")

        // WATCHDOG_USEC=200000: a ping every 100 ms, so several within a second.
        let start = Date()
        var pings = 0
        while Date().timeIntervalSince(start) < 1.0 {
            if let datagram = receiver.next(timeout: 0.2), datagram.split(separator: "\n").contains("WATCHDOG=1") {
                pings += 1
            }
        }
        #expect(pings >= 4, "\(pings) WATCHDOG=1 in 1 s")

        // SIGHUP: RELOADING=1 and MONOTONIC_USEC= in one datagram, then READY=1.
        try "history_limit=5\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        let reloading = try #require(receiver.next(timeout: 10) { $0.contains("RELOADING=1") }, "\(daemonLog())")
        let fields = reloading.split(separator: "\n")
        #expect(fields.contains("RELOADING=1"))
        #expect(fields.contains { $0.hasPrefix("MONOTONIC_USEC=") && UInt64($0.dropFirst(15)) != nil }, "\(reloading)")
        #expect(receiver.next(timeout: 10) { $0.split(separator: "\n").contains("READY=1") } != nil)

        // daemon.reload answers after the reload; a bad file keeps the old configuration.
        let good = try client.request(#"{"jsonrpc":"2.0","id":2,"method":"daemon.reload"}"#)
        #expect((good["result"] as? [String: Any])?["found"] as? Bool == true, "\(good)")
        try "history_limit=many\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try client.request(#"{"jsonrpc":"2.0","id":3,"method":"daemon.reload"}"#)
        let error = try #require(bad["error"] as? [String: Any], "\(bad)")
        #expect(error["code"] as? Int == -32_008)
        #expect((error["message"] as? String)?.hasPrefix("\(config):1: history_limit must be") == true, "\(error)")

        // SIGTERM: STOPPING=1 first, exit 0, and the inherited socket file is left alone.
        kill(process.processIdentifier, SIGTERM)
        #expect(receiver.next(timeout: 10) { $0.split(separator: "\n").contains("STOPPING=1") } != nil)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(daemonLog())")
        #expect(access(harness.socketPath, F_OK) == 0, "an inherited socket is never unlinked")
    }
}

/// A stand-in for PID 1's notification socket: an `AF_UNIX` `SOCK_DGRAM` socket that reads each
/// datagram with `recvmsg` and closes any descriptors passed with it (`systemd-notify`'s barrier).
final class NotifyReceiver {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        // The project's own address builder (it checks sun_path's length).
        var (address, length) = try UnixSocket.address(path)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard status == 0 else {
            close(fd)
            throw SystemFailure("bind \(path): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// The next datagram that satisfies `matching`, or `nil` after `timeout` seconds.
    func next(timeout: Double, matching: (String) -> Bool = { _ in true }) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(left * 1_000) + 1) <= 0 { continue }
            if let datagram = receive(), matching(datagram) { return datagram }
        }
    }

    private func receive() -> String? {
        var data = [UInt8](repeating: 0, count: 4_096)
        var control = [UInt8](repeating: 0, count: 256)
        let count = data.withUnsafeMutableBytes { dataRaw in
            control.withUnsafeMutableBytes { controlRaw in
                var vector = iovec(iov_base: dataRaw.baseAddress, iov_len: dataRaw.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlRaw.baseAddress
                    message.msg_controllen = controlRaw.count
                    let received = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                    closePassedDescriptors(controlRaw, length: Int(message.msg_controllen))
                    return received
                }
            }
        }
        guard count >= 0 else { return nil }
        return String(decoding: data[0..<count], as: UTF8.self)
    }

    /// Walks the `cmsghdr` list (len, level, type, then data aligned to 8 bytes) and closes
    /// every descriptor of an `SCM_RIGHTS` message.
    private func closePassedDescriptors(_ control: UnsafeMutableRawBufferPointer, length: Int) {
        let header = MemoryLayout<cmsghdr>.size
        var offset = 0
        while offset + header <= length {
            let item = control.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
            let itemLength = Int(item.cmsg_len)
            if itemLength < header { return }
            if item.cmsg_level == SOL_SOCKET && item.cmsg_type == Int32(SCM_RIGHTS) {
                var position = offset + header
                while position + 4 <= offset + itemLength {
                    close(control.loadUnaligned(fromByteOffset: position, as: Int32.self))
                    position += 4
                }
            }
            offset += (itemLength + 7) & ~7
        }
    }
}
