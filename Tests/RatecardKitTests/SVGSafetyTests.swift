import RatecardKit
import Testing

/// SVG logos are parsed by libxml2 and checked against an allow-list (AST-03).
@Suite struct SVGSafetyTests {
    func problems(_ text: String) -> [String] {
        SVGSafety.problems(in: Array(text.utf8), name: "logo.svg").map { "\($0.mark.line):\($0.mark.column) \($0.message)" }
    }

    @Test func aDrawingPasses() {
        #expect(
            problems(
                """
                <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="48" height="48" viewBox="0 0 48 48" role="img" aria-label="로고">
                  <title>로고</title>
                  <defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>
                  <rect width="48" height="48" rx="8" fill="url(#g)"/>
                  <use xlink:href="#g"/>
                  <text x="24" y="24" text-anchor="middle">A &amp; B</text>
                </svg>
                """) == [])
    }

    @Test(arguments: [
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>", "1:41 element <script> is not allowed in an SVG logo"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>", "1:41 event handler attribute 'onload' on <svg> runs script; remove it"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\">\n<foreignObject/></svg>", "2:1 element <foreignObject> is not allowed in an SVG logo"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><image href=\"https://example.com/x.png\"/></svg>", "1:41 element <image> is not allowed in an SVG logo"),
        (
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><use xlink:href=\"https://example.com/a.svg#x\"/></svg>",
            "1:89 'xlink:href=\"https://example.com/a.svg#x\"' points outside the file"
        ),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect fill=\"url( 'https://example.com/p' )\"/></svg>", "1:47 'fill' references something outside the file"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect style=\"fill:red\"/></svg>", "1:47 attribute 'style' on <rect> is not allowed in an SVG logo"),
        ("<!DOCTYPE svg [<!ENTITY x \"boom\">]>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><text>&x;</text></svg>", "1:1 a DOCTYPE is not allowed in an SVG logo"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><?xml-stylesheet href=\"https://example.com/s.css\"?></svg>", "1:41 processing instructions (<?...?>) are not allowed in an SVG logo"),
        ("<?xml-stylesheet type=\"text/xsl\" href=\"/app/evil.xsl\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>", "1:1 processing instructions (<?...?>) are not allowed in an SVG logo"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n<?xml-stylesheet href=\"https://example.com/a.css\"?>", "2:1 processing instructions (<?...?>) are not allowed in an SVG logo"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect fill=\"u\\72l(https://example.com/x.svg#p)\"/></svg>", "1:47 'fill' holds a backslash (a CSS escape)"),
        ("<html><body onload=\"x()\"/></html>", "1:1 the root element must be <svg xmlns=\"http://www.w3.org/2000/svg\">"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect></svg>", "1:53 the SVG is not well-formed XML: "),
    ])
    func anActiveOrExternalPartIsReportedWhereItIs(_ svg: String, _ expected: String) {
        let found = problems(svg)
        #expect(found.contains { $0.hasPrefix(expected) }, "expected \(expected); got \(found)")
    }
}
