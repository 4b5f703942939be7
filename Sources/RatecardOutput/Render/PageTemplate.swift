import RatecardCore

/// The shell every static page shares: a strict content-security policy, a phone viewport and
/// Korean typography, with the style inline so each page stands alone.
enum PageTemplate {
    /// `style` is the shared style; `extraStyle` is added after it on pages that need more (a
    /// terms text with a table: `scrollingTables`).
    static func page(title: String, root: String, body: HTML, extraStyle: String = "") -> String {
        """
        <!DOCTYPE html>
        <html lang="ko">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
        <meta name="referrer" content="no-referrer">
        <title>\(HTML.escape(title))</title>
        <style>\(style)\(extraStyle)</style>
        </head>
        <body>
        <nav><a href="\(HTML.escape(root))rates.html">금리 비교</a> <a href="\(HTML.escape(root))partners.html">제휴 금융사</a></nav>
        <main>
        \(body.markup)
        </main>
        </body>
        </html>

        """
    }

    /// A table in a terms text (GFM, from cmark-gfm) scrolls sideways inside its own box when it
    /// is wider than a phone, instead of widening the page.
    static let scrollingTables = "article table{display:block;max-width:100%;overflow-x:auto}"

    static let style = """
        :root{color-scheme:light;--ink:#1b1d21;--muted:#5b6270;--line:#e3e6ea;--accent:#1d4ed8;--warn:#8a4b00}\
        *{box-sizing:border-box}\
        body{margin:0;background:#fff;color:var(--ink);font:16px/1.7 -apple-system,BlinkMacSystemFont,"Apple SD Gothic Neo","Noto Sans KR","Malgun Gothic",sans-serif;word-break:keep-all;overflow-wrap:anywhere;-webkit-text-size-adjust:100%}\
        nav{display:flex;gap:1rem;padding:.75rem 1rem;border-bottom:1px solid var(--line);font-size:.95rem}\
        nav a{color:var(--accent);text-decoration:none}\
        main{max-width:42rem;margin:0 auto;padding:1rem 1.25rem 3rem}\
        h1{font-size:1.45rem;line-height:1.4;margin:.5rem 0 1rem}\
        h2{font-size:1.15rem;line-height:1.45;margin:1.75rem 0 .5rem}\
        h3{font-size:1.02rem;margin:1.25rem 0 .4rem}\
        p,li{margin:.45rem 0}\
        ol,ul{padding-left:1.4rem}\
        a{color:var(--accent)}\
        table{width:100%;border-collapse:collapse;font-size:.92rem;font-variant-numeric:tabular-nums}\
        th,td{border-bottom:1px solid var(--line);padding:.45rem .35rem;text-align:left;vertical-align:top}\
        th{color:var(--muted);font-weight:600}\
        .meta{color:var(--muted);font-size:.9rem}\
        .badge{display:inline-block;border:1px solid var(--line);border-radius:.4rem;padding:0 .4rem;font-size:.8rem;color:var(--muted)}\
        .paused{color:var(--muted)}\
        .notice{margin-top:2rem;padding:1rem;background:#f6f7f9;border-radius:.5rem;font-size:.88rem;color:var(--warn)}\
        .notice p{margin:.3rem 0}\
        img.logo{width:40px;height:40px;vertical-align:middle;margin-right:.5rem}
        """
}
