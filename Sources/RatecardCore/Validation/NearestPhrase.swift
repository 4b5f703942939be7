import RatecardSupport

/// Where a document comes nearest to a sentence it must hold, and how it differs: for a
/// mandatory phrase with a typo (`수수료을` for `수수료를`), the line and column of the first
/// differing word and the difference, word by word.
///
/// The body is compared line by line (and across up to three wrapped lines of one paragraph),
/// with whitespace collapsed as the phrase check does and Markdown emphasis marks left out, by
/// the edit distance of the phrase to the closest stretch of text (approximate substring
/// matching). A stretch further than a third of the phrase's length is no match.
package struct NearestPhrase: Sendable, Equatable {
    /// 1-based, in the file: the start of the first word that differs.
    package var mark: SourceMark
    /// Each differing stretch as written and as the phrase has it, widened to whole words.
    package var differences: [(found: String, expected: String)]
    package var distance: Int

    package static func == (lhs: NearestPhrase, rhs: NearestPhrase) -> Bool {
        lhs.mark == rhs.mark && lhs.distance == rhs.distance && lhs.differences.elementsEqual(rhs.differences) { $0 == $1 }
    }

    /// `'수수료을' -> '수수료를'`, each difference quoted, joined with commas.
    package var shown: String {
        differences.map { "'\($0.found)' -> '\($0.expected)'" }.joined(separator: ", ")
    }

    /// One character of the compared text and where it is in the file.
    private struct Placed {
        var character: Character
        var line: Int
        var column: Int
    }

    /// The nearest stretch of `body` (whose first line is line `firstLine` of the file) to
    /// `phrase`, or nil when nothing comes close.
    package static func find(_ phrase: String, in body: String, firstLine: Int) -> NearestPhrase? {
        let expected = Array(phrase.split(whereSeparator: \.isWhitespace).joined(separator: " "))
        guard !expected.isEmpty else { return nil }
        let ignored: Set<Character> = Set("*_`").subtracting(expected)
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        var best: (distance: Int, text: [Placed], start: Int, end: Int)?
        for first in lines.indices {
            var window: [Placed] = []
            for index in first..<min(first + 3, lines.count) {
                if index > first && lines[index].allSatisfy(\.isWhitespace) { break }
                if !window.isEmpty { window.append(Placed(character: " ", line: 0, column: 0)) }
                var column = 0
                for character in lines[index] {
                    column += character.unicodeScalars.count
                    if ignored.contains(character) || character == "\r" { continue }
                    if character.isWhitespace {
                        if window.last.map({ $0.character == " " }) ?? true { continue }
                        window.append(Placed(character: " ", line: 0, column: 0))
                    } else {
                        window.append(Placed(character: character, line: firstLine + index, column: column - character.unicodeScalars.count + 1))
                    }
                }
                while window.last?.character == " " { window.removeLast() }
                guard !window.isEmpty else { break }
                let found = closest(expected, in: window.map(\.character))
                if found.distance < (best?.distance ?? .max) {
                    best = (found.distance, window, found.start, found.end)
                }
                if found.distance == 0 { break }
            }
        }
        guard let best, best.distance > 0, best.distance <= max(1, expected.count / 3) else { return nil }
        // Whole words: a stretch that starts or ends inside a word is widened to it.
        var start = best.start
        var end = best.end
        while start > 0 && best.text[start - 1].character != " " { start -= 1 }
        while end < best.text.count && best.text[end].character != " " { end += 1 }
        let found = Array(best.text[start..<end])
        let regions = differingRegions(found.map(\.character), expected)
        guard let firstRegion = regions.first else { return nil }
        // The mark: the first character of the first differing word that is in the file.
        let at = found[firstRegion.found.lowerBound..<found.count].first { $0.line > 0 } ?? found.first { $0.line > 0 }
        guard let at else { return nil }
        let differences = regions.map { region in
            (String(found[region.found].map(\.character)), String(expected[region.expected]))
        }
        return NearestPhrase(mark: SourceMark(line: at.line, column: at.column), differences: differences, distance: best.distance)
    }

    /// The stretch of `text` with the least edit distance to `pattern` (Sellers' algorithm: a
    /// match may start and end anywhere), the earliest among equals.
    static func closest(_ pattern: [Character], in text: [Character]) -> (distance: Int, start: Int, end: Int) {
        let m = pattern.count
        let n = text.count
        // table[i][j]: the distance of pattern[..<i] to the best stretch ending at text[j - 1].
        var table = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: m + 1)
        for i in 0...m { table[i][0] = i }
        if m > 0 {
            for i in 1...m {
                for j in stride(from: 1, through: n, by: 1) {
                    let cost = pattern[i - 1] == text[j - 1] ? 0 : 1
                    table[i][j] = min(table[i - 1][j - 1] + cost, table[i - 1][j] + 1, table[i][j - 1] + 1)
                }
            }
        }
        var end = 0
        for j in 0...n where table[m][j] < table[m][end] { end = j }
        // Walk back to where the stretch starts.
        var i = m
        var j = end
        while i > 0 && j > 0 {
            let cost = pattern[i - 1] == text[j - 1] ? 0 : 1
            if table[i][j] == table[i - 1][j - 1] + cost {
                i -= 1
                j -= 1
            } else if table[i][j] == table[i - 1][j] + 1 {
                i -= 1
            } else {
                j -= 1
            }
        }
        return (table[m][end], j, end)
    }

    /// The stretches where `found` and `expected` differ, each widened to the whole words
    /// around it in both (a word ends at a space), in order; stretches that touch one word are
    /// one.
    static func differingRegions(_ found: [Character], _ expected: [Character]) -> [(found: Range<Int>, expected: Range<Int>)] {
        // An alignment by edit distance: pairs of indices, nil where one side has nothing.
        let m = found.count
        let n = expected.count
        var table = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: m + 1)
        for i in 0...m { table[i][0] = i }
        for j in 0...n { table[0][j] = j }
        if m > 0 && n > 0 {
            for i in 1...m {
                for j in 1...n {
                    let cost = found[i - 1] == expected[j - 1] ? 0 : 1
                    table[i][j] = min(table[i - 1][j - 1] + cost, table[i - 1][j] + 1, table[i][j - 1] + 1)
                }
            }
        }
        var differing: [(Int, Int)] = []  // (position in found, position in expected) where they differ
        var i = m
        var j = n
        while i > 0 || j > 0 {
            if i > 0 && j > 0 && table[i][j] == table[i - 1][j - 1] + (found[i - 1] == expected[j - 1] ? 0 : 1) {
                if found[i - 1] != expected[j - 1] { differing.append((i - 1, j - 1)) }
                i -= 1
                j -= 1
            } else if i > 0 && table[i][j] == table[i - 1][j] + 1 {
                differing.append((i - 1, j))
                i -= 1
            } else {
                differing.append((i, j - 1))
                j -= 1
            }
        }
        func word(_ text: [Character], around position: Int) -> Range<Int> {
            var start = min(position, text.count)
            while start > 0 && text[start - 1] != " " { start -= 1 }
            var end = min(position, text.count)
            while end < text.count && text[end] != " " { end += 1 }
            return start..<end
        }
        var regions: [(found: Range<Int>, expected: Range<Int>)] = []
        for (f, e) in differing.reversed() {
            let a = word(found, around: f)
            let b = word(expected, around: e)
            if let last = regions.last, last.found.upperBound >= a.lowerBound, last.expected.upperBound >= b.lowerBound {
                regions[regions.count - 1] = (last.found.lowerBound..<max(last.found.upperBound, a.upperBound), last.expected.lowerBound..<max(last.expected.upperBound, b.upperBound))
            } else {
                regions.append((a, b))
            }
        }
        return regions
    }
}
