extension CommandTable {
    /// The command closest to a mistyped word, for "Did you mean 'status'?".
    ///
    /// A word of two or more characters that begins a command's name suggests that command;
    /// otherwise the command within an edit distance of 2 (optimal string alignment: insertion,
    /// deletion, substitution and a swap of neighbours each cost 1, so `stauts` is 1 from
    /// `status`), the first in table order on a tie, unless every character of the longer of the
    /// two would change (`x` is 2 from `rm`, which shares nothing with it).
    ///
    /// - Parameter word: the word that selected no command.
    /// - Returns: a command's name or alias, or `nil` when none is close.
    /// - Complexity: O(*c* · *w* · *n*) for *c* commands of length *n* and a word of length *w*.
    package func suggestion(for word: String) -> String? {
        let candidates = commandWords
        if word.count >= 2, let completion = candidates.first(where: { $0.hasPrefix(word) }) { return completion }
        return
            candidates
            .map { ($0, Self.editDistance(Array(word), Array($0))) }
            .filter { $0.1 <= 2 && $0.1 < max(word.count, $0.0.count) }
            .min { $0.1 < $1.1 }?.0
    }

    /// Optimal-string-alignment distance between two words.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
