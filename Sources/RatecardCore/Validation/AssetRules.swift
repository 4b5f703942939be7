import RatecardSupport

/// Rules about the files under `assets/`: logos that are shipped to every phone and served from
/// the site's own origin.
public enum AssetRules {
    /// Assets larger than this are refused (AST-01); a logo is a few kilobytes.
    public static let maxBytes = 512 << 10

    public static let size = Rule(
        "AST-01", .error, "assets up to 512 KiB", "Every phone downloads the logos; a huge file is a mistake (or an attack) and is refused before it is read.",
        ko: "에셋 크기 512 KiB 이하", "모든 휴대폰이 로고를 내려받습니다. 지나치게 큰 파일은 실수(또는 공격)이므로 읽기 전에 거부합니다.")
    public static let unreferenced = Rule(
        "AST-02", .error, "every asset is used", "An asset no partner names is shipped to every phone for nothing, and hides what was meant to be published.",
        ko: "모든 에셋이 쓰임", "어느 제휴사도 쓰지 않는 에셋은 괜히 모든 휴대폰에 배포되고, 원래 게시하려던 것을 가립니다.")
    public static let safeImage = Rule(
        "AST-03", .error, "logos are inert images",
        "A logo is served from the app's own origin: an SVG with script, event handlers, foreign content or external references runs or loads there; a .png must be a PNG.",
        ko: "로고는 아무것도 실행하지 않는 이미지",
        "로고는 앱과 같은 출처에서 제공됩니다. 스크립트, 이벤트 핸들러, 외부 콘텐츠나 외부 참조가 든 SVG는 그곳에서 실행되거나 무언가를 불러옵니다. .png 파일은 실제 PNG여야 합니다.")

    public static let all = [size, unreferenced, safeImage]

    /// The problems of one asset file, from its size and (when small enough to read) its bytes.
    package static func fileDiagnostics(path: String, size: Int, read: () throws -> [UInt8]) rethrows -> [Diagnostic] {
        if size > maxBytes {
            return [
                Diagnostic(
                    path: path, mark: .start, rule: self.size,
                    message: Message("asset is \(size) bytes, over the \(maxBytes / 1024) KiB limit; export a smaller logo", ko: "에셋 크기가 \(size)바이트로 한도 \(maxBytes / 1024) KiB를 넘습니다; 더 작은 로고로 내보내세요"))
            ]
        }
        if path.hasSuffix(".svg") {
            return SVGSafety.problems(in: try read(), name: path).map { Diagnostic(path: path, mark: $0.mark, rule: safeImage, message: $0.message) }
        }
        if path.hasSuffix(".png"), try !read().starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return [
                Diagnostic(
                    path: path, mark: .start, rule: safeImage,
                    message: Message("file is named .png but is not a PNG image; export it as PNG (or SVG)", ko: "파일 이름은 .png인데 PNG 이미지가 아닙니다; PNG(또는 SVG)로 내보내세요"))
            ]
        }
        return []
    }

    /// AST-02, on a content that lists every partner (not the cut an incremental check reads:
    /// there the assets and partners are those of a parent that passed).
    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        guard content.partners.count == content.partnerFiles.count else { return }
        let used = Set(content.partners.map(\.logo.value))
        for asset in content.assets.sorted() where !used.contains(asset) {
            diagnostics.report(
                unreferenced, content.root.path(asset), .start,
                Message("no partner names this asset as its logo; remove it, or set a partner's logo: \(asset)", ko: "이 에셋을 로고로 쓰는 제휴사가 없습니다; 지우거나, 제휴사의 logo를 \(asset)(으)로 지정하세요"))
        }
    }
}
