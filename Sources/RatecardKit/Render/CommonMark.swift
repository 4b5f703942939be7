internal import CCmark

/// CommonMark to HTML through cmark, safe by default.
///
/// Raw HTML is dropped (we never pass `CMARK_OPT_UNSAFE`), and every link or image whose URL is
/// not `http`, `https`, `mailto`, `tel`, a fragment or a relative path has its URL removed
/// before rendering, so `javascript:`, `vbscript:`, `data:` and `file:` never reach a page.
/// cmark's node tree is owned here and freed before returning; the output is `free()`d.
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

private extension String {
    /// Browsers ignore leading whitespace and control characters in URLs ("\u{1}javascript:").
    func trimmingLeadingControl() -> Substring {
        var view = Substring(self)
        while let first = view.unicodeScalars.first, first.value <= 0x20 { view = view.dropFirst() }
        return Substring(view.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
    }
}
