import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// A service whose actions run as uid 1000 (a per-user daemon of uid 1000, or a system daemon
/// running as 1000), on a manual clock.
private func makeService() -> TimerService {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
    var service = TimerService(engine: TimerEngine(clock: clock), pid: 1)
    service.actionUID = 1_000
    return service
}

private func reply(_ service: inout TimerService, _ line: String, uid: UInt32) throws -> JSONValue {
    let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: 1))
    return try JSONDecoder().decode(JSONValue.self, from: Data(try #require(outcome.reply)))
}

private func error(_ value: JSONValue) -> (code: Double, message: String)? {
    guard case .object(let object) = value, case .object(let error)? = object["error"],
        case .number(let code)? = error["code"], case .string(let message)? = error["message"]
    else { return nil }
    return (code, message)
}

@Suite("timer.start's action parameter: read, checked, and refused from other users")
struct ActionParameterTests {
    @Test("An action from the daemon's own user is kept with the timer, the environment sorted")
    func accepted() throws {
        var service = makeService()
        let line = #"""
            {"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"action":{"exec":"echo hi","notify":true,"cwd":"/home/ann","env":{"PATH":"/usr/bin","LC_TIME":"de_DE.UTF-8"}}}}
            """#
        let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: 1_000, waiter: 1))
        #expect(outcome.requiresDurability)
        let action = try #require(service.engine.action(ofTimer: 1))
        #expect(
            action
                == TimerAction(
                    command: "echo hi", notify: true, workingDirectory: "/home/ann",
                    environment: [.init("LC_TIME", "de_DE.UTF-8"), .init("PATH", "/usr/bin")]))
        // No locator installed: the log line warns that notify-send was not found.
        #expect(outcome.event?.contains("warning: no notify-send in the captured PATH (/usr/bin)") == true)
    }

    @Test("Another uid is refused with -32007 and a message pointing to the per-user daemon")
    func refusedFromOtherUser() throws {
        var service = makeService()
        let value = try reply(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"action":{"exec":"id","cwd":"/"}}}"#,
            uid: 1_001)
        let refusal = try #require(error(value))
        // RPCErrorCode.permissionDenied; the text is TimerService+Actions' refusal for uid 1001.
        #expect(refusal.code == -32_007)
        #expect(
            refusal.message
                == "on-finish actions (--exec) run as timerd's own user (uid 1000), and this timerd cannot run them "
                + "as uid 1001; use a per-user timerd for actions (systemctl --user enable --now timerd.socket)")
        #expect(service.engine.liveCount == 0)  // nothing was started
        // Root is another user too: a daemon cannot act as a uid it does not run as.
        #expect(
            error(
                try reply(
                    &service,
                    #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[60],"action":{"notify":true,"cwd":"/"}}}"#,
                    uid: 0))?.code == -32_007)
    }

    @Test(
        "Malformed actions get -32602 with what is allowed",
        arguments: [
            (#"{"cwd":"/"}"#, #""action" needs "exec" (a command) or "notify": true"#),
            (#"{"exec":"x"}"#, #""action" needs "cwd": an absolute directory to run in"#),
            (#"{"exec":"x","cwd":"relative"}"#, #""action" needs "cwd": an absolute directory to run in"#),
            (#"{"exec":"","cwd":"/"}"#, #""exec" must be a shell command of 1 to 16384 bytes without NUL"#),
            (
                #"{"exec":"x","cwd":"/","shell":"bash"}"#,
                #"unknown member "shell" of "action"; allowed: cwd, env, exec, notify"#
            ),
            (
                #"{"exec":"x","cwd":"/","env":{"LD_PRELOAD":"/x.so"}}"#,
                #""env" may hold only DBUS_SESSION_BUS_ADDRESS, DISPLAY, HOME, LANG, LANGUAGE, LOGNAME, PATH, TZ, USER, WAYLAND_DISPLAY, XDG_RUNTIME_DIR and LC_*, got "LD_PRELOAD""#
            ),
            (
                #"{"exec":"x","cwd":"/","env":{"TIMER_ID":"9"}}"#,
                #""env" may hold only DBUS_SESSION_BUS_ADDRESS, DISPLAY, HOME, LANG, LANGUAGE, LOGNAME, PATH, TZ, USER, WAYLAND_DISPLAY, XDG_RUNTIME_DIR and LC_*, got "TIMER_ID""#
            ),
            (
                #"{"exec":"x","cwd":"/","env":{"PATH":1}}"#,
                #""env" value of PATH must be a string of at most 4096 bytes without NUL"#
            ),
            (
                #"{"exec":"x","cwd":"/","notify":"yes"}"#,
                #""action.notify" of timer.start must be a boolean, got string"#
            ),
            (#""echo""#, #""action" of timer.start must be an object, got string"#),
        ])
    func malformed(action: String, message: String) throws {
        var service = makeService()
        let value = try reply(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"action":"# + action + "}}",
            uid: 1_000)
        let refusal = try #require(error(value))
        #expect(refusal.code == -32_602)
        #expect(refusal.message == message)
    }

    @Test("With no action uid set (the default), every action is refused")
    func defaultRefuses() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), pid: 1)
        let value = try reply(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"action":{"exec":"id","cwd":"/"}}}"#,
            uid: 0)
        #expect(error(value)?.code == -32_007)
    }

    @Test("A recorded outcome is kept on the timer and the service reports it was recorded")
    func outcome() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), pid: 1)
        service.actionUID = 1_000
        _ = try reply(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[1],"action":{"exec":"true","cwd":"/"}}}"#,
            uid: 1_000)
        clock.advance(bySeconds: 1)
        _ = service.fireDueTimers()
        #expect(service.engine.takeDueActions().map(\.kind) == [.exec])
        #expect(service.recordActionOutcome(timer: 1, kind: .exec, outcome: .exited(0)).recorded)
        #expect(service.engine.action(ofTimer: 1)?.runs.map(\.outcome) == [.exited(0)])
        #expect(!service.recordActionOutcome(timer: 1, kind: .exec, outcome: .exited(0)).recorded)
    }
}

@Suite("The captured action environment (ActionEnvironment)")
struct ActionEnvironmentTests {
    @Test("Only the documented variables and LC_* are captured, sorted, without NUL or over-long values")
    func capture() {
        let environment = [
            "PATH": "/usr/bin", "HOME": "/home/ann", "LC_TIME": "de_DE.UTF-8", "LC_": "x", "LC_time": "x",
            "SSH_AUTH_SOCK": "/tmp/agent", "LD_PRELOAD": "/x.so", "AWS_SECRET_ACCESS_KEY": "secret",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "TZ": String(repeating: "x", count: 4_097),
            "DISPLAY": ":0",
        ]
        let captured = ActionEnvironment.capture(from: environment)
        // The names of ActionEnvironment.capturedNames present above, plus LC_TIME; TZ is over 4096 bytes.
        #expect(captured.map(\.name) == ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "HOME", "LC_TIME", "PATH"])
        #expect(captured.first { $0.name == "HOME" }?.value == "/home/ann")
    }

    @Test("A program is found in the first PATH directory that has it")
    func locate() {
        let present: Set<String> = ["/opt/bin/notify-send", "/usr/bin/notify-send"]
        #expect(
            ActionEnvironment.locate("notify-send", in: "/bin::/opt/bin/:/usr/bin", isExecutable: present.contains)
                == "/opt/bin/notify-send")
        #expect(ActionEnvironment.locate("notify-send", in: "/bin:/sbin", isExecutable: present.contains) == nil)
        #expect(ActionEnvironment.locate("notify-send", in: "", isExecutable: present.contains) == nil)
    }
}

@Suite("The action event on the wire")
struct ActionEventWireTests {
    @Test("An action report is the contract's member, keys sorted; the kind's wire name is action")
    func member() {
        let report = TimerEvent.ActionReport(kind: .exec, trigger: .missed, outcome: .signalled(9))
        let members = TimerService.eventMembers(of: .action(report))
        // The shared contract (COMMON.md): {"action":{"kind","status","trigger"}}, plus "outcome";
        // 137 = 128 + SIGKILL, as a shell reports it.
        #expect(members.map(\.key) == ["action"])
        #expect(
            members.map { String(decoding: $0.json, as: UTF8.self) }
                == [#"{"kind":"exec","outcome":"signalled","status":137,"trigger":"missed"}"#])
        #expect(TimerEvent.Name.action.rawValue == "action")
        let interrupted = TimerEvent.ActionReport(kind: .notify, trigger: .finished, outcome: .interrupted)
        #expect(
            String(decoding: interrupted.jsonObject, as: UTF8.self)
                == #"{"kind":"notify","outcome":"interrupted","status":null,"trigger":"finished"}"#)
    }
}
