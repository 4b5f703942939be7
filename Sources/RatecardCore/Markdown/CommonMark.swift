internal import CCmark
import Glibc

/// CommonMark to HTML through cmark-gfm, with GitHub's table extension and no other, safe by
/// default.
///
/// Raw HTML is dropped (we never pass `CMARK_OPT_UNSAFE`), and every link or image whose URL is
/// not `http`, `https`, `mailto`, `tel`, a fragment or a relative path has its URL removed
/// before rendering, so `javascript:`, `vbscript:`, `data:` and `file:` never reach a page.
/// cmark's parser and node tree are owned here and freed before returning; the output is
/// `free()`d.
///
/// Only the `table` extension is attached (docs/decisions/0012): not `strikethrough` (Korean
/// copy writes ranges with a tilde, "701~800점", which it would strike through), not `autolink`
/// (a bare address in legal text stays text, as it always was), not `tagfilter` (it filters raw
/// HTML, which is never rendered) and not `tasklist`.
///
/// Terms pages are rendered on several threads at once (docs/decisions/0005). That is safe with
/// cmark-gfm used this way: each call parses into its own parser and document, allocated with
/// the default allocator (calloc/realloc/free); the shared special-character table of inlines.c
/// is written only for inline extensions (strikethrough, autolink), never for the table
/// extension, which is a block extension; the global arena the table extension pushes and
/// pops is only ever made by the arena allocator, which is never used here, so those calls
/// return at once; and the extension registry is written once, by `table` below (a Swift
/// static, initialised exactly once, before any parser can use the extension), and only read
/// afterwards. The HTML renderer keeps its table state in its own renderer.
public enum CommonMark {
    /// GitHub's table extension, registered once in cmark-gfm's global registry. The pointer is
    /// only read after it is set, and the extension it points at is not changed after registration.
    nonisolated(unsafe) private static let table: OpaquePointer? = {
        cmark_gfm_core_extensions_ensure_registered()
        return cmark_find_syntax_extension("table")
    }()

    /// Registers the extensions. `ratecard`'s main calls it before anything starts a thread;
    /// every parse goes through it too, and a Swift static is initialised exactly once, the
    /// other callers waiting, so a library user that does not call it is safe as well.
    public static func registerExtensions() { _ = table }

    /// Parses `markdown` with the table extension, hands the document and the parser's
    /// extensions (which the HTML renderer needs) to `body`, then frees both.
    private static func withDocument<T>(_ markdown: String, _ options: Int32, _ body: (OpaquePointer, UnsafeMutablePointer<cmark_llist>?) -> T) -> T? {
        guard let table, let parser = cmark_parser_new(options) else { return nil }
        defer { cmark_parser_free(parser) }
        guard cmark_parser_attach_syntax_extension(parser, table) == 1 else { return nil }
        cmark_parser_feed(parser, markdown, markdown.utf8.count)
        guard let document = cmark_parser_finish(parser) else { return nil }
        defer { cmark_node_free(document) }
        return body(document, cmark_parser_get_syntax_extensions(parser))
    }

    public static func html(_ markdown: String) -> String {
        // No CMARK_OPT_SMART: legal text is published exactly as written, quotes included.
        // No CMARK_OPT_VALIDATE_UTF8, here or in the other parses: what cmark reads is a Swift
        // String, valid UTF-8 by construction (and cmark replaces a NUL byte either way);
        // checking it again scanned every terms body once per parse.
        let options = CMARK_OPT_DEFAULT
        return withDocument(markdown, options) { document, extensions -> String in
            sanitizeLinks(in: document)
            guard let rendered = cmark_render_html(document, options, extensions) else { return "" }
            defer { free(rendered) }
            return String(cString: rendered)
        } ?? ""
    }

    /// A document's rendered text, scalar by scalar, with the source line each came from.
    public struct RenderedText: Sendable, Equatable {
        public var scalars: [Unicode.Scalar] = []
        /// 1-based line of the Markdown source, for each scalar.
        public var lines: [Int32] = []
        /// Inside a block quote (`> ...`): a quotation, not the document's own words.
        public var quoted: [Bool] = []
        /// Where a table cell starts or ends, as offsets into `scalars`: the text of two cells
        /// side by side is not one word ("신한" | "카드" does not name 신한카드).
        public var cellBreaks: [Int] = []

        /// The text between cell breaks: the text around a table, and each cell's text.
        public var segments: [String] {
            var parts: [String] = []
            var start = 0
            for end in cellBreaks + [scalars.count] where end >= start {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[start..<end])
                parts.append(String(view))
                start = end
            }
            return parts
        }

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
        read(markdown, dropped: false).text
    }

    /// The rendered text of `markdown` (`renderedText(_:)`) and, when `dropped`, what its page
    /// leaves out (`dropped(_:)`), from one parse: a terms body is parsed once when it is read,
    /// not once per thing asked of it.
    package static func read(_ markdown: String, dropped: Bool) -> (text: RenderedText, dropped: [Dropped]) {
        let read = read(markdown, dropped: dropped, article: nil)
        return (read.text, read.dropped)
    }

    /// What a terms page's article is, for `read`: the whole body's HTML, or the HTML of the
    /// body without the level-1 heading on a line (its title line, `TitleHeading`).
    package enum Article: Sendable, Equatable {
        case whole
        case droppingHeading(line: Int)
    }

    /// `read`, and, when `article` is given, that article from the same parse: what `html(_:)`
    /// gives for the body (without the title line `TitleHeading.dropping` removes). Removing that
    /// line, the document's first line that is not blank, removes the first block and changes no
    /// other: the article drops that block from the tree instead, then the unsafe link targets,
    /// as `html(_:)` does. Nil when the first block is not that heading (the page renders it).
    package static func read(_ markdown: String, dropped: Bool, article: Article?) -> (text: RenderedText, dropped: [Dropped], article: String?) {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_SOURCEPOS
        return withDocument(markdown, options) { document, extensions -> (RenderedText, [Dropped], String?) in
            let found = dropped ? droppedNodes(in: document, of: markdown) : []
            guard let rendered = cmark_render_html(document, options, extensions) else { return (RenderedText(), found, nil) }
            let text = textOfHTML(UnsafeBufferPointer(start: UnsafeRawPointer(rendered).assumingMemoryBound(to: UInt8.self), count: strlen(rendered)))
            free(rendered)
            guard let article else { return (text, found, nil) }
            if case .droppingHeading(let line) = article {
                guard let first = cmark_node_first_child(document), cmark_node_get_type(first) == CMARK_NODE_HEADING,
                    cmark_node_get_heading_level(first) == 1, Int(cmark_node_get_start_line(first)) == line
                else { return (text, found, nil) }
                cmark_node_unlink(first)
                cmark_node_free(first)
            }
            sanitizeLinks(in: document)
            guard let page = cmark_render_html(document, CMARK_OPT_DEFAULT, extensions) else { return (text, found, nil) }
            defer { free(page) }
            return (text, found, String(cString: page))
        } ?? (RenderedText(), [], nil)
    }

    /// The text of cmark's HTML output (the only HTML this reads: valid UTF-8, tags well formed,
    /// attribute values quoted, only `&amp; &lt; &gt; &quot;` escaped).
    package static func textOfHTML(_ html: UnsafeBufferPointer<UInt8>) -> RenderedText {
        // Each scalar takes a byte of HTML at least: the three arrays are written in place to
        // that capacity (appending to three arrays scalar by scalar was most of this call).
        var lines: [Int32] = []
        var quoted: [Bool] = []
        var cellBreaks: [Int] = []
        let capacity = html.count
        let scalars = [Unicode.Scalar](unsafeUninitializedCapacity: capacity) { scalarBuffer, scalarCount in
            lines = [Int32](unsafeUninitializedCapacity: capacity) { lineBuffer, lineCount in
                quoted = [Bool](unsafeUninitializedCapacity: capacity) { quotedBuffer, quotedCount in
                    let count = textOfHTML(html, scalars: scalarBuffer, lines: lineBuffer, quoted: quotedBuffer, cellBreaks: &cellBreaks)
                    quotedCount = count
                }
                lineCount = quoted.count
            }
            scalarCount = lines.count
        }
        var result = RenderedText()
        result.scalars = scalars
        result.lines = lines
        result.quoted = quoted
        result.cellBreaks = cellBreaks
        return result
    }

    /// Writes the text of `html` into the buffers (each at least `html.count` long); returns how
    /// many scalars it wrote.
    private static func textOfHTML(
        _ html: UnsafeBufferPointer<UInt8>, scalars: UnsafeMutableBufferPointer<Unicode.Scalar>, lines: UnsafeMutableBufferPointer<Int32>,
        quoted: UnsafeMutableBufferPointer<Bool>, cellBreaks: inout [Int]
    ) -> Int {
        var count = 0
        var line: Int32 = 1
        var quoteDepth = 0
        var index = 0
        func starts(_ text: StaticString, at position: Int) -> Bool {
            let length = text.utf8CodeUnitCount
            guard position + length <= html.count else { return false }
            return (0..<length).allSatisfy { html[position + $0] == text.utf8Start[$0] }
        }
        while index < html.count {
            let byte = html[index]
            if byte == 0x3C {  // <
                var close = index + 1
                while close < html.count && html[close] != 0x3E { close += 1 }
                // A table cell's start or end tag (<td>, <th align="left">, </td>; not <thead>).
                var name = index + 1
                if name < close && html[name] == 0x2F { name += 1 }  // /
                var nameEnd = name
                while nameEnd < close && html[nameEnd] != 0x20 { nameEnd += 1 }
                if nameEnd == name + 2, html[name] == 0x74, html[name + 1] == 0x64 || html[name + 1] == 0x68 {  // td, th
                    cellBreaks.append(count)
                }
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
            (scalars.baseAddress! + count).initialize(to: scalar)
            (lines.baseAddress! + count).initialize(to: line)
            (quoted.baseAddress! + count).initialize(to: quoteDepth > 0)
            count += 1
            if byte == 0x0A { line += 1 }
            index += length
        }
        return count
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
        // Most URLs start with a printable character and hold no tab or line break.
        if let first = utf8.first, first > 0x20, !utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return Substring(self) }
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
        read(markdown, dropped: true).dropped
    }

    /// What `document` (parsed from `markdown` with source positions) holds that the page drops.
    private static func droppedNodes(in document: OpaquePointer, of markdown: String) -> [Dropped] {
        // Raw HTML and autolinks start with '<', every other link or image with '[': a body
        // with neither drops nothing, and its tree is not walked.
        guard markdown.utf8.contains(where: { $0 == 0x3C || $0 == 0x5B }) else { return [] }
        guard let iterator = cmark_iter_new(document) else { return [] }
        defer { cmark_iter_free(iterator) }
        // Split only when something is dropped (most documents drop nothing): splitting 8 KB of
        // Korean into Characters for every terms version was most of this call.
        var split: [Substring]?
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
            let lines = split ?? markdown.split(separator: "\n", omittingEmptySubsequences: false)
            split = lines
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
