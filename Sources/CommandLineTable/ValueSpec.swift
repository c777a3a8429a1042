/// The value an option or a positional argument takes: its name in help, and its kind for completion.
package struct ValueSpec: Sendable, Equatable {
    /// What kind of word the value is, so that a shell completion can offer the right candidates.
    package enum Kind: Sendable, Equatable {
        /// Free text: nothing to complete.
        case text
        /// A file path.
        case file
        /// A directory path.
        case directory
        /// The path of a Unix-domain socket: completion offers sockets and directories (to walk
        /// into), not regular files such as a daemon's lock file beside its socket.
        case socket
        /// A number (seconds, a count, octal permissions …): nothing to complete.
        case number
        /// A duration in the grammar of `DurationParser` (`25m`, `1h30m`).
        case duration
        /// One of a fixed set of words.
        case choice([String])
        /// A command of the same table (`help COMMAND`).
        case command
        /// A live timer's id or name: a completion asks the daemon.
        case timer
    }

    /// The value's name in help and synopses (`PATH`, `ID|NAME`, `DURATION`).
    package var name: String
    /// Its kind, for completion.
    package var kind: Kind
    /// A description of the accepted values, printed as `NAME: …` under a command's help when not
    /// empty; `\n` where the terminal help breaks the line.
    package var help: String

    /// Creates a value description.
    ///
    /// - Parameters:
    ///   - name: the name in help (`PATH`).
    ///   - kind: what a completion offers (default ``Kind/text``).
    ///   - help: what values are accepted, or empty when the command's discussion says it.
    package init(_ name: String, _ kind: Kind = .text, help: String = "") {
        self.name = name
        self.kind = kind
        self.help = help
    }

    /// The name as a sentence says it: `ID or NAME` for `ID|NAME`.
    package var spokenName: String { name.split(separator: "|").joined(separator: " or ") }
}
