internal import CCmark
import Glibc

/// CommonMark to HTML through cmark, safe by default.
///
/// Raw HTML is dropped (we never pass `CMARK_OPT_UNSAFE`), and every link or image whose URL is
/// not `http`, `https`, `mailto`, `tel`, a fragment or a relative path has its URL removed
/// before rendering, so `javascript:`, `vbscript:`, `data:` and `file:` never reach a page.
/// cmark's node tree is owned here and freed before returning; the output is `free()`d.
///
/// Terms pages are rendered on several threads at once. That is safe with the reference cmark
/// (Debian's libcmark, 0.30): each call parses into its own parser and document, allocated
/// with the default allocator (calloc/realloc/free), and the tables the parser consults, such as
/// the special-character table in inlines.c, are `static const`. The fork cmark-gfm is not
/// like this (its special-character table is shared and writable, and its arena allocator is
/// global), so a switch to it would have to serialise these calls.
public enum CommonMark {
    public static func html(_ markdown: String) -> String {
        // No CMARK_OPT_SMART: legal text is published exactly as written, quotes included.
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8
        guard let document = cmark_parse_document(markdown, markdown.utf8.count, options) else { return "" }
        defer { cmark_node_free(document) }
        sanitizeLinks(in: document)
        guard let rendered = cmark_render_html(document, options) else { return "" }
        defer { free(rendered) }
        return String(cString: rendered)
    }

    /// A document's rendered text, scalar by scalar, with the source line each came from.
    public struct RenderedText: Sendable, Equatable {
        public var scalars: [Unicode.Scalar] = []
        /// 1-based line of the Markdown source, for each scalar.
        public var lines: [Int32] = []
        /// Inside a block quote (`> ...`): a quotation, not the document's own words.
        public var quoted: [Bool] = []

        public var string: String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            return String(view)
        }
    }

    /// The text a reader sees: the HTML `html(_:)` renders, without its tags, comments and the
    /// raw HTML cmark drops (a sentence inside `<!-- -->` is not there), entities decoded. Each
    /// scalar carries the source line of its block (cmark's `data-sourcepos`) plus the line
    /// breaks inside the block, so a finding can point back at the Markdown.
    public static func renderedText(_ markdown: String) -> RenderedText {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_SOURCEPOS
        guard let document = cmark_parse_document(markdown, markdown.utf8.count, options) else { return RenderedText() }
        defer { cmark_node_free(document) }
        guard let rendered = cmark_render_html(document, options) else { return RenderedText() }
        defer { free(rendered) }
        return textOfHTML(UnsafeBufferPointer(start: UnsafeRawPointer(rendered).assumingMemoryBound(to: UInt8.self), count: strlen(rendered)))
    }

    /// The text of cmark's HTML output (the only HTML this reads: valid UTF-8, tags well formed,
    /// attribute values quoted, only `&amp; &lt; &gt; &quot;` escaped).
    package static func textOfHTML(_ html: UnsafeBufferPointer<UInt8>) -> RenderedText {
        var result = RenderedText()
        result.scalars.reserveCapacity(html.count / 2)
        result.lines.reserveCapacity(html.count / 2)
        result.quoted.reserveCapacity(html.count / 2)
        var line: Int32 = 1
        var quoteDepth = 0
        var index = 0
        func starts(_ text: StaticString, at position: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= html.count else { return false }
            return (0..<count).allSatisfy { html[position + $0] == text.utf8Start[$0] }
        }
        while index < html.count {
            let byte = html[index]
            if byte == 0x3C {  // <
                var close = index + 1
                while close < html.count && html[close] != 0x3E { close += 1 }
                if starts("<blockquote", at: index) { quoteDepth += 1 }
                if starts("</blockquote", at: index) { quoteDepth -= 1 }
                var probe = index
                while probe < close {
                    if starts("data-sourcepos=\"", at: probe) {
                        var number: Int32 = 0
                        var digit = probe + 16
                        while digit < close, html[digit] >= 0x30, html[digit] <= 0x39 {
                            number = number * 10 + Int32(html[digit] - 0x30)
                            digit += 1
                        }
                        // A fenced code block's text starts on the line after its fence.
                        line = starts("<pre", at: index) ? number + 1 : number
                        break
                    }
                    probe += 1
                }
                index = close + 1
                continue
            }
            var scalar: Unicode.Scalar
            var length = 1
            if byte == 0x26 {  // &
                if starts("&amp;", at: index) {
                    scalar = "&"
                    length = 5
                } else if starts("&lt;", at: index) {
                    scalar = "<"
                    length = 4
                } else if starts("&gt;", at: index) {
                    scalar = ">"
                    length = 4
                } else if starts("&quot;", at: index) {
                    scalar = "\""
                    length = 6
                } else {
                    scalar = "&"
                }
            } else if byte < 0x80 {
                scalar = Unicode.Scalar(byte)
            } else {
                length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                var value = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                for next in 1..<length where index + next < html.count { value = value << 6 | UInt32(html[index + next] & 0x3F) }
                scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            }
            result.scalars.append(scalar)
            result.lines.append(line)
            result.quoted.append(quoteDepth > 0)
            if byte == 0x0A { line += 1 }
            index += length
        }
        return result
    }

    /// Whether a link target may appear in a page.
    public static func isSafeURL(_ url: String) -> Bool {
        let trimmed = url.trimmingLeadingControl()
        guard let colon = trimmed.firstIndex(of: ":") else { return !trimmed.hasPrefix("//") }
        let scheme = trimmed[..<colon]
        // A colon after a path or query character is not a scheme ("a/b:c", "?x=1:2").
        if scheme.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { return true }
        return ["http", "https", "mailto", "tel"].contains(scheme.lowercased())
    }

    private static func sanitizeLinks(in document: OpaquePointer) {
        guard let iterator = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            guard type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE else { continue }
            let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
            if !isSafeURL(url) { _ = cmark_node_set_url(node, "") }
        }
    }
}

extension String {
    /// Browsers ignore leading whitespace and control characters in URLs ("\u{1}javascript:").
    fileprivate func trimmingLeadingControl() -> Substring {
        var view = Substring(self)
        while let first = view.unicodeScalars.first, first.value <= 0x20 { view = view.dropFirst() }
        return Substring(view.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
    }
}

extension CommonMark {
    /// Something in a document that `html(_:)` leaves out of the page: raw HTML (a block or
    /// inline tag, a comment), or the target of a link or image whose URL is not safe
    /// (`isSafeURL`).
    public struct Dropped: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case html
            case link(url: String)
            case image(url: String)
        }

        public var kind: Kind
        /// 1-based line in the Markdown and column in characters (bytes in cmark); a line of 0
        /// when cmark gave no position.
        public var line: Int
        public var column: Int
        /// The dropped HTML, or the link's URL, as written.
        public var text: String
    }

    /// Everything `html(_:)` drops, found by walking cmark's node tree, in document order.
    public static func dropped(_ markdown: String) -> [Dropped] {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_SOURCEPOS
        guard let document = cmark_parse_document(markdown, markdown.utf8.count, options) else { return [] }
        defer { cmark_node_free(document) }
        guard let iterator = cmark_iter_new(document) else { return [] }
        defer { cmark_iter_free(iterator) }
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [Dropped] = []
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            let kind: Dropped.Kind
            let text: String
            switch type {
            case CMARK_NODE_HTML_BLOCK, CMARK_NODE_HTML_INLINE:
                text = cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
                kind = .html
            case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                text = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
                guard !isSafeURL(text) else { continue }
                kind = type == CMARK_NODE_LINK ? .link(url: text) : .image(url: text)
            default: continue
            }
            // Inline nodes may carry no position: the nearest ancestor's, then.
            var positioned: OpaquePointer? = node
            while let current = positioned, cmark_node_get_start_line(current) == 0 { positioned = cmark_node_parent(current) }
            let line = positioned.map { Int(cmark_node_get_start_line($0)) } ?? 0
            let byteColumn = positioned.map { Int(cmark_node_get_start_column($0)) } ?? 1
            var column = 1
            if line >= 1, line <= lines.count {
                let utf8 = lines[line - 1].utf8
                let end = utf8.index(utf8.startIndex, offsetBy: max(0, min(byteColumn - 1, utf8.count)))
                column = String(Substring(utf8[utf8.startIndex..<end])).count + 1
            }
            found.append(Dropped(kind: kind, line: line, column: column, text: text))
        }
        return found
    }
}
