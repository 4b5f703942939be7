import Foundation
import Testing

@testable import RatecardCore

/// DSC-24 searches for statistics only near the digits of a text (`StatisticRules.windows`):
/// what it finds there is what a search of the whole text finds, on the worded cases of the
/// rule and on texts drawn from the pieces its expression is made of.
@Suite struct StatisticScanTests {
    /// The pieces: every word the expression names, digits, commas and points, other Hangul,
    /// spaces and line breaks, and characters that are two UTF-16 units.
    static let pieces: [String] = [
        "승인", "통과", "가결", "대출실행", "율", "률", "은", "는", "이", ":", "약", "평균", "대출", "금리", "한도", "이자율", "승인율", "연",
        "최대", "이용자", "사용자", "고객", "회원", "가입자", "수", "만", "천", "억", "명", "개", "곳", "개사", "의", "제휴", "금융사",
        "금융회사", "제휴사", "은행", "저축은행", "캐피탈", "카드사", "0", "1", "7", "98", "3,000", ",", ".", "%", "기준", "2026년",
        "가", "사", "고", " ", "\n", "😀", "𝟗", "ａ", "약관", "제1조",
    ]

    func windowedEqualsWhole(_ text: String) -> Bool {
        let whole = StatisticRules.statistic.matches(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)).map(\.range)
        return StatisticRules.statistics(in: text).map(\.range) == whole
    }

    @Test func theWordedCasesAreFoundAsInTheWholeText() {
        let texts = [
            "승인율98%", "평균금리연7.5%", "평균한도3,000만원", "이용자300만명", "제휴금융사50곳", "50개금융사", "가입자😀😀😀😀1,234명",
            "제휴금융회사수😀😀😀😀12개사", "대출실행률은약12.5%", "12개사의제휴금융회사", "1,2,3,4,5,6,7,8,9개사의제휴저축은행",
            String(repeating: "약관의 내용", count: 40) + "승인율98%" + String(repeating: "가", count: 30) + "2026년10월기준",
            "", "숫자없는글", "1", "승인율", "%%%", "...,,,1",
        ]
        for text in texts {
            #expect(windowedEqualsWhole(text), "\(text)")
        }
        #expect(StatisticRules.statistics(in: "승인율98% 그리고 이용자300만명").count == 2)
        #expect(StatisticRules.statistics(in: String(repeating: "가입자의 권리", count: 50)).isEmpty)
    }

    @Test func drawnTextsAreFoundAsInTheWholeText() {
        var generator = SeededGenerator(seed: TestTier.seed)
        for _ in 0..<TestTier.count(full: 20_000, sampled: 1_500) {
            let count = Int.random(in: 0...60, using: &generator)
            let text = (0..<count).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            guard windowedEqualsWhole(text) else {
                Issue.record("the windows miss or add a statistic in \(text.debugDescription) (RATECARD_TEST_SEED=\(TestTier.seed))")
                return
            }
        }
    }
}
