/// One way to call a command: its synopsis and the one-line summary the command list shows.
package struct Usage: Sendable, Equatable {
    /// What follows the command's name (`DURATION... [--name NAME]`).
    package var items: [SynopsisItem]
    /// The summary in the program's command list (`start a timer; several durations make a group`).
    package var summary: String

    /// Creates a usage.
    ///
    /// - Parameters:
    ///   - items: what follows the command's name.
    ///   - summary: the one-line summary.
    package init(_ items: [SynopsisItem], summary: String) {
        self.items = items
        self.summary = summary
    }
}
