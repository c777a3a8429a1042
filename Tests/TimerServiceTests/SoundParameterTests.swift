import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// `"sound"` of `timer.start` through the service: the stored action, the reply's `warning`, the log
/// line, and every refusal with its exact text, on a manual clock (FixedInstant.engineStart is
/// 2026-11-29T15:17:33Z). The checks the daemon installs (``TimerService/programLocator``,
/// ``TimerService/fileReadabilityChecker``) are stand-ins here that say what a test chooses.
@Suite("Sound in the service: the sound parameter, its warning and its refusals")
struct SoundParameterTests {
    private static func service(players: Set<String> = ["/usr/local/bin/aplay"], unreadable: Set<String> = [])
        -> TimerService
    {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242)
        service.actionUID = 1_000
        service.defaultSoundPath = "/usr/share/timerd/timerd-beep.wav"
        service.programLocator = { program, searchPath in
            searchPath.split(separator: ":").map { "\($0)/\(program)" }.first { players.contains($0) }
        }
        service.fileReadabilityChecker = { path in unreadable.contains(path) ? "Permission denied" : nil }
        return service
    }

    private static func send(_ service: inout TimerService, _ params: String, uid: UInt32 = 1_000) -> ServiceOutcome {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":"# + params + "}"
        return service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: 1, connection: 1))
    }

    private static func text(_ outcome: ServiceOutcome) -> String {
        outcome.reply.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    @Test("true stores the default sound; a path stores that path; with the action's cwd and env, or / and none")
    func stored() throws {
        var service = Self.service()
        let plain = Self.send(&service, #"{"durations":[60],"sound":true}"#)
        #expect(plain.event == #"started timer 1, 1m; on finish: sound "/usr/share/timerd/timerd-beep.wav""#)
        let bare = try #require(service.engine.action(ofTimer: 1))
        #expect(bare.sound == "/usr/share/timerd/timerd-beep.wav" && bare.workingDirectory == "/")
        #expect(bare.environment.isEmpty && bare.kinds == [.sound])
        let withAction = Self.send(
            &service,
            #"{"action":{"cwd":"/home/ann","env":{"PATH":"/usr/local/bin"},"notify":true},"durations":[60],"sound":"/home/ann/bell.wav"}"#
        )
        #expect(!Self.text(withAction).contains("warning"), "\(Self.text(withAction))")
        let full = try #require(service.engine.action(ofTimer: 2))
        #expect(
            full.sound == "/home/ann/bell.wav" && full.workingDirectory == "/home/ann"
                && full.kinds == [.notify, .sound])
        #expect(
            withAction.event
                == #"started timer 2, 1m; on finish: notify; warning: no notify-send in the captured PATH (/usr/local/bin): no desktop notification will be shown, sound "/home/ann/bell.wav""#
        )
    }

    @Test("no player in the captured PATH, an unreadable file: the result's last member is the warning; it starts")
    func warning() throws {
        var service = Self.service(players: [], unreadable: ["/home/ann/bell.wav"])
        let outcome = Self.send(
            &service, #"{"action":{"cwd":"/","env":{"PATH":"/opt/bin"}},"durations":[60],"sound":"/home/ann/bell.wav"}"#
        )
        let warning =
            "no sound player (pw-play, paplay, aplay) in the timer's PATH (/opt/bin); cannot read /home/ann/bell.wav: "
            + "Permission denied; the sound will not play"
        #expect(
            Self.text(outcome).hasSuffix(#""state":"running","warning":""# + warning + #""}}"#), "\(Self.text(outcome))"
        )
        #expect(outcome.event?.hasSuffix("; warning: " + warning) == true, "\(outcome.event ?? "")")
        #expect(service.engine.action(ofTimer: 1)?.sound == "/home/ann/bell.wav")
        // The client reads it back as TimerInfo.warning.
        let json = JSONValue(parsing: Array(Self.text(outcome).utf8))
        guard case .object(let members)? = json, let result = members["result"] else {
            Issue.record("no result")
            return
        }
        #expect(try TimerInfo(json: result).warning == warning)
    }

    @Test(
        "Refusals: the type, a relative path, with heartbeat or every, from another user; no default sound",
        arguments: [
            (
                #"{"durations":[60],"sound":5}"#, -32602,
                #""sound" of timer.start must be true or the absolute path of a sound file (string), got number"#
            ),
            (
                #"{"durations":[60],"sound":"bell.wav"}"#, -32602,
                #""sound" must be true (the default sound) or the absolute path of a sound file, at most 4096 bytes without NUL"#
            ),
            (
                #"{"durations":[60],"heartbeat":true,"sound":true}"#, -32602,
                #""sound" cannot be combined with "heartbeat": a heartbeat timer's end is already its alert, run by its on-finish action (--exec)"#
            ),
            (
                #"{"every":3600,"sound":true}"#, -32602,
                #""sound" cannot be combined with "every": use --exec with a player for a recurring timer, or a one-shot timer (durations or at)"#
            ),
        ])
    func refusals(params: String, code: Int, message: String) {
        var service = Self.service()
        let text = Self.text(Self.send(&service, params))
        #expect(text.contains(#""code":\#(code)"#), "\(text)")
        var writer = JSONBytesWriter()
        writer.string(message)
        #expect(text.contains(#""message":"# + String(decoding: writer.bytes, as: UTF8.self)), "\(text)")
    }

    @Test("From another uid: -32007 naming --sound; with no default sound: -32602 asking for a file")
    func otherUserAndNoDefault() {
        var service = Self.service()
        let other = Self.text(Self.send(&service, #"{"durations":[60],"sound":true}"#, uid: 1_001))
        #expect(
            other.contains(
                #""message":"on-finish actions (--sound) run as timerd's own user (uid 1000), and this timerd cannot run them as uid 1001; use a per-user timerd for actions (systemctl --user enable --now timerd.socket)""#
            ), "\(other)")
        #expect(other.contains(#""code":-32007"#))
        service.defaultSoundPath = nil
        let none = Self.text(Self.send(&service, #"{"durations":[60],"sound":true}"#))
        #expect(
            none.contains(
                #""message":"this timerd has no default sound (timerd-beep.wav was not found next to it or in /usr/share/timerd); give a file: timerctl start … --sound=FILE""#
            ), "\(none)")
    }
}
