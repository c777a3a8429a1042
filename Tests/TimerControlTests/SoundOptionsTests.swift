import Testing
import TimerClient
import TimerModel

@testable import TimerControl

@Suite("timerctl start --sound[=FILE] and --warn-each")
struct SoundOptionsTests {
    @Test("--sound alone is the default sound and never takes the next word; --sound=FILE names a file")
    func parsing() throws {
        let plain = try ControlOptions.parse(["start", "--sound", "25m"])
        #expect(plain.sound && plain.soundFile == nil && plain.arguments == ["25m"])
        let file = try ControlOptions.parse(["start", "25m", "--sound=bell.wav"])
        #expect(file.sound && file.soundFile == "bell.wav")
        #expect(throws: ControlError.usage("--sound=FILE needs a file, such as --sound=bell.wav", verb: .start)) {
            try ControlOptions.parse(["start", "25m", "--sound="])
        }
        #expect(throws: ControlError.usage("unknown option '--sound' for 'wait'", verb: .wait)) {
            try ControlOptions.parse(["wait", "tea", "--sound"])
        }
    }

    @Test("--sound sends the action's directory and variables and \"sound\"; warnsEachStep sends \"warnEach\"")
    func requestLine() throws {
        let options = try ControlOptions.parse(["start", "25m", "5m", "--sound", "--warn", "1m", "--warn-each"])
        #expect(options.warnEach && options.warn == 60)
        let action = try #require(
            ActionRequest.make(options, environment: ["PATH": "/usr/bin"], workingDirectory: "/home/ann"))
        let alarm = AlarmRequest(rings: false, warning: 60, warnsEachStep: true, sound: .standard)
        let line = try TimerRequest.start(
            durations: [1500, 300], name: nil, action: action.action, isHeartbeat: false, alarm: alarm
        ).line(id: 1)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"action":{"cwd":"/home/ann","env":{"PATH":"/usr/bin"}},"durations":[1500,300],"sound":true,"warn":60,"warnEach":true}}"#
                + "\n")
        let file = AlarmRequest(rings: true, warning: nil, sound: .file("/home/ann/bell.wav"))
        let fileLine = try TimerRequest.start(durations: [60], name: nil, action: nil, isHeartbeat: false, alarm: file)
            .line(id: 2)
        #expect(
            String(decoding: fileLine, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[60],"ring":true,"sound":"/home/ann/bell.wav"}}"#
                + "\n")
    }

    @Test(
        "--warn-each needs --warn; --sound and --warn-each are for one-shot timers",
        arguments: [
            (
                ["start", "25m", "5m", "--warn-each"],
                "option '--warn-each' goes with '--warn DURATION' (it warns before every step)"
            ),
            (
                ["start", "--every", "1h", "--warn", "1m", "--warn-each"],
                "option '--warn' goes with 'start DURATION...' or 'start --at TIME' (not --heartbeat, --on, --every)"
            ),
            (
                ["start", "5m", "--heartbeat", "--sound"],
                "option '--sound' goes with 'start DURATION...' or 'start --at TIME' (not --heartbeat, --on, --every)"
            ),
            (
                ["start", "--every", "1h", "--sound"],
                "option '--sound' goes with 'start DURATION...' or 'start --at TIME' (not --heartbeat, --on, --every)"
            ),
        ])
    func refusals(arguments: [String], message: String) {
        #expect(throws: ControlError.usage(message, verb: .start)) { try ControlOptions.parse(arguments) }
    }
}
