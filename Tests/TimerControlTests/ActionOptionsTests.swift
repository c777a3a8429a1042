import Testing
import TimerClient
import TimerModel
import TimerProtocol

@testable import TimerControl

@Suite("timerctl start --exec/--notify and wait --bell/--message")
struct ActionOptionsTests {
    @Test("--exec and --notify are read for start; the request carries the directory and captured variables")
    func request() throws {
        let options = try ControlOptions.parse(["start", "25m", "--exec", "echo \"done\" > out", "--notify"])
        #expect(options.exec == "echo \"done\" > out" && options.notify)
        let request = try #require(
            ActionRequest.make(
                options, environment: ["PATH": "/usr/bin", "HOME": "/home/ann", "SECRET": "x"],
                workingDirectory: "/home/ann/tea"))
        // The line TimerClient's request writer sends (docs/protocol.md, "On-finish actions"): keys
        // sorted, SECRET not captured.
        let line = try TimerRequest.start(durations: [1500], name: nil, action: request.action, isHeartbeat: false)
            .line(id: 1)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"action":{"cwd":"/home/ann/tea","env":{"HOME":"/home/ann","PATH":"/usr/bin"},"exec":"echo \"done\" > out","notify":true},"durations":[1500]}}"#
                + "\n")
        #expect(
            ActionRequest.make(try ControlOptions.parse(["start", "1m"]), environment: [:], workingDirectory: "/")
                == nil)
    }

    @Test("--notify warns once when the captured PATH has no notify-send")
    func notifyWarning() throws {
        let options = try ControlOptions.parse(["start", "1m", "--notify"])
        let request = try #require(ActionRequest.make(options, environment: ["PATH": "/bin"], workingDirectory: "/"))
        #expect(
            request.notifyWarning(isExecutable: { _ in false })
                == "Warning: --notify: no notify-send in PATH; timerd will show no desktop notification "
                + "(install it: libnotify-bin on Debian and Ubuntu, libnotify on Fedora and Arch)\n")
        #expect(request.notifyWarning(isExecutable: { $0 == "/bin/notify-send" }) == nil)
    }

    @Test(
        "Each option belongs to its command (the scanner refuses it elsewhere, naming the command)",
        arguments: [
            (["stop", "1", "--exec", "x"], "unknown option '--exec' for 'stop'"),
            (["wait", "1", "--notify"], "unknown option '--notify' for 'wait'"),
            (["start", "1m", "--bell"], "unknown option '--bell' for 'start'"),
            (["status", "--message", "hi"], "unknown option '--message' for 'status'"),
            (["start", "1m", "--exec", ""], "--exec needs a command, such as --exec 'paplay bell.oga'"),
        ])
    func misplaced(arguments: [String], message: String) {
        #expect(throws: ControlError.self) { try ControlOptions.parse(arguments) }
        do {
            _ = try ControlOptions.parse(arguments)
        } catch {
            guard case .usage(let text, _) = error else {
                Issue.record("not a usage error: \(error)")
                return
            }
            #expect(text == message)
        }
    }

    @Test("The announcement is the message then BEL, only for a finished timer on a terminal")
    func announcement() {
        #expect(
            FinishAnnouncement.text(state: .finished, bell: true, message: "Tea!", isTerminal: true) == "Tea!\n\u{07}")
        #expect(FinishAnnouncement.text(state: .finished, bell: false, message: "Tea!", isTerminal: true) == "Tea!\n")
        #expect(FinishAnnouncement.text(state: .finished, bell: true, message: nil, isTerminal: true) == "\u{07}")
        #expect(FinishAnnouncement.text(state: .stopped, bell: true, message: "Tea!", isTerminal: true) == "")
        #expect(FinishAnnouncement.text(state: .finished, bell: true, message: "Tea!", isTerminal: false) == "")
        // An escape sequence in the text is shown, not obeyed.
        #expect(
            FinishAnnouncement.text(state: .finished, bell: false, message: "\u{1B}]0;x\u{07}", isTerminal: true)
                == "?]0;x?\n")
    }
}
