/// The Content-Type of a served file, by its name's extension, for a bucket and the preview
/// server: what nginx's mime.types gives the files of a release, except JavaScript, labelled
/// `text/javascript` as RFC 9239 has it (browsers run either).
public enum MediaType {
    public static func of(_ path: String) -> String {
        let name = DurableFiles.name(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json", "map": return "application/json"
        case "txt", "md", "yaml", "yml", "ts": return "text/plain; charset=utf-8"
        case "xml": return "text/xml; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "wasm": return "application/wasm"
        case "webmanifest": return "application/manifest+json"
        default: return "application/octet-stream"
        }
    }
}
