import RatecardCore
import RatecardOutput
import RatecardSupport

/// The page `preview --watch` serves for every HTML request while the content has errors or a
/// file cannot be read: each problem as `validate` prints it (`path:line:column: error RULE:
/// message`, `path: error: open ...: Permission denied`), instead of a page built from content
/// that no longer exists.
public enum ProblemsPage {
    public static func render(_ findings: [Diagnostic], unreadable: [LiveBuild.ReadFailure] = [], version: Int, language: Language = .en) -> [UInt8] {
        let errors = findings.filter { $0.severity == .error }
        let warnings = findings.filter { $0.severity == .warning }
        let (e, w, u) = (errors.count, warnings.count, unreadable.count)
        let cannotRead = Message("\(u) file\(u == 1 ? "" : "s") cannot be read", ko: "읽을 수 없는 파일 \(u)개").text(language)
        let onlyUnreadable = errors.isEmpty && !unreadable.isEmpty
        let errorCount = Message("\(e) error\(e == 1 ? "" : "s") in the content", ko: "콘텐츠에 오류 \(e)개").text(language)
        var body = HTML.element("h1", text: onlyUnreadable ? cannotRead : errorCount)
        body += HTML.element(
            "p", [("class", "meta")],
            text: Message(
                "The preview is built again as soon as they are fixed; this page reloads by itself.", ko: "문제를 고치면 미리보기를 곧바로 다시 빌드합니다; 이 페이지는 저절로 새로 고쳐집니다."
            ).text(language))
        if !onlyUnreadable { body += list(errors, kind: "error", language: language) }
        if !unreadable.isEmpty {
            if !errors.isEmpty { body += HTML.element("h2", text: cannotRead) }
            let error = Message("error", ko: "오류").text(language)
            body += HTML.element(
                "ul", [("class", "error")],
                unreadable.map { failure in
                    HTML.element("li", [], HTML.element("code", text: failure.path) + HTML(text: ": \(error): \(failure.message)"))
                }.joined())
        }
        if !warnings.isEmpty {
            body += HTML.element("h2", text: Message("\(w) warning\(w == 1 ? "" : "s")", ko: "경고 \(w)개").text(language))
            body += list(warnings, kind: "warning", language: language)
        }
        let title =
            onlyUnreadable
            ? Message("ratecard preview: \(u) file\(u == 1 ? "" : "s") cannot be read", ko: "ratecard 미리보기: 읽을 수 없는 파일 \(u)개").text(language)
            : Message("ratecard preview: \(e) error\(e == 1 ? "" : "s")", ko: "ratecard 미리보기: 오류 \(e)개").text(language)
        let page = """
            <!DOCTYPE html>
            <html lang="ko">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'">
            <title>\(HTML.escape(title))</title>
            <style>\(style)</style>
            <script src="/__ratecard/live.js" data-version="\(version)"></script>
            </head>
            <body>
            <main id="ratecard-problems">
            \(body.markup)
            </main>
            </body>
            </html>

            """
        return Array(page.utf8)
    }

    private static func list(_ findings: [Diagnostic], kind: String, language: Language) -> HTML {
        HTML.element(
            "ul", [("class", kind)],
            findings.map { finding in
                let place = "\(finding.path):\(finding.mark.line):\(finding.mark.column)"
                let severity = finding.severity == .error ? Message("error", ko: "오류") : Message("warning", ko: "경고")
                return HTML.element(
                    "li", [], HTML.element("code", text: place) + HTML(text: ": \(severity.text(language)) \(finding.rule): \(finding.message.text(language))"))
            }.joined())
    }

    private static let style = """
        body{margin:0;font:15px/1.6 -apple-system,BlinkMacSystemFont,"Noto Sans KR",sans-serif;color:#1b1d21}\
        main{max-width:60rem;margin:0 auto;padding:1rem 1.25rem}\
        h1{font-size:1.3rem;color:#b42318}h2{font-size:1.1rem;color:#8a4b00}\
        .meta{color:#5b6270}ul{padding-left:1.2rem}li{margin:.5rem 0}\
        code{font:13px/1.5 ui-monospace,Menlo,monospace;background:#f6f7f9;padding:0 .3rem;border-radius:.3rem}
        """
}
