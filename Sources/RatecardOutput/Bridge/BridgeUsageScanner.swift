import RatecardCore
import RatecardSupport

/// Finds every use of the bridge in what a web build can run, and everything there that could
/// reach the app without the check seeing it (`ScriptRules` says what is accepted).
///
/// What is read: every file of the build as it is published (dot-files left out) whose name
/// ends in `.js`, `.mjs` or `.cjs`, in any case; every file a page's `<script src>` names; the
/// inline `<script>` blocks and event-handler attributes of its pages (`.html`, `.htm`,
/// `.shtml`, any case), with positions in the page. SVG, XHTML and XML files may hold no
/// script at all. The generated runtime (`app/bridge.js`) is the one script not read: BRG-07
/// checks that it is exactly what the schema generates.
public enum BridgeUsageScanner {
    /// The version of the rules: part of the key a passed check is kept under in the build
    /// cache, so a web build passed by older rules is checked again.
    public static let version = 3

    public struct Use: Sendable, Equatable {
        public enum Kind: String, Sendable { case call, has, on }
        public var kind: Kind
        public var name: String
        public var path: String
        public var mark: SourceMark
        public var guarded: Bool
    }

    public struct Result: Sendable, Equatable {
        public var uses: [Use] = []
        /// What the rules refuse (BRG-04, BRG-05, BRG-08, BRG-09), each at its place.
        public var findings: [Diagnostic] = []
    }

    enum FileKind: Equatable {
        case script
        case page(scriptsAllowed: Bool)
        case other
    }

    /// What a file is to a browser, by its name's extension in any case.
    static func kind(of path: String) -> FileKind {
        let name = DurableFiles.name(of: path)
        guard let dot = name.lastIndex(of: ".") else { return .other }
        switch name[name.index(after: dot)...].lowercased() {
        case "js", "mjs", "cjs": return .script
        case "html", "htm", "shtml": return .page(scriptsAllowed: true)
        case "xhtml", "xht", "svg", "xml", "xsl", "xslt": return .page(scriptsAllowed: false)
        default: return .other
        }
    }

    /// Scans what the web build in `webFolder` can run, in path order. `displayPrefix` is put
    /// before each path in the result.
    public static func scan(webFolder: String, displayPrefix: String) throws -> Result {
        let files = try ReleaseFiles.webBuild(webFolder)
        let served = Set(files)
        var scripts: Set<String> = []
        var result = Result()
        for path in files {
            switch kind(of: path) {
            case .script: scripts.insert(path)
            case .other: break
            case .page(let scriptsAllowed):
                let shown = displayPrefix + path
                guard let text = try read(webFolder + "/" + path, shown: shown, into: &result) else { continue }
                let page = MarkupScripts(text, scriptsAllowed: scriptsAllowed)
                for problem in page.problems {
                    result.findings.append(Diagnostic(path: shown, mark: problem.mark, rule: BridgeRules.unreadable, message: problem.message))
                }
                for script in page.scripts { result.add(ScriptRules(JavaScriptLexer(script.source, marks: script.marks), path: shown)) }
                for source in page.sources {
                    guard let target = resolve(source.value, from: path) else {
                        result.findings.append(
                            Diagnostic(
                                path: shown, mark: source.mark, rule: BridgeRules.unreadable,
                                message: Message(
                                    "<script src=\"\(source.value)\"> loads a script from outside the web build, which the check cannot read; serve it from the web build",
                                    ko: "<script src=\"\(source.value)\">는 웹 빌드 밖의 스크립트를 불러오므로 검사기가 읽을 수 없습니다; 웹 빌드 안에서 제공하세요")))
                        continue
                    }
                    guard !target.isEmpty else { continue }
                    if served.contains(target) {
                        scripts.insert(target)
                    } else {
                        result.findings.append(
                            Diagnostic(
                                path: shown, mark: source.mark, rule: BridgeRules.unreadable,
                                message: Message("<script src=\"\(source.value)\"> names no file of the web build (\(target))", ko: "<script src=\"\(source.value)\">는 웹 빌드에 없는 파일을 가리킵니다 (\(target))"))
                        )
                    }
                }
            }
        }
        for path in scripts.sorted() where path != BridgeWebGenerator.runtimePath {
            let shown = displayPrefix + path
            guard let text = try read(webFolder + "/" + path, shown: shown, into: &result) else { continue }
            let source = Array(text.unicodeScalars)
            result.add(ScriptRules(JavaScriptLexer(source, marks: JavaScriptLexer.marks(of: source)), path: shown))
        }
        result.uses.sort { ($0.path, $0.mark) < ($1.path, $1.mark) }
        result.findings.sort()
        return result
    }

    /// A file's text as a browser decodes it (UTF-8), or nil with a finding when a byte order
    /// mark makes the browser read it as UTF-16.
    private static func read(_ file: String, shown: String, into result: inout Result) throws -> String? {
        let bytes = try FileSystem.readFile(file)
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            result.findings.append(
                Diagnostic(
                    path: shown, mark: .start, rule: BridgeRules.unreadable,
                    message: Message(
                        "the file starts with a UTF-16 byte order mark, so a browser reads it as UTF-16 and the check cannot; save it as UTF-8",
                        ko: "파일이 UTF-16 바이트 순서 표시로 시작해 브라우저는 UTF-16으로 읽지만 검사기는 읽을 수 없습니다; UTF-8로 저장하세요")))
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The web build's path a `<script src>` on the page at `page` loads (resolved as a URL
    /// path: `/` from the build's root, `..` stops there), "" for an empty one (nothing loads),
    /// nil for a script from elsewhere (a scheme or `//host`).
    static func resolve(_ value: String, from page: String) -> String? {
        var reference = value.trimmingCharacters(in: " \t\n\r\u{C}").replacingAll("\\", with: "/")
        guard !reference.isEmpty else { return "" }
        if reference.hasPrefix("//") { return nil }
        if let colon = reference.firstIndex(of: ":"), !reference[..<colon].contains(where: { "/?#".contains($0) }) { return nil }
        if let end = reference.firstIndex(where: { $0 == "?" || $0 == "#" }) { reference = String(reference[..<end]) }
        var segments = reference.hasPrefix("/") ? [] : page.split(separator: "/").dropLast().map(String.init)
        for segment in percentDecoded(reference).split(separator: "/", omittingEmptySubsequences: false) {
            switch segment {
            case "", ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(String(segment))
            }
        }
        return segments.joined(separator: "/")
    }

    private static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = JavaScriptLexer.hexValue(Unicode.Scalar(utf8[index + 1])), let low = JavaScriptLexer.hexValue(Unicode.Scalar(utf8[index + 2]))
            {
                bytes.append(UInt8(high * 16 + low))
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension BridgeUsageScanner.Result {
    fileprivate mutating func add(_ rules: ScriptRules) {
        uses += rules.uses
        findings += rules.findings
    }
}
