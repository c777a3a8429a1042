import CommandLineTable
import Testing

@testable import TimerControl

/// `timerctl completion SHELL` in process: what it prints and how it refuses a shell it has no
/// script for. (The scripts themselves run in real shells in EndToEndTests/CompletionTests.)
@Suite("timerctl completion")
struct CompletionCommandTests {
    @Test("prints the table's script for each shell, on stdout, exit 0", arguments: CompletionShell.allCases)
    func prints(_ shell: CompletionShell) {
        var output = CapturedOutput()
        #expect(ControlCommand.run(["completion", shell.rawValue], output: &output) == 0)
        #expect(output.stdout == CommandTable.timerctl.completionScript(for: shell, timerLister: "__complete-timers"))
        #expect(output.stderr.isEmpty)
    }

    @Test("an unknown shell is a usage error (exit 64) naming the three it knows")
    func unknownShell() {
        var output = CapturedOutput()
        #expect(ControlCommand.run(["completion", "tcsh"], output: &output) == 64)
        #expect(output.stdout.isEmpty)
        #expect(
            output.stderr == """
                Error: unknown shell 'tcsh' (bash, zsh or fish)
                See 'timerctl completion --help'.

                """)
    }

    @Test("the hidden timer lister is left out of help's list and of every script's commands")
    func hiddenLister() throws {
        #expect(!HelpText.main.contains("__complete-timers"))
        let bash = CommandTable.timerctl.completionScript(for: .bash, timerLister: "__complete-timers")
        // The script's command list (the `''` arm of its last `case`), from the table's listed order.
        #expect(
            bash.contains(
                "'') _timerctl_words \"$cur\" start stop pause resume status wait logs events bar notifier extend restart beat ack snooze rename "
                    + "skip rm watch ping reload stats pick completion help calendar ;;"))
    }
}
