/// Splits a Markdown file into its `---` fenced YAML front matter and its body.
enum FrontMatter {
    struct Parts {
        var yaml: String
        var body: String
        /// The 1-based line the body starts on.
        var bodyLine: Int
    }

    static func split(_ text: String) throws(YAMLError) -> Parts {
        if let parts = splitWithoutCR(text) { return parts }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
        guard lines.first == "---" else {
            throw YAMLError(
                rule: FileRules.frontMatter.id, mark: .start,
                message: "a terms document starts with '---', its YAML front matter, and another '---'")
        }
        guard let close = lines.dropFirst().firstIndex(of: "---") else {
            throw YAMLError(
                rule: FileRules.frontMatter.id, mark: .start,
                message: "the front matter opened on line 1 is never closed with '---'")
        }
        let yaml = lines[1..<close].joined(separator: "\n")
        lines = Array(lines[(close + 1)...])
        return Parts(yaml: yaml, body: lines.joined(separator: "\n"), bodyLine: close + 2)
    }

    /// The same split over UTF-8 bytes, for text without a CR (then every `"\n"` Character is
    /// one LF byte and lines compare bytewise). Nil when the text has a CR, or is not a well-formed
    /// front matter document (the Character path above then says why).
    private static func splitWithoutCR(_ text: String) -> Parts? {
        var copy = text
        let offsets = copy.withUTF8 { bytes -> (yaml: Range<Int>, body: Int, line: Int)? in
            guard !bytes.containsCR else { return nil }
            // Each line is a byte range [start, end) without its LF.
            func isFence(_ start: Int, _ end: Int) -> Bool {
                end - start == 3 && bytes[start] == 0x2D && bytes[start + 1] == 0x2D && bytes[start + 2] == 0x2D
            }
            func lineEnd(from start: Int) -> Int {
                var end = start
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                return end
            }
            var end = lineEnd(from: 0)
            guard isFence(0, end), end < bytes.count else { return nil }
            let yamlStart = end + 1
            var start = yamlStart
            var line = 1
            while true {
                end = lineEnd(from: start)
                if isFence(start, end) { break }
                guard end < bytes.count else { return nil }
                start = end + 1
                line += 1
            }
            return (yamlStart..<max(yamlStart, start - 1), min(end + 1, bytes.count), line)
        }
        guard let offsets else { return nil }
        // Slices at LF boundaries of the original string: copied, not decoded again.
        let utf8 = text.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        return Parts(
            yaml: String(text[index(offsets.yaml.lowerBound)..<index(offsets.yaml.upperBound)]),
            body: String(text[index(offsets.body)...]), bodyLine: offsets.line + 2)
    }
}
