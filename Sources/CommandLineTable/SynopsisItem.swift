/// One element of a usage synopsis, naming the table's own options and arguments so that the
/// synopsis cannot drift from what the scanner accepts.
package enum SynopsisItem: Sendable, Equatable {
    /// An option by its long name: `[--name NAME]` when optional, `--at TIME` when required.
    case option(String, isOptional: Bool)
    /// The command's positional argument by its value's name (`ID|NAME` shows as its
    /// ``ArgumentSpec/synopsis``, `[ID|NAME]` when optional).
    case argument(String)
    /// Literal text (`COMMAND [ARGS]`, `[OPTIONS]`).
    case text(String)
}
