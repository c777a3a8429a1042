import Testing

@testable import TimerControl

/// `timerctl bar`'s usage errors: exact text on stderr, exit 64, found before connecting (the
/// socket named here does not exist, so reaching it would be exit 69 instead).
@Suite("timerctl bar: usage errors")
struct BarCommandTests {
    @Test(
        "each usage error names what was wrong and what is allowed",
        arguments: [
            (
                ["bar", "--format", "{name} {left}"],
                "Error: --format: unknown field '{left}' (fields: {name} {id} {remaining} {progress} {state} "
                    + "{next} {icon}; '{{' and '}}' are braces)\nSee 'timerctl bar --help'.\n"
            ),
            (
                ["bar", "--waybar", "--tmux"],
                "Error: 'bar' takes one of --waybar, --i3blocks, --polybar or --tmux\nSee 'timerctl bar --help'.\n"
            ),
            (
                ["bar", "--json"],
                "Error: 'bar' prints lines; --waybar prints one JSON object per line (not --json)\n"
                    + "See 'timerctl bar --help'.\n"
            ),
            (
                ["bar", "--idle", "a\nb"],
                "Error: --idle: a status-bar line cannot contain a line break\nSee 'timerctl bar --help'.\n"
            ),
            // After another command the scanner refuses bar's options; before it, ControlOptions does.
            (
                ["status", "--format", "{name}"],
                "Error: unknown option '--format' for 'status'\nSee 'timerctl status --help'.\n"
            ),
            (
                ["--format", "{name}", "status"],
                "Error: option '--format' is only for 'bar'\nSee 'timerctl status --help'.\n"
            ),
            (["--waybar", "events"], "Error: option '--waybar' is only for 'bar'\nSee 'timerctl events --help'.\n"),
            (["--idle", "x", "watch"], "Error: option '--idle' is only for 'bar'\nSee 'timerctl watch --help'.\n"),
            (["bar", "tea", "cake"], "Error: 'bar' takes at most one ID or NAME\nSee 'timerctl bar --help'.\n"),
        ])
    func usageErrors(arguments: [String], stderr: String) {
        var output = CapturedOutput()
        let status = ControlCommand.run(["--socket", "/nonexistent/timerd.sock"] + arguments, output: &output)
        #expect(status == 64)
        #expect(output.stderr == stderr)
        #expect(output.stdout.isEmpty)
    }

    @Test("the style flags are read into ControlOptions; --format and --idle are kept as given")
    func options() throws {
        let options = try ControlOptions.parse(["bar", "tea", "--waybar", "--format", "{name}", "--idle", "-"])
        #expect(options.verb == .bar)
        #expect(options.arguments == ["tea"])
        #expect(options.barStyle == .waybar)
        #expect(options.format == "{name}")
        #expect(options.idle == "-")
        #expect(try ControlOptions.parse(["bar"]).barStyle == nil)
        #expect(try ControlOptions.parse(["bar", "--i3blocks"]).barStyle == .i3blocks)
        #expect(try ControlOptions.parse(["bar", "--polybar"]).barStyle == .polybar)
        #expect(try ControlOptions.parse(["bar", "--tmux"]).barStyle == .tmux)
    }
}
