/// A piece of HTML. Text is escaped on the way in; only `raw` (cmark output, our templates) is not.
public struct HTML: Sendable, Equatable {
    public private(set) var markup: String

    public init(raw markup: String) { self.markup = markup }

    /// Text, escaped for element content and attribute values alike (`& < > " '`).
    public init(text: String) { self.markup = HTML.escape(text) }

    public static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(raw: lhs.markup + rhs.markup) }

    public static func += (lhs: inout HTML, rhs: HTML) { lhs.markup += rhs.markup }

    public static let empty = HTML(raw: "")

    /// `<tag attr="value">content</tag>`, with attribute values escaped.
    public static func element(_ tag: String, _ attributes: [(String, String)] = [], _ content: HTML = .empty) -> HTML {
        var open = "<" + tag
        for (name, value) in attributes { open += " \(name)=\"\(escape(value))\"" }
        return HTML(raw: open + ">" + content.markup + "</\(tag)>")
    }

    public static func element(_ tag: String, _ attributes: [(String, String)] = [], text: String) -> HTML {
        element(tag, attributes, HTML(text: text))
    }

    public static func escape(_ text: String) -> String {
        // Most text (Korean prose, numbers, dates) has nothing to escape: keep it as it is.
        if !text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Array where Element == HTML {
    package func joined() -> HTML { HTML(raw: map(\.markup).joined()) }
}
