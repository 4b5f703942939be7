import RatecardSupport

/// A terms body's opening `# <title>` line: its page shows the title as the page's heading, so
/// the article below it leaves that line out.
package enum TitleHeading {
    /// The body without its opening `# <title>` line (the body itself when it has none).
    package static func dropping(from body: String, title: String) -> String {
        if let range = range(in: body, title: title) {
            guard let range else { return body }
            let utf8 = body.utf8
            if range.upperBound < utf8.endIndex {
                return String(Substring(utf8[..<range.lowerBound])) + String(Substring(utf8[utf8.index(after: range.upperBound)...]))
            }
            return range.lowerBound == utf8.startIndex ? "" : String(Substring(utf8[..<utf8.index(before: range.lowerBound)]))
        }
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { !$0.allSatisfy(\.isWhitespace) }),
            lines[first].hasPrefix("# "),
            String(lines[first].dropFirst(2)).trimmingCharacters(in: " \t#") == title.trimmingCharacters(in: " \t")
        else { return body }
        lines.remove(at: first)
        return lines.joined(separator: "\n")
    }

    /// What the page's article is made of, for `CommonMark.read`: the whole body, or the body
    /// without the heading on a line (1-based); nil when the body has a CR (only `dropping`
    /// can say then, and the page renders the article itself).
    package static func article(of body: String, title: String) -> CommonMark.Article? {
        guard let found = range(in: body, title: title) else { return nil }
        guard let range = found else { return .whole }
        let line = body.utf8[..<range.lowerBound].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        return .droppingHeading(line: line)
    }

    /// The bytes of the title line in a body without CR (then lines are exactly the LF-separated
    /// runs), its LF excluded: only the lines up to the first non-blank one are looked at, with
    /// no decoding of the body (about 8 KB per terms version). Nil when the body has a CR,
    /// `.some(nil)` when there is no title line.
    private static func range(in body: String, title: String) -> Range<String.UTF8View.Index>?? {
        let utf8 = body.utf8
        guard !utf8.contains(0x0D) else { return nil }
        var start = utf8.startIndex
        while true {
            let end = utf8[start...].firstIndex(of: 0x0A) ?? utf8.endIndex
            let line = Substring(utf8[start..<end])
            if !line.allSatisfy(\.isWhitespace) {
                guard line.hasPrefix("# "),
                    String(line.dropFirst(2)).trimmingCharacters(in: " \t#") == title.trimmingCharacters(in: " \t")
                else {
                    return .some(nil)
                }
                return .some(start..<end)
            }
            guard end < utf8.endIndex else { return .some(nil) }
            start = utf8.index(after: end)
        }
    }
}
