import Foundation
import RatecardSupport

/// Statistics in the copy a borrower reads (an approval rate, an average rate or limit, a number
/// of users or lenders) carry the date they describe, and that date is recent.
public enum StatisticRules {
    public static let undated = Rule(
        "DSC-24", .error, "a statistic names its reference date",
        "금소법 제22조④: a figure without its period misleads; the FSS found loan-comparison platforms showing '승인율 98%' with no period or date (meeting with brokers, 2025-05-09). An approval rate, average rate or limit, or a number of users or lenders names the date it describes ('2026년 10월 기준').",
        ko: "통계에는 기준일이 있음",
        "금소법 제22조④: 기간 없는 수치는 오해를 부릅니다. 금융감독원은 대출비교 플랫폼이 '승인율 98%'를 기간이나 날짜 없이 보여 준 것을 지적했습니다 (대출중개업자 간담회, 2025-05-09). 승인율, 평균 금리나 한도, 이용자나 금융회사 수에는 그 수치의 기준일('2026년 10월 기준')을 씁니다."
    )
    public static let stale = Rule(
        "DSC-25", .warning, "a statistic's reference date is recent",
        "A statistic older than statistic_max_age_months (regulatory/limits.yaml, default 12) no longer says what a borrower can expect; the FSS asked for stale approval statistics to be updated (2025-05-09).",
        ko: "통계의 기준일이 오래되지 않음",
        "statistic_max_age_months(regulatory/limits.yaml, 기본값 12)보다 오래된 통계는 차입자가 기대할 수 있는 것을 더 이상 말해 주지 않습니다. 금융감독원은 오래된 승인율 통계를 고치라고 요청했습니다 (2025-05-09)."
    )

    public static let all = [undated, stale]

    /// The default age, in months, after which a statistic's reference date is warned about.
    package static let defaultMaxAgeMonths = 12

    /// A statistic in normalized copy (no spaces): '승인율98%', '평균금리연7.5%', '평균한도3,000만원',
    /// '이용자300만명', '제휴금융사50곳', '50개금융사'.
    package static let statistic = try! NSRegularExpression(
        pattern:
            "(승인|통과|가결|대출실행)(율|률)(은|는|이|:)?(약)?[0-9]+(\\.[0-9]+)?%|평균(대출)?(금리|한도|이자율|승인율)(은|는|:)?(연|최대)?[0-9]|(이용자|사용자|고객|회원|가입자)(수)?[^0-9]{0,4}[0-9][0-9,.]*(만|천|억)?명|[0-9][0-9,]*(개|곳|개사)(의)?(제휴)?(금융사|금융회사|제휴사|은행|저축은행|캐피탈|카드사)|(제휴)?(금융사|금융회사|제휴사)(수)?[^0-9]{0,4}[0-9][0-9,]*(개|곳|개사)"
    )

    /// A reference date: '2026년10월기준', '2026년10월31일현재', '2026.10.말기준', '2026-10-31기준'.
    package static let referenceDate = try! NSRegularExpression(
        pattern: "((?:19|20)[0-9]{2})(?:년|\\.|-|/)([0-9]{1,2})(?:월|\\.|-|/)?(?:([0-9]{1,2})(?:일|\\.)?)?(?:말)?(?:기준|현재)")

    /// How far (in characters of normalized text) a reference date may stand from its statistic.
    static let reach = 60

    package static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        let months = content.limits?.inForce(.statisticMaxAgeMonths, on: context.asOf).map { $0.value.thousandths / 1000 } ?? defaultMaxAgeMonths
        for product in content.products where product.status.value == .active {
            for (field, value) in product.copyFields {
                check(CopyText(plain: value.value, at: value.mark), what: .verbatim(field), path: product.path, asOf: context.asOf, months: months, into: diagnostics)
            }
        }
        for versions in content.versionsByDocument.values {
            for terms in DisclosureRules.currentVersions(among: versions, on: context.asOf) {
                for (field, value) in [("title", terms.title), ("summary", terms.summary)] {
                    check(CopyText(plain: value.value, at: value.mark), what: .verbatim(field), path: terms.path, asOf: context.asOf, months: months, into: diagnostics)
                }
                check(CopyText(markdown: terms.body, firstLine: terms.bodyLine), what: Message("the body", ko: "본문"), path: terms.path, asOf: context.asOf, months: months, into: diagnostics)
            }
        }
    }

    /// What `statistic` finds in `text`, searched only in `windows(in:)`: the same matches as a
    /// search of the whole text (`statisticWindowsFindWhatTheWholeTextHolds` checks it), without
    /// the expression trying every common syllable it may start with ('이', '사', '가', '금', ...)
    /// across a terms body whose digits are a few article numbers.
    package static func statistics(in text: String) -> [NSTextCheckingResult] {
        let windows = windows(in: text)
        guard !windows.isEmpty else { return [] }
        let units = Array(text.utf16)
        return windows.filter { holdsLiteral(units[$0.location..<($0.location + $0.length)]) }.flatMap { statistic.matches(in: text, range: $0) }
    }

    /// Words one of which every match of `statistic` holds: a window (which holds the whole of
    /// each match in it) without any is not searched.
    static let literals: [[UInt16]] = ["율", "률", "평균", "명", "금융", "제휴사", "은행", "캐피탈", "카드사"].map { Array($0.utf16) }

    static func holdsLiteral(_ units: ArraySlice<UInt16>) -> Bool {
        var index = units.startIndex
        while index < units.endIndex {
            for literal in literals where units[index] == literal[0] && index + literal.count <= units.endIndex {
                if units[index..<(index + literal.count)].elementsEqual(literal) { return true }
            }
            index += 1
        }
        return false
    }

    /// Most UTF-16 units a statistic has before its first digit ('대출실행률은약', '제휴금융회사수' and
    /// four other characters, each of which may be a surrogate pair), and after the run of
    /// digits, commas and points that digit starts ('개사의제휴금융회사').
    static let leadIn = 24
    static let leadOut = 24

    /// The UTF-16 ranges of `text`, in order and apart, that hold every match of `statistic`:
    /// each alternative of it holds a digit at most `leadIn` units after where it starts, and
    /// ends at most `leadOut` units after that digit's run of `[0-9,.]`. The expression has no
    /// anchors or look-arounds, so a match found in a range is the one found in the whole text.
    package static func windows(in text: String) -> [NSRange] {
        var windows: [NSRange] = []
        var start = -1
        var end = -1
        var position = 0
        var run = false  // inside a run of [0-9,.] that holds a digit
        for unit in text.utf16 {
            let digit = unit >= 0x30 && unit <= 0x39
            if digit || (run && (unit == 0x2C || unit == 0x2E)) {
                if digit && !run {
                    let from = max(0, position - leadIn)
                    if start < 0 || from > end {
                        if start >= 0 { windows.append(NSRange(location: start, length: end - start)) }
                        start = from
                    }
                    run = true
                }
                end = position + 1 + leadOut
            } else {
                run = false
            }
            position += 1
        }
        if start >= 0 { windows.append(NSRange(location: start, length: min(end, position) - start)) }
        return windows
    }

    static func check(_ copy: CopyText, what: Message, path: String, asOf: Day, months: Int, into diagnostics: Diagnostics) {
        let text = copy.text
        let statistics = statistics(in: text)
        guard !statistics.isEmpty else { return }
        let whole = NSRange(text.startIndex..<text.endIndex, in: text)
        // Each reference date with where it stands (in scalars) and the last day it describes.
        // The matches come in order: each offset is counted on from the one before.
        var datesAt = ScalarOffsets(text)
        let dates: [(offset: Int, day: Day)] = referenceDate.matches(in: text, range: whole).compactMap { match in
            func number(_ group: Int) -> Int? { Range(match.range(at: group), in: text).flatMap { Int(text[$0]) } }
            guard let range = Range(match.range, in: text), let year = number(1), let month = number(2), (1...12).contains(month) else { return nil }
            let day = number(3) ?? Day.daysIn(month: month, year: year)
            guard (1...Day.daysIn(month: month, year: year)).contains(day) else { return nil }
            return (datesAt.offset(of: range.lowerBound), Day(year: year, month: month, day: day))
        }
        var statisticsAt = ScalarOffsets(text)
        for match in statistics {
            guard let range = Range(match.range, in: text) else { continue }
            let offset = statisticsAt.offset(of: range.lowerBound)
            let figure = String(text[range])
            let near = dates.filter { abs($0.offset - offset) <= reach }.min { abs($0.offset - offset) < abs($1.offset - offset) }
            guard let date = near else {
                diagnostics.report(
                    undated, path, copy.mark(at: offset),
                    Message(
                        "\(what) states a statistic ('\(figure)') without its reference date; say when it was measured beside it ('2026년 10월 기준', with the period it covers) or remove it",
                        ko: "\(what)에 기준일 없는 통계('\(figure)')가 있습니다; 언제 잰 수치인지 바로 옆에 쓰거나('2026년 10월 기준', 집계 기간과 함께) 빼세요"))
                continue
            }
            if date.day.adding(months: months) < asOf {
                diagnostics.report(
                    stale, path, copy.mark(at: offset),
                    Message(
                        "\(what) states a statistic ('\(figure)') as of \(date.day), more than \(months) months before \(asOf); update the figure and its date, or remove it",
                        ko: "\(what)의 통계('\(figure)')는 \(date.day) 기준으로, \(asOf)보다 \(months)개월 넘게 오래되었습니다; 수치와 기준일을 새로 고치거나 빼세요"))
            }
        }
    }
}

/// The scalar offsets of positions in one text, asked for in order: each is counted on from the
/// last one asked for (counting each from the start made a body with many matches quadratic).
struct ScalarOffsets {
    private let scalars: String.UnicodeScalarView
    private var index: String.Index
    private var offset = 0

    init(_ text: String) {
        scalars = text.unicodeScalars
        index = scalars.startIndex
    }

    /// The offset in scalars of `position` (a scalar boundary of the text).
    mutating func offset(of position: String.Index) -> Int {
        if position < index {
            index = scalars.startIndex
            offset = 0
        }
        offset += scalars.distance(from: index, to: position)
        index = position
        return offset
    }
}
