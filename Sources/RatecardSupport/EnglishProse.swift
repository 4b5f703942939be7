/// Finds English prose in a text meant to be Korean: a run of three or more English words.
///
/// The tests that hold every message and every command's output to Korean use it. What is not
/// prose is left out first: quoted and bracketed spans ('...', "...", `...`, <...>), and any
/// token that holds a character a word does not (a path, an id, a field name, an option, a
/// number, a URL: `/ . _ - : = @ # % + * { } [ ] |` or a digit). What remains is split into
/// clauses at commas and other marks, and clauses into words; a word is English when it is all
/// ASCII letters, and three such words in a row (with no Korean word or mark between them) are
/// a sentence left untranslated.
package enum EnglishProse {
    /// Each run of three or more English words in `text`.
    package static func runs(in text: String, allowing allowed: [String] = []) -> [String] {
        var text = text
        for phrase in allowed { text = text.replacingOccurrences(of: phrase, with: " ") }
        var runs: [String] = []
        var current: [Substring] = []
        func end() {
            if current.count >= 3 { runs.append(current.joined(separator: " ")) }
            current = []
        }
        // A comma or another mark between words ends a run: `card, capital, insurance` is a list
        // of values, not a sentence.
        for clause in withoutSpans(text).split(whereSeparator: { ",;!?()".contains($0) }) {
            for token in tokens(String(clause)) {
                if isEnglishWord(token) {
                    current.append(token)
                } else {
                    end()
                }
            }
            end()
        }
        return runs
    }

    /// `text` with its quoted and bracketed spans blanked out (an unclosed one is left).
    static func withoutSpans(_ text: String) -> String {
        let pairs: [Character: Character] = ["'": "'", "\"": "\"", "`": "`", "<": ">", "‘": "’", "“": "”"]
        var out = ""
        var characters = Array(text)[...]
        while let first = characters.first {
            characters = characters.dropFirst()
            if let close = pairs[first], first != "'" || isQuoteStart(out), let end = characters.firstIndex(of: close),
                !characters[..<end].contains("\n")
            {
                out += " "
                characters = characters[characters.index(after: end)...]
            } else {
                out.append(first)
            }
        }
        return out
    }

    /// An apostrophe opens a quotation only where a word cannot be going on (`don't` is a word).
    private static func isQuoteStart(_ before: String) -> Bool {
        guard let last = before.last else { return true }
        return !(last.isLetter || last.isNumber)
    }

    /// Words and other tokens, split at white space and at the punctuation that ends words.
    static func tokens(_ text: String) -> [Substring] {
        text.split { $0.isWhitespace || ",;!?()".contains($0) }.map { token in
            var token = token
            while let last = token.last, ".:".contains(last) { token = token.dropLast() }
            return token
        }
    }

    static func isEnglishWord(_ token: Substring) -> Bool {
        !token.isEmpty && token.allSatisfy { $0.isASCII && $0.isLetter }
    }
}
