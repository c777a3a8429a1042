/// One command (verb) of a command-line table.
package struct CommandSpec: Sendable, Equatable {
    /// The word that selects it (`status`).
    package var name: String
    /// Other words that select it; suggestions offer the ``name`` first.
    package var aliases: [String]
    /// Its positional arguments, in order (today at most one kind per command).
    package var arguments: [ArgumentSpec]
    /// Its own options (the table's global options are accepted too).
    package var options: [OptionSpec]
    /// The ways to call it, in the order help lists them.
    package var usages: [Usage]
    /// The help text after the usage lines; `\n` where the terminal help breaks lines.
    package var discussion: String
    /// Whether the program's command list shows it (`help` is a command that the list leaves out).
    package var isListed: Bool
    /// Whether it is for the program's own use (a shell completion's helper): left out of help's
    /// command list, of man pages and of completions, but accepted by the scanner.
    package var isHidden: Bool

    /// Creates a command.
    ///
    /// - Parameters:
    ///   - name: the word that selects it.
    ///   - aliases: other words that select it.
    ///   - arguments: its positional arguments.
    ///   - options: its own options.
    ///   - usages: the ways to call it.
    ///   - discussion: its help text after the usage lines.
    ///   - isListed: whether the command list shows it.
    ///   - isHidden: whether it is for the program's own use (implies not listed).
    package init(
        _ name: String, aliases: [String] = [], arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        usages: [Usage], discussion: String, isListed: Bool = true, isHidden: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.arguments = arguments
        self.options = options
        self.usages = usages
        self.discussion = discussion
        self.isListed = isListed && !isHidden
        self.isHidden = isHidden
    }

    /// The option spelled `name` among the command's own options.
    ///
    /// - Complexity: O(*n*) in the number of its options' spellings.
    package func option(named name: String) -> OptionSpec? {
        options.first { $0.names.contains(name) }
    }
}
