/// A positional argument of a command: its value and how many times it may occur.
package struct ArgumentSpec: Sendable, Equatable {
    /// How many words the argument takes.
    package enum Arity: Sendable, Equatable {
        /// Exactly one word.
        case exactlyOne
        /// None or one.
        case optional
        /// One or more.
        case oneOrMore
    }

    /// How the argument's count was wrong; the program words the message.
    package enum Violation: Sendable, Equatable {
        /// Fewer words than the arity needs (none, for ``Arity/exactlyOne`` and ``Arity/oneOrMore``).
        case tooFew
        /// More words than the arity allows.
        case tooMany
    }

    /// The value (`ID|NAME`, `DURATION`).
    package var value: ValueSpec
    /// How many words it takes.
    package var arity: Arity

    /// Creates a positional argument.
    ///
    /// - Parameters:
    ///   - value: what it is and how help names it.
    ///   - arity: how many words it takes.
    package init(_ value: ValueSpec, _ arity: Arity) {
        self.value = value
        self.arity = arity
    }

    /// The argument as a synopsis shows it: `ID|NAME`, `[ID|NAME]` or `DURATION...`.
    package var synopsis: String {
        switch arity {
        case .exactlyOne: return value.name
        case .optional: return "[\(value.name)]"
        case .oneOrMore: return "\(value.name)..."
        }
    }

    /// Checks a count of words against the arity.
    ///
    /// - Parameter count: how many positional words were given.
    /// - Returns: what is wrong, or `nil` when the count fits.
    package func violation(count: Int) -> Violation? {
        switch arity {
        case .exactlyOne: return count < 1 ? .tooFew : count > 1 ? .tooMany : nil
        case .optional: return count > 1 ? .tooMany : nil
        case .oneOrMore: return count < 1 ? .tooFew : nil
        }
    }
}
