/// "Did you mean ...?": the known words nearest to a misspelt one.
public enum Suggestion {
    /// The edit distance between two words, counted in Unicode scalars: insertions, deletions,
    /// substitutions, and swaps of two neighbours (optimal string alignment).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, before[j - 2] + 1) }
                current[j] = best
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    /// The candidates close enough to `word` to be what was meant (at most `limit`, sorted):
    /// those that differ only in case, else those it begins (three letters or more), else the
    /// nearest within a third of the word's length in edits (at least one, at most three).
    public static func nearest(_ word: String, in candidates: [String], limit: Int = 3) -> [String] {
        let folded = word.lowercased()
        let sameLetters = candidates.filter { $0 != word && $0.lowercased() == folded }
        if !sameLetters.isEmpty { return Array(sameLetters.sorted().prefix(limit)) }
        // A word cut short (`prod` for `production`) is meant as the words it starts.
        let started = word.unicodeScalars.count >= 3 ? candidates.filter { $0 != word && $0.lowercased().hasPrefix(folded) } : []
        if !started.isEmpty { return Array(Set(started).sorted().prefix(limit)) }
        let allowed = min(3, max(1, word.unicodeScalars.count / 3))
        let scored = Set(candidates).filter { $0 != word }.map { ($0, distance(folded, $0.lowercased())) }.filter { $0.1 <= allowed }
        guard let best = scored.map(\.1).min() else { return [] }
        return Array(scored.filter { $0.1 == best }.map(\.0).sorted().prefix(limit))
    }

    /// `did you mean 'a'?` / `did you mean 'a' or 'b'?`, or nil when nothing is close.
    public static func didYouMean(_ word: String, in candidates: [String]) -> Message? {
        let found = nearest(word, in: candidates)
        guard !found.isEmpty else { return nil }
        let quoted = found.map { "'\($0)'" }
        return Message("did you mean \(quoted.joined(separator: " or "))?", ko: "혹시 \(quoted.joined(separator: " 또는 "))을(를) 뜻했습니까?")
    }
}
