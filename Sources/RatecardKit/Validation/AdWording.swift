import Foundation

/// Advertising wording a loan page may not use (DSC-06), matched on `CopyText` (NFKC, no
/// whitespace, no invisible characters), so patterns are written without spaces.
struct AdWording: Sendable {
    /// What the wording claims, as the message names it.
    var claim: String
    /// The legal basis and what to write instead.
    var advice: String
    /// An ICU regular expression over the normalized text.
    var pattern: String

    /// The prohibited list, documented in docs/content-format.md.
    static let prohibited: [AdWording] = [
        AdWording(
            claim: "approval regardless of credit",
            advice: "금소법 제22조④, 시행령 제20조①: every loan is subject to the lender's review; say who may apply instead",
            pattern: "누구나(대출|승인)|무조건(승인|대출|가능)|100%(승인|대출)|전원승인|(?<!의)무심사|심사없이|(신용|신용등급|신용점수|신용평점|등급|연체|연체자|저신용자?)(와|과)?(상관없이|무관)|신용불량자(환영|가능|대출)|연체자(환영|가능)"),
        AdWording(
            claim: "a guaranteed lowest rate",
            advice: "금소법 제22조④4가, 시행령 제20조①: state the rate range as the rate table gives it, not a superlative",
            pattern: "(업계|국내|시중|역대|대한민국)최저|최저(금리|이자|이율)?(를|을|로)?(보장|약속|확정)"),
        AdWording(
            claim: "an interest quote per day",
            advice: "금소법 제22조④, 대부업법 제9조③: quote interest as a yearly rate (연 x%)",
            pattern: "하루(에)?[0-9][0-9,]*(원|%)|하루이자|(?<![가-힣0-9])일(이자|[0-9][0-9.]*%)|일일이자"),
        AdWording(
            claim: "a brokerage fee paid by the borrower",
            advice: "대부업법 제11조의2②: a broker takes no fee from the borrower under any name",
            pattern: "(중개|대행|작업|수속)(수수료|비용|비)(는|은|:)?[1-9]|(중개|대행|작업|수속)(수수료|비용|비)(를|을)?(청구|입금|선입금|부과|납부|받(?!지|을수없|는것은))|수수료(를|을)?선입금|(?<!우)선수수료|작업대출"),
    ]

    /// One expression for the whole list (one pass over the text), each wording in a group.
    private static let expression = try! NSRegularExpression(pattern: prohibited.map { "(\($0.pattern))" }.joined(separator: "|"))

    /// The group that holds each wording: after the groups of the wordings before it.
    private static let groups: [Int] = prohibited.indices.map { number in
        1 + prohibited[..<number].map { 1 + (try! NSRegularExpression(pattern: $0.pattern)).numberOfCaptureGroups }.reduce(0, +)
    }

    struct Hit: Sendable, Equatable {
        var wording: String
        var claim: String
        var advice: String
        var mark: SourceMark
    }

    /// The prohibited wording in `copy` outside quotations, the first hit of each kind per line.
    static func hits(in copy: CopyText) -> [Hit] {
        guard !copy.text.isEmpty else { return [] }
        let text = NSString(string: copy.text)
        var seen: Set<String> = []
        var hits: [Hit] = []
        for match in expression.matches(in: copy.text, range: NSRange(location: 0, length: text.length)) {
            guard let number = (0..<prohibited.count).first(where: { match.range(at: groups[$0]).location != NSNotFound }) else { continue }
            let prefix = text.substring(to: match.range.location)
            let offset = prefix.unicodeScalars.count
            if copy.isQuoted(at: offset) { continue }
            let mark = copy.mark(at: offset)
            guard seen.insert("\(mark.line) \(number)").inserted else { continue }
            let wording = prohibited[number]
            hits.append(Hit(wording: text.substring(with: match.range), claim: wording.claim, advice: wording.advice, mark: mark))
        }
        return hits
    }
}
