import Foundation
import Glibc
import Testing
import TimerProtocol

/// `timerctl start … --sound[=FILE]` through the real timerd and the real ALSA player (`aplay`, apt
/// `alsa-utils`): timerd.conf sets `sound_player=aplay` and a `sound_device` that sends the samples
/// to the ALSA `null` device, or to a file (ALSA's `file` plugin, `file:'OUT',raw`) whose bytes the
/// test compares with the WAV's data, so that what the player read is checked, not only that it ran.
@Suite("Sound end to end: --sound through timerd and aplay", .serialized, .tags(.endToEnd))
struct SoundEndToEndTests {
    /// The repository's root, from this file's path (Tests/EndToEndTests/…).
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The default sound timerd finds from a build tree (scripts/make-sound writes it).
    private static let beep = root + "/dist/sound/timerd-beep.wav"

    /// Writes a timerd.conf with `lines` and returns timerd's `--config` arguments.
    private static func config(_ harness: Harness, _ lines: String) throws -> [String] {
        let path = harness.directory + "/timerd.conf"
        try lines.write(toFile: path, atomically: true, encoding: .utf8)
        return ["--config", path]
    }

    /// The text once `isDone` accepts it (20 s at most).
    private static func waitFor(_ read: () -> String, until isDone: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(20)
        var text = read()
        while !isDone(text) && Date() < deadline {
            usleep(20_000)
            text = read()
        }
        return text
    }

    /// The runs `timerctl logs --json` lists for `timer`.
    private static func runs(_ harness: Harness, _ timer: String) throws -> [ActionRunInfo] {
        try harness.ctlJSON(["logs", timer, "--json"], as: ActionRunsResult.self).runs
    }

    /// The bytes of the WAV file's `data` chunk (a RIFF file: 12 bytes of header, then chunks of an
    /// id, a little-endian UInt32 size and the bytes).
    private static func wavData(_ path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = bytes[offset + 4..<offset + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            if id == "data" { return Array(bytes[offset + 8..<min(bytes.count, offset + 8 + size)]) }
            offset += 8 + size + size % 2
        }
        throw SystemFailure("\(path) has no data chunk")
    }

    @Test("--sound plays the shipped beep through aplay at the end: exit 0, and aplay wrote every sample of it")
    func defaultSoundPlays() throws {
        let harness = try Harness()
        let out = harness.directory + "/played.raw"
        try harness.startDaemon(
            extraArguments: try Self.config(harness, "sound_player=aplay\nsound_device=file:'\(out)',raw\n"))
        let started = harness.ctl(["start", "1s", "--name", "tea", "--sound"])
        #expect(
            started.status == 0 && started.stdout == "started 1 \"tea\": 1s\n" && started.stderr == "", "\(started)")
        #expect(harness.ctl(["wait", "tea"]).status == 0)
        let log = Self.waitFor({ harness.log() }, until: { $0.contains("sound exited") })
        // aplay's own line, from the header scripts/make-sound writes: 22,050 Hz, mono, 16-bit.
        #expect(
            log.contains(
                "timer 1 (\"tea\") sound output: Playing WAVE '\(Self.beep)' : Signed 16 bit Little Endian, "
                    + "Rate 22050 Hz, Mono"), "\(log)")
        #expect(log.contains("timer 1 (\"tea\") sound exited with status 0"), "\(log)")
        #expect(log.contains("started timer 1 (\"tea\"), 1s; on finish: sound \"\(Self.beep)\" (uid"), "\(log)")
        let runs = try Self.runs(harness, "tea")
        #expect(runs.map(\.kind) == ["sound"] && runs.map(\.trigger) == ["finished"], "\(runs)")
        #expect(runs.first?.exitStatus == 0 && runs.first?.outcome == "exited", "\(runs)")
        // The file plugin writes whole periods: the samples, then silence up to the period's end.
        let samples = try Self.wavData(Self.beep)
        #expect(samples.count == 22_932)  // 3 × 2,646 + 2 × 1,764 frames of 2 bytes (scripts/make-sound)
        let played = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(played.count >= samples.count && Array(played.prefix(samples.count)) == samples)
        #expect(played.dropFirst(samples.count).allSatisfy { $0 == 0 })
        #expect(harness.stopDaemon() == 0)
    }

    @Test("--ring --sound plays at the first ring and at every later ring, until ack")
    func soundAtEveryRing() throws {
        let harness = try Harness()
        try harness.startDaemon(
            extraArguments: try Self.config(
                harness, "sound_player=aplay\nsound_device=null\nring_interval=2s\nring_limit=60s\n"))
        let started = harness.ctl(["start", "1s", "--name", "tea", "--ring", "--sound=\(Self.beep)"])
        #expect(started.status == 0 && started.stdout == "started 1 \"tea\": 1s, rings\n", "\(started)")
        // Rings at 1 s, 3 s and 5 s: three sound runs, each exited 0, before the ack.
        let log = Self.waitFor(
            { harness.log() }, until: { $0.components(separatedBy: "sound exited with status 0").count > 3 })
        #expect(harness.ctl(["ack", "tea"]).status == 0)
        #expect(log.components(separatedBy: "timer 1 (\"tea\") sound exited with status 0").count - 1 >= 3, "\(log)")
        let runs = try Self.runs(harness, "tea")
        #expect(runs.count >= 3 && runs.allSatisfy { $0.kind == "sound" && $0.exitStatus == 0 }, "\(runs)")
        #expect(Array(runs.map(\.trigger).prefix(3)) == ["finished", "ringing", "ringing"], "\(runs)")
        // After the ack nothing more plays.
        let count = try Self.runs(harness, "tea").count
        usleep(2_500_000)
        #expect(try Self.runs(harness, "tea").count == count)
        #expect(harness.stopDaemon() == 0)
    }

    @Test("no player or an unreadable file: a warning on stderr, exit 0, the timer runs; at the end the log says why")
    func warnings() throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try Self.config(harness, "sound_player=aplay\nsound_device=null\n"))
        // A PATH without aplay: the captured PATH is where timerd looks for the player.
        let empty = harness.directory + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = empty
        let noPlayer = harness.ctl(["start", "1s", "--name", "quiet", "--sound"], environment: environment)
        #expect(noPlayer.status == 0 && noPlayer.stdout == "started 1 \"quiet\": 1s\n", "\(noPlayer)")
        #expect(
            noPlayer.stderr
                == "Warning: --sound: no sound player (aplay) in the timer's PATH (\(empty)); the sound will not play\n"
        )
        let missing = harness.directory + "/missing.wav"
        let unreadable = harness.ctl(["start", "1s", "--name", "gone", "--sound=\(missing)"])
        #expect(unreadable.status == 0 && unreadable.stdout == "started 2 \"gone\": 1s\n", "\(unreadable)")
        #expect(
            unreadable.stderr
                == "Warning: --sound: cannot read \(missing): No such file or directory; the sound will not play\n")
        // --json carries it as the result's "warning".
        let json = harness.ctl(["start", "1h", "--sound=\(missing)", "--json"])
        #expect(
            json.status == 0
                && json.stdout.contains(
                    "\"warning\" : \"cannot read \(missing): No such file or directory; the sound will not play\"\n}\n"),
            "\(json)")
        #expect(harness.ctl(["wait", "quiet"]).status == 0)
        #expect(harness.ctl(["wait", "gone"]).status == 0)
        let log = Self.waitFor({ harness.log() }, until: { $0.contains("timer 2 (\"gone\") sound:") })
        #expect(
            log.contains(
                "warning: timer 1 (\"quiet\") sound: no sound player (aplay) in the timer's PATH (\(empty)); no sound"),
            "\(log)")
        #expect(
            log.contains(
                "warning: timer 2 (\"gone\") sound: cannot read the sound file \(missing): No such file or directory; "
                    + "no sound"), "\(log)")
        #expect(try Self.runs(harness, "quiet").map(\.exitStatus) == [127])
        #expect(try Self.runs(harness, "gone").map(\.outcome) == ["failed-to-start"])
        #expect(harness.stopDaemon() == 0)
    }

    @Test("a player that fails at play time is logged with its exit status: aplay on a device ALSA does not know")
    func playerFailure() throws {
        let harness = try Harness()
        try harness.startDaemon(
            extraArguments: try Self.config(harness, "sound_player=aplay\nsound_device=nosuchdevice\n"))
        let started = harness.ctl(["start", "1s", "--name", "bad", "--sound"])
        // The player and the file are there: no warning at start; the device is the player's to judge.
        #expect(started.status == 0 && started.stderr == "", "\(started)")
        let log = Self.waitFor({ harness.log() }, until: { $0.contains("sound exited") })
        // aplay's own words and status (alsa-utils: `audio open error`, exit 1).
        #expect(log.contains("timer 1 (\"bad\") sound output: aplay: main:"), "\(log)")
        #expect(log.contains("audio open error: No such file or directory"), "\(log)")
        #expect(log.contains("timer 1 (\"bad\") sound exited with status 1 after "), "\(log)")
        let runs = try Self.runs(harness, "bad")
        #expect(runs.map(\.exitStatus) == [1] && runs.map(\.outcome) == ["exited"], "\(runs)")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("a relative --sound=FILE is made absolute against timerctl's working directory")
    func relativeFile() throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try Self.config(harness, "sound_player=aplay\nsound_device=null\n"))
        try FileManager.default.copyItem(atPath: Self.beep, toPath: harness.directory + "/bell.wav")
        let quoted = [Harness.timerctl, "--socket", harness.socketPath, "start", "1h", "--sound=bell.wav"]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let run = Harness.run("/bin/sh", ["-c", "cd '\(harness.directory)' && exec \(quoted)"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        #expect(harness.log().contains("on finish: sound \"\(harness.directory)/bell.wav\""), "\(harness.log())")
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "shared mode: a malformed sound or warnEach is -32602 as on one host; a well-formed one is refused with -32601")
    func sharedRefuses() throws {
        guard TestBackend.available.contains(.shared) else {
            Issue.record("the PostgreSQL test cluster is needed (TIMERD_TEST_PG or scripts/pg-cluster)")
            return
        }
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try TestBackend.shared.daemonArguments())
        let tail =
            " is not available in shared mode (timerd --shared): the shared schema stores no ringing state and no "
            + "warning, so no host could ring, warn, acknowledge or snooze; start alarms (--ring, --warn) on a "
            + "one-host timerd with the file store (timerctl --socket /run/timerd/timerd.sock start … --ring)\n"
        let sound = harness.ctl(["start", "5m", "--sound"])
        #expect(sound.status == 1 && sound.stderr == "Error: \"sound\" of timer.start (--sound)" + tail, "\(sound)")
        let client = try RawClient(path: harness.socketPath)
        let cases: [(String, Int, String)] = [
            (
                #"{"durations":[300],"sound":5}"#, -32602,
                #""sound" of timer.start must be true or the absolute path of a sound file (string), got number"#
            ),
            (
                #"{"durations":[300],"sound":"bell.wav"}"#, -32602,
                #""sound" must be true (the default sound) or the absolute path of a sound file, at most 4096 bytes without NUL"#
            ),
            (
                #"{"durations":[300],"sound":"/tmp/bell.wav"}"#, -32601,
                #""sound" of timer.start (--sound)"# + tail.dropLast()
            ),
            (
                #"{"durations":[300],"warnEach":"yes"}"#, -32602,
                #""warnEach" of timer.start must be a boolean, got string"#
            ),
            (
                #"{"durations":[300],"warnEach":true}"#, -32601,
                #""warnEach" of timer.start (--warn-each)"# + tail.dropLast()
            ),
        ]
        for (index, (params, code, message)) in cases.enumerated() {
            let reply = try client.request(
                #"{"jsonrpc":"2.0","id":\#(index + 1),"method":"timer.start","params":"# + params + "}")
            let error = reply["error"] as? [String: Any]
            #expect(error?["code"] as? Int == code, "\(params): \(reply)")
            #expect(error?["message"] as? String == message, "\(params): \(reply)")
        }
        #expect(harness.stopDaemon() == 0)
    }
}
