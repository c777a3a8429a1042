import CommandLineTable
import Foundation
import Testing

@testable import TimerDaemon

/// timerd's help, rendered from `CommandTable.timerd`, is byte-identical to the golden file captured
/// from the hand-written help it replaced (`timerd --help` of commit d718e5d).
@Suite("timerd command table")
struct DaemonHelpTests {
    @Test("timerd --help matches its golden file")
    func help() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/timerd-help.txt")
        #expect(DaemonOptions.help == (try String(contentsOf: path, encoding: .utf8)))
        #expect(DaemonOptions.usageLine == "timerd [--socket PATH] [--state-dir DIR] [--config PATH] [OPTIONS]")
    }

    @Test("the hidden option is accepted but not listed")
    func hiddenOption() throws {
        #expect(try DaemonOptions.parse(["--journal-max-records", "5"]).journalMaximumRecords == 5)
        #expect(!DaemonOptions.help.contains("--journal-max-records"))
    }

    @Test("the shared scanner gives timerd --option=VALUE and `--` too")
    func sharedScanner() throws {
        #expect(try DaemonOptions.parse(["--socket=/tmp/t.sock"]).socketPath == "/tmp/t.sock")
        #expect(try DaemonOptions.parse(["--save", "exit", "--save", "change"]).savePolicy == .everyChange)
        #expect(throws: DaemonOptions.UsageError(message: "unknown argument \"extra\"")) {
            try DaemonOptions.parse(["--", "extra"])
        }
        #expect(throws: DaemonOptions.UsageError(message: "unknown argument \"--help=1\"")) {
            try DaemonOptions.parse(["--help=1"])
        }
        #expect(throws: DaemonOptions.UsageError(message: "unknown argument \"-5\"")) {
            try DaemonOptions.parse(["-5"])
        }
    }

    @Test("every option of the table is one that DaemonOptions records", arguments: CommandTable.timerd.globalOptions)
    func everyOptionHandled(_ option: OptionSpec) {
        // A value each option accepts, so that only an unhandled option can fail here.
        let choices = [
            "--save": "exit", "--socket-mode": "0600", "--log-level": "warning", "--metrics": "127.0.0.1:9464",
        ]
        let value = choices[option.longName] ?? "5"
        let words = [option.longName] + (option.value == nil ? [] : [value])
        #expect(throws: Never.self) { try DaemonOptions.parse(words) }
    }
}
