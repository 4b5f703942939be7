import Foundation
import RatecardSupport

/// Advertising wording a loan page may not use (DSC-06), matched on `CopyText` (NFKC, no
/// whitespace, no invisible characters), so patterns are written without spaces.
package struct AdWording: Sendable {
    /// What the wording claims, as the message names it.
    package var claim: Message
    /// The legal basis and what to write instead.
    package var advice: Message
    /// An ICU regular expression over the normalized text.
    package var pattern: String

    /// The prohibited list, documented in docs/content-format.md.
    package static let prohibited: [AdWording] = [
        AdWording(
            claim: Message("approval regardless of credit", ko: "신용과 무관한 승인"),
            advice: Message(
                "금소법 제22조④, 시행령 제20조①: every loan is subject to the lender's review; say who may apply instead",
                ko: "금소법 제22조④, 시행령 제20조①: 모든 대출은 금융사의 심사를 거칩니다; 대신 누가 신청할 수 있는지 쓰세요"),
            pattern: "누구나(대출|승인)|무조건(승인|대출|가능)|100%(승인|대출)|전원승인|무심사|심사없이|(신용|신용등급|신용점수|신용평점|등급|연체|연체자|저신용자?)(와|과)?(상관없이|무관)|신용불량자(환영|가능|대출)|연체자(환영|가능)"),
        AdWording(
            claim: Message("a guaranteed lowest rate", ko: "최저금리 보장"),
            advice: Message(
                "금소법 제22조④4가, 시행령 제20조①: state the rate range as the rate table gives it, not a superlative",
                ko: "금소법 제22조④4가, 시행령 제20조①: 최상급 표현 대신 금리표에 있는 금리 범위를 쓰세요"),
            pattern: "(업계|국내|시중|역대|대한민국)최저|최저(금리|이자|이율)?(를|을|로)?(보장|약속|확정)"),
        AdWording(
            claim: Message("an interest quote per day", ko: "일 단위 이자 표시"),
            advice: Message("금소법 제22조④, 대부업법 제9조③: quote interest as a yearly rate (연 x%)", ko: "금소법 제22조④, 대부업법 제9조③: 이자는 연이율(연 x%)로 쓰세요"),
            pattern: "하루(에)?[0-9][0-9,]*(원|%)|하루이자|일(이자|[0-9][0-9.]*%)|일일이자"),
        AdWording(
            claim: Message("a brokerage fee paid by the borrower", ko: "차입자가 내는 중개수수료"),
            advice: Message(
                "대부업법 제11조의2②: a broker takes no fee from the borrower under any name", ko: "대부업법 제11조의2②: 대출모집인은 어떤 명목으로도 차입자에게서 수수료를 받지 않습니다"),
            pattern: "(중개|대행|작업|수속)(수수료|비용|비)(는|은|:)?[1-9]|(중개|대행|작업|수속)(수수료|비용|비)(를|을)?(청구|입금|선입금|부과|납부|받(?!지|을수없|는것은))|수수료(를|을)?선입금|선수수료|작업대출"),
    ]

    /// One expression for the whole list (one pass over the text), each wording in a group.
    private static let expression = try! NSRegularExpression(pattern: prohibited.map { "(\($0.pattern))" }.joined(separator: "|"))

    /// The group that holds each wording: after the groups of the wordings before it.
    private static let groups: [Int] = prohibited.indices.map { number in
        1 + prohibited[..<number].map { 1 + (try! NSRegularExpression(pattern: $0.pattern)).numberOfCaptureGroups }.reduce(0, +)
    }

    package struct Hit: Sendable, Equatable {
        /// The wording as written in the source (or rendered) text.
        package var wording: String
        /// Which of `prohibited` it is.
        package var kind: Int
        package var mark: SourceMark
        /// When the wording is quoted (a terms body's block quote or quotation marks), the
        /// normalized text that must warn against it (`CopyText.quotation(at:)`): the wording
        /// is then not the document's own words if it holds a quotation warning word.
        package var quotation: String? = nil

        package var claim: Message { prohibited[kind].claim }
        package var advice: Message { prohibited[kind].advice }
    }

    /// Whether a quotation's context holds one of `warnings` (normalized as copy is).
    package static func warns(_ quotation: String, _ warnings: [String]) -> Bool {
        warnings.contains { word in
            let normalized = CopyText(plain: word, at: .start).text
            return !normalized.isEmpty && quotation.contains(normalized)
        }
    }

    /// What may not stand just before a match, for the wordings that a longer word contains
    /// harmlessly ("의무심사" is not 무심사, "매월1일이자" is not a per-day quote, "우선수수료" is
    /// not an up-front fee). Checked here rather than as lookbehinds in the expression: a
    /// lookbehind at the start of an alternative stops ICU from skipping ahead to the characters
    /// a match can start with, which made the scan of 16 MB of terms text several times slower.
    package static func excluded(_ wording: String, after previous: Unicode.Scalar?) -> Bool {
        guard let previous else { return false }
        if wording.hasPrefix("무심사") { return previous == "의" }
        if wording.hasPrefix("선수수료") { return previous == "우" }
        if wording.hasPrefix("일"), !wording.hasPrefix("일일이자") { return (0xAC00...0xD7A3).contains(previous.value) || ("0"..."9").contains(previous) }
        return false
    }

    /// Words one of which every match of the list contains (`일` followed by a digit aside): a
    /// text holding none of them cannot match, and the regular expression, the costliest step of
    /// validating 16 MB of terms text, is not run on it. `wordingsHaveTheirLiterals` in the tests
    /// checks this against every alternative of every pattern.
    package static let literals: [String] = [
        "누구나", "무조건", "100%", "전원승인", "무심사", "심사없이", "상관없이", "무관", "신용불량자", "연체자",
        "최저", "하루", "일이자", "중개", "대행", "작업", "수속", "선입금", "선수수료",
    ]

    private static let literalScalars: [[Unicode.Scalar]] = literals.map { Array($0.unicodeScalars) }

    /// The first scalars of `literals` (and `일`), as bits over the Hangul syllables, plus `1`.
    private static let anchors: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: (0xD7A4 - 0xAC00 + 63) / 64)
        for first in literalScalars.map({ $0[0] }) + ["일"] where (0xAC00...0xD7A3).contains(first.value) {
            let offset = Int(first.value) - 0xAC00
            bits[offset / 64] |= 1 << UInt64(offset % 64)
        }
        return bits
    }()

    /// Whether `scalars` hold one of `literals`, or `일` followed by an ASCII digit.
    package static func mayMatch(_ scalars: [Unicode.Scalar]) -> Bool {
        let count = scalars.count
        var index = 0
        while index < count {
            let value = scalars[index].value
            let anchor: Bool
            if value >= 0xAC00 && value <= 0xD7A3 {
                let offset = Int(value) - 0xAC00
                anchor = anchors[offset / 64] & (1 << UInt64(offset % 64)) != 0
            } else {
                anchor = value == 0x31
            }
            if anchor {
                if value == 0xC77C, index + 1 < count, (0x30...0x39).contains(scalars[index + 1].value) { return true }
                for literal in literalScalars where literal[0].value == value && index + literal.count <= count {
                    var same = true
                    for offset in 1..<literal.count where scalars[index + offset] != literal[offset] {
                        same = false
                        break
                    }
                    if same { return true }
                }
            }
            index += 1
        }
        return false
    }

    /// The prohibited wording in `copy`, the first hit of each kind per line and quotation.
    /// The expression runs only on text that `mayMatch`: without that check it was a fifth of
    /// `validate --rev` CPU on the 3,000-product repository (docs/decisions/0010).
    package static func hits(in copy: CopyText) -> [Hit] {
        guard !copy.scalars.isEmpty, mayMatch(copy.scalars) else { return [] }
        return matches(in: copy)
    }

    /// What the expression finds in `copy`, whatever `mayMatch` says of it.
    package static func matches(in copy: CopyText) -> [Hit] {
        let string = copy.text
        let text = NSString(string: string)
        var seen: Set<String> = []
        var hits: [Hit] = []
        for match in expression.matches(in: string, range: NSRange(location: 0, length: text.length)) {
            guard let number = (0..<prohibited.count).first(where: { match.range(at: groups[$0]).location != NSNotFound }) else { continue }
            let found = text.substring(with: match.range)
            if match.range.location > 0, excluded(found, after: text.substring(with: NSRange(location: match.range.location - 1, length: 1)).unicodeScalars.last) { continue }
            let prefix = text.substring(to: match.range.location)
            let offset = prefix.unicodeScalars.count
            let quotation = copy.quotation(at: offset)
            let mark = copy.mark(at: offset)
            guard seen.insert("\(mark.line) \(number) \(quotation ?? "-")").inserted else { continue }
            // Quoted back as the user wrote it ("무 조 건 승인"), not as normalized ("무조건승인").
            hits.append(Hit(wording: copy.original(offset..<offset + found.unicodeScalars.count), kind: number, mark: mark, quotation: quotation))
        }
        return hits
    }
}
