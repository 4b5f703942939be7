import Foundation
import RatecardKit
import Testing

/// GitHub tables in terms text (cmark-gfm's table extension): rendered as tables, safe as the
/// rest of the text, and read by the rules cell by cell.
@Suite struct TermsTableTests {
    static let recipients = """
        ## 제1조(제공받는 자)

        | 금융회사 | 업권 |
        |---|:---|
        | IBK기업은행 | 은행 |
        | 신한 | 카드 |

        끝.
        """

    @Test func aTableRendersAsATableWithItsCells() {
        let html = CommonMark.html(Self.recipients)
        #expect(html.contains("<table>\n<thead>\n<tr>\n<th>금융회사</th>\n<th align=\"left\">업권</th>\n</tr>\n</thead>"), "\(html)")
        #expect(html.contains("<tr>\n<td>IBK기업은행</td>\n<td align=\"left\">은행</td>\n</tr>"), "\(html)")
        #expect(html.contains("<td>신한</td>"), "\(html)")
        #expect(!html.contains("|"), "\(html)")
        #expect(html.hasSuffix("</table>\n<p>끝.</p>\n"), "\(html)")
    }

    @Test func aTableIsAsSafeAsTheRestOfTheText() {
        let html = CommonMark.html(
            """
            | 회사 | 안내 |
            |---|---|
            | <script>alert(1)</script>에이 | [링크](javascript:alert(1)) |
            | 701~800점 | https://fine.fss.or.kr |
            """)
        #expect(!html.contains("<script"), "\(html)")
        #expect(html.contains("<td><!-- raw HTML omitted -->alert(1)<!-- raw HTML omitted -->에이</td>"), "\(html)")
        #expect(html.contains("<td><a href=\"\">링크</a></td>"), "\(html)")
        // Only the table extension: a tilde range is not struck through, a bare address stays text.
        #expect(html.contains("<td>701~800점</td>"), "\(html)")
        #expect(html.contains("<td>https://fine.fss.or.kr</td>"), "\(html)")
    }

    @Test func theRulesReadTheCellsNotThePipes() {
        let text = CommonMark.renderedText(Self.recipients)
        #expect(!text.string.contains("|"), "\(text.string)")
        #expect(!text.string.contains("---"), "\(text.string)")
        let segments = text.segments.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        #expect(segments == ["제1조(제공받는 자)", "금융회사", "업권", "IBK기업은행", "은행", "신한", "카드", "끝."], "\(segments)")
        // Each cell keeps the line of its row.
        let first = text.string.unicodeScalars.firstIndex(of: "I").map { text.string.unicodeScalars.distance(from: text.string.unicodeScalars.startIndex, to: $0) }
        #expect(first.map { text.lines[$0] } == 5)
    }

    @Test func tablesRenderTheSameOnSeveralThreads() async {
        let expected = CommonMark.html(Self.recipients)
        let segments = CommonMark.renderedText(Self.recipients).segments
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<200).allSatisfy { _ in CommonMark.html(Self.recipients) == expected && CommonMark.renderedText(Self.recipients).segments == segments }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
