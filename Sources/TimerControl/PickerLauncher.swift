import Glibc

/// Runs the terminal date picker, `timerpick`, for `timerctl pick` and `timerctl start --at -`/`--pick`.
///
/// The picker is a separate executable installed next to `timerctl` (found through the directory of
/// `/proc/self/exe`), because it links full Foundation with ICU, which would double `timerctl`'s start-up time
/// (docs/performance.md). `timerctl pick` replaces itself with the picker (`execv`), so the picker's output and
/// exit status are `timerctl pick`'s; `start --at -` runs it as a child, reads the picked instant from a pipe and
/// continues as `start --at INSTANT`.
enum PickerLauncher {
    /// `timerctl pick`: replaces this process with the picker, given the options that
    /// ``ControlOptions/parse(_:)`` scanned with the command table; returns only on failure.
    ///
    /// - Parameters:
    ///   - options: the parsed command line (`verb == .pick`).
    ///   - output: where the error goes if the picker cannot run.
    /// - Returns: 69, with the reason on standard error, when the picker cannot be started.
    static func pick(_ options: ControlOptions, output: inout some ControlOutput) -> Int32 {
        execPicker(options.pickerArguments, output: &output)
    }

    /// `timerctl calendar`: replaces this process with `timerpick calendar …`, which evaluates the expression
    /// with the CalendarEvents library (it needs the time-zone data of full Foundation, which `timerctl` does
    /// not load); returns only on failure.
    ///
    /// - Parameters:
    ///   - options: the parsed command line (`verb == .calendar`, the expression in `arguments`).
    ///   - output: where the error goes if the helper cannot run.
    /// - Returns: 69, with the reason on standard error, when `timerpick` cannot be started.
    static func calendar(_ options: ControlOptions, output: inout some ControlOutput) -> Int32 {
        var arguments = ["calendar"] + options.pickerArguments
        if options.json { arguments.append("--json") }
        return execPicker(arguments + ["--"] + options.arguments, output: &output)
    }

    /// `timerctl start --pick` (or `--at -`): runs the picker in date-and-time mode with `--min now`
    /// (so it opens at the next step of the minute interval, and Enter at once picks a time still
    /// ahead) and the minute interval, which then shapes the minute wheel; returns the options with
    /// the picked instant as `--at`.
    ///
    /// - Parameters:
    ///   - options: the parsed `start` command line with ``ControlOptions/pick`` set or `at == "-"`.
    ///   - output: where errors go.
    /// - Returns: the options to run, or the exit status: the picker's own (1 when cancelled with
    ///   Esc, 69 when there is no terminal) or 69 when it cannot be started.
    static func pickEndTime(_ options: ControlOptions, output: inout some ControlOutput) -> Result<
        ControlOptions, PickerExit
    > {
        var arguments = ["--mode", "date-and-time", "--min", "now"]
        if let interval = options.minuteInterval { arguments += ["--minute-interval", String(interval)] }
        let (status, text) = runPicker(arguments, output: &output)
        guard status == 0 else { return .failure(PickerExit(status: status)) }
        var picked = options
        picked.pick = false
        picked.at = text
        // The picked instant has an offset and already respects the interval.
        picked.minuteInterval = nil
        return .success(picked)
    }

    /// The picker did not produce a time: exit with its status.
    struct PickerExit: Error {
        /// The exit status for `timerctl`.
        var status: Int32
    }

    /// The picker's path: `timerpick` in the directory of this process's executable.
    static func pickerPath() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return readlink("/proc/self/exe", base.assumingMemoryBound(to: CChar.self), raw.count - 1)
        }
        guard count > 0 else { return "timerpick" }
        let path = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return "timerpick" }
        return String(path[...slash]) + "timerpick"
    }

    /// Replaces this process with the picker; returns only on failure.
    private static func execPicker(_ arguments: [String], output: inout some ControlOutput) -> Int32 {
        let path = pickerPath()
        withCStrings([path] + arguments) { argv in _ = execv(path, argv) }
        output.err("Error: cannot run the date picker \(path): \(String(cString: strerror(errno)))\n")
        return 69
    }

    /// Runs the picker as a child with its standard output on a pipe.
    ///
    /// - Returns: The picker's exit status (128 + N for signal N) and its output without the line end.
    private static func runPicker(_ arguments: [String], output: inout some ControlOutput) -> (Int32, String) {
        let path = pickerPath()
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            output.err("Error: pipe: \(String(cString: strerror(errno)))\n")
            return (69, "")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        var pid: pid_t = 0
        let spawned = withCStrings([path] + arguments) { argv in
            posix_spawn(&pid, path, &actions, nil, argv, environ)
        }
        close(pipeFDs[1])
        guard spawned == 0 else {
            close(pipeFDs[0])
            output.err("Error: cannot run the date picker \(path): \(String(cString: strerror(spawned)))\n")
            return (69, "")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(pipeFDs[0], &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        close(pipeFDs[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand: the macros are not imported into Swift.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let text = String(decoding: bytes, as: UTF8.self)
        return (exitStatus, text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// Calls `body` with a NULL-terminated C array of the strings.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
