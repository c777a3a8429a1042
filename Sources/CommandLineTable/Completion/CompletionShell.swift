/// A shell that ``CommandLineTable/CommandTable/completionScript(for:timerLister:)`` writes a
/// completion script for.
package enum CompletionShell: String, Sendable, CaseIterable {
    /// GNU bash 4.2 or later with its programmable completion (`complete -F`); the script goes to
    /// /usr/share/bash-completion/completions/PROGRAM.
    case bash
    /// zsh's completion system (`compinit`); the script is the autoloaded function `_PROGRAM` in
    /// /usr/share/zsh/vendor-completions.
    case zsh
    /// fish 3 (`complete -c`); the script goes to /usr/share/fish/vendor_completions.d/PROGRAM.fish.
    case fish
}

/// What a completion offers for a value of a given ``ValueSpec/Kind``, decided once for every shell.
enum CompletionCandidates: Equatable {
    /// Nothing: free text, a number or a duration (the shell must not offer file names either).
    case nothing
    /// File paths (directories included, to walk into).
    case files
    /// Directory paths only.
    case directories
    /// Sockets, and directories to walk into.
    case sockets
    /// These words.
    case words([String])
    /// The live timers' ids and names, one per line of the program's timer-listing command.
    case timers

    /// The candidates for `kind` in `table`: `.command` offers the table's command words.
    init(_ kind: ValueSpec.Kind, in table: CommandTable) {
        switch kind {
        case .text, .number, .duration: self = .nothing
        case .file: self = .files
        case .directory: self = .directories
        case .socket: self = .sockets
        case .choice(let words): self = .words(words)
        case .command: self = .words(table.completedCommands.map(\.name))
        case .timer: self = .timers
        }
    }
}

extension CommandTable {
    /// The commands a completion offers: every command that is not hidden (`help` included).
    var completedCommands: [CommandSpec] { commands.filter { !$0.isHidden } }

    /// The options a completion offers where `command` is the command seen so far: the scanner's
    /// ``acceptedOptions(after:)`` without hidden ones and without repeats (two commands may
    /// share a spelling before the command word).
    func completedOptions(after command: CommandSpec?) -> [OptionSpec] {
        var seen = Set<String>()
        return acceptedOptions(after: command).filter { option in
            !option.isHidden && seen.insert(option.longName).inserted
        }
    }

    /// Every option that takes a value, each spelling once, with what its value completes to:
    /// the completion must skip the value word when it looks for the command, and complete it.
    var valueOptions: [(names: [String], candidates: CompletionCandidates)] {
        var seen = Set<String>()
        return acceptedOptions(after: nil).compactMap { option in
            guard let value = option.value, seen.insert(option.longName).inserted else { return nil }
            return (option.names, CompletionCandidates(value.kind, in: self))
        }
    }

    /// What the first positional argument of `command` completes to.
    func argumentCandidates(of command: CommandSpec) -> CompletionCandidates {
        command.arguments.first.map { CompletionCandidates($0.value.kind, in: self) } ?? .nothing
    }

    /// The shell function's name: the program's name with every character that a function name
    /// may not hold as `_` (`_timerctl`).
    var completionFunctionName: String {
        "_" + String(programName.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// A completion script for `shell`, generated from this table so that it offers exactly the
    /// commands, options and option values that the scanner accepts.
    ///
    /// The script completes command words (before the command), options (`-` typed; global ones
    /// and the command's own, or every command's before the command word, as the scanner accepts
    /// them), the value of an option (`--socket PATH`, `--socket=PATH`) and a command's first
    /// positional argument by their ``ValueSpec/Kind``: files, directories, a fixed choice, the
    /// table's commands, or live timers, which the script gets by running
    /// `PROGRAM timerLister` with stderr discarded (that command must print one candidate per line,
    /// nothing when the daemon is down, and must never start a daemon).
    ///
    /// - Parameters:
    ///   - shell: the shell the script is for.
    ///   - timerLister: the hidden command that prints live timers (`__complete-timers`).
    /// - Returns: the script, newline-terminated.
    /// - Complexity: O(*n*) in the size of the table.
    package func completionScript(for shell: CompletionShell, timerLister: String) -> String {
        switch shell {
        case .bash: return bashCompletionScript(timerLister: timerLister)
        case .zsh: return zshCompletionScript(timerLister: timerLister)
        case .fish: return fishCompletionScript(timerLister: timerLister)
        }
    }

    /// `text` as one single-quoted shell word (`it's` as `'it'\''s'`), valid in bash, zsh and fish.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }

    /// A help text on one line: the terminal help's line breaks as spaces.
    static func oneLine(_ text: String) -> String {
        text.split(separator: "\n").joined(separator: " ")
    }
}
