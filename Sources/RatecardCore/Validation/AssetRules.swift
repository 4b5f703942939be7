/// Rules about the files under `assets/`: logos that are shipped to every phone and served from
/// the site's own origin.
public enum AssetRules {
    /// Assets larger than this are refused (AST-01); a logo is a few kilobytes.
    public static let maxBytes = 512 << 10

    public static let size = Rule("AST-01", .error, "assets up to 512 KiB", "Every phone downloads the logos; a huge file is a mistake (or an attack) and is refused before it is read.")
    public static let unreferenced = Rule("AST-02", .error, "every asset is used", "An asset no partner names is shipped to every phone for nothing, and hides what was meant to be published.")
    public static let safeImage = Rule(
        "AST-03", .error, "logos are inert images",
        "A logo is served from the app's own origin: an SVG with script, event handlers, foreign content or external references runs or loads there; a .png must be a PNG.")

    public static let all = [size, unreferenced, safeImage]

    /// The problems of one asset file, from its size and (when small enough to read) its bytes.
    package static func fileDiagnostics(path: String, size: Int, read: () throws -> [UInt8]) rethrows -> [Diagnostic] {
        if size > maxBytes {
            return [Diagnostic(path: path, mark: .start, rule: self.size, message: "asset is \(size) bytes, over the \(maxBytes / 1024) KiB limit; export a smaller logo")]
        }
        if path.hasSuffix(".svg") {
            return SVGSafety.problems(in: try read(), name: path).map { Diagnostic(path: path, mark: $0.mark, rule: safeImage, message: $0.message) }
        }
        if path.hasSuffix(".png"), try !read().starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return [Diagnostic(path: path, mark: .start, rule: safeImage, message: "file is named .png but is not a PNG image; export it as PNG (or SVG)")]
        }
        return []
    }

    /// AST-02, on a content that lists every partner (not the cut an incremental check reads:
    /// there the assets and partners are those of a parent that passed).
    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        guard content.partners.count == content.partnerFiles.count else { return }
        let used = Set(content.partners.map(\.logo.value))
        for asset in content.assets.sorted() where !used.contains(asset) {
            diagnostics.report(unreferenced, content.root.path(asset), .start, "no partner names this asset as its logo; remove it, or set a partner's logo: \(asset)")
        }
    }
}
