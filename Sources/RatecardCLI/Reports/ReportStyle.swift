import RatecardKit

/// How a report is dressed: its language, and on a terminal the source line under each
/// finding with a caret at its column, and colour.
struct ReportStyle {
    var messages = Messages.english
    /// ANSI colour and source snippets (only on a terminal, never with NO_COLOR).
    var decorated = false
    /// The text of a file by its repository-relative path, for snippets.
    var source: ((String) -> String?)?

    static var plain: ReportStyle { ReportStyle() }

    /// ANSI SGR sequences, empty when not decorated.
    func paint(_ text: String, _ code: String) -> String {
        decorated ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func severity(_ severity: Rule.Severity) -> String {
        let word = messages(severity == .error ? Message("error", ko: "오류") : Message("warning", ko: "경고"))
        return paint(word, severity == .error ? "1;31" : "1;33")
    }

    /// The source line at `mark` and a caret under its column, indented; nil when unknown.
    func snippet(_ path: String, _ mark: SourceMark, cache: inout [String: [Substring]]) -> String? {
        guard decorated, let source else { return nil }
        if cache[path] == nil {
            guard let text = source(path) else { return nil }
            cache[path] = text.split(separator: "\n", omittingEmptySubsequences: false)
        }
        guard let lines = cache[path], mark.line >= 1, mark.line <= lines.count else { return nil }
        let line = lines[mark.line - 1].unicodeScalars.filter { $0 != "\r" }
        let number = String(mark.line)
        let gutter = String(repeating: " ", count: number.count)
        // Under each character before the column: a tab stays a tab, a wide (Hangul, CJK)
        // character takes two cells, so the caret lines up in a terminal.
        var pad = ""
        for scalar in line.prefix(max(0, mark.column - 1)) {
            pad += scalar == "\t" ? "\t" : (Self.isWide(scalar) ? "  " : " ")
        }
        var text = String(String.UnicodeScalarView(line))
        text = text.replacingAll("\u{1B}", "?")
        return " \(paint(number, "34")) | \(text)\n \(gutter) | \(pad)\(paint("^", "1;32"))\n"
    }

    /// East Asian wide and fullwidth characters (Hangul, CJK, fullwidth forms).
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
