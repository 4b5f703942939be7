import RatecardSupport

/// Splits a Markdown file into its `---` fenced YAML front matter and its body.
///
/// Lines are what `split(separator: "\n")` over Characters gives, found over the UTF-8 bytes
/// (splitting 16 MB of terms text into Characters was a quarter of `validate --rev` on the
/// 3,000-product repository): a line ends at an LF that does not follow a CR (CR LF is one
/// Character, so a CRLF file is one line), and a CR ending the text is not part of its line.
/// The front matter and the body are slices of the text, never decoded again.
package enum FrontMatter {
    package struct Parts {
        package var yaml: String
        package var body: String
        /// The 1-based line the body starts on.
        package var bodyLine: Int
    }

    private enum Found {
        case unopened
        case unclosed
        case split(yaml: Range<Int>, body: Range<Int>, closingLine: Int)
    }

    package static func split(_ text: String) throws(YAMLError) -> Parts {
        var copy = text
        let found = copy.withUTF8 { bytes -> Found in
            // The end of the line starting at `start` (its LF, or the end of the text), and the
            // end of its text (without a CR that ends the whole text).
            func line(from start: Int) -> (end: Int, textEnd: Int) {
                var end = start
                while end < bytes.count && !(bytes[end] == 0x0A && (end == 0 || bytes[end - 1] != 0x0D)) { end += 1 }
                let textEnd = end == bytes.count && end > start && bytes[end - 1] == 0x0D ? end - 1 : end
                return (end, textEnd)
            }
            func isFence(_ start: Int, _ end: Int) -> Bool {
                end - start == 3 && bytes[start] == 0x2D && bytes[start + 1] == 0x2D && bytes[start + 2] == 0x2D
            }
            let first = line(from: 0)
            guard isFence(0, first.textEnd) else { return .unopened }
            guard first.end < bytes.count else { return .unclosed }
            let yamlStart = first.end + 1
            var start = yamlStart
            var number = 1
            while true {
                let current = line(from: start)
                if isFence(start, current.textEnd) {
                    let bodyStart = min(current.end + 1, bytes.count)
                    let bodyEnd = bytes[bytes.count - 1] == 0x0D ? bytes.count - 1 : bytes.count
                    return .split(yaml: yamlStart..<max(yamlStart, start - 1), body: bodyStart..<max(bodyStart, bodyEnd), closingLine: number)
                }
                guard current.end < bytes.count else { return .unclosed }
                start = current.end + 1
                number += 1
            }
        }
        switch found {
        case .unopened:
            throw YAMLError(
                rule: FileRules.frontMatter.id, mark: .start,
                message: Message(
                    "a terms document starts with '---', its YAML front matter, and another '---'", ko: "약관 문서는 '---' 줄, YAML 머리말, 다시 '---' 줄로 시작해야 합니다"))
        case .unclosed:
            throw YAMLError(
                rule: FileRules.frontMatter.id, mark: .start,
                message: Message("the front matter opened on line 1 is never closed with '---'", ko: "1번째 줄에서 연 머리말을 닫는 '---' 줄이 없습니다"))
        case .split(let yaml, let body, let closingLine):
            // Slices at ASCII boundaries of the original string: copied, not decoded again.
            let utf8 = text.utf8
            func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
            return Parts(
                yaml: String(text[index(yaml.lowerBound)..<index(yaml.upperBound)]),
                body: String(text[index(body.lowerBound)..<index(body.upperBound)]), bodyLine: closingLine + 2)
        }
    }
}
