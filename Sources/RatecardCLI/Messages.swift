/// The language messages are printed in: English by default, Korean on request.
public enum Language: String, CaseIterable, Sendable {
    case en
    case ko

    /// `--lang` when given (`en` or `ko`), else the locale of messages from the environment:
    /// `LC_ALL`, then `LC_MESSAGES`, then `LANG`, as POSIX orders them; Korean when it starts with `ko`.
    static func resolve(argument: String?, environment: [String: String]) throws(UsageError) -> Language {
        if let argument {
            guard let language = Language(rawValue: argument.lowercased()) else {
                throw UsageError("Unknown language '\(argument)'; use one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return language
        }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            return value.hasPrefix("ko") ? .ko : .en
        }
        return .en
    }
}

/// Every message text that changes with the language, in one table.
///
/// Messages are written in English where they are made (next to each check, STYLE.md); in
/// Korean, `localize` translates them here, one `; `-separated part at a time, from templates
/// where `{}` stands for a value that is kept as written (`{1}` picks the second value when
/// Korean orders them differently). A part with no template stays in English; rule ids, paths,
/// field names and values never change.
public struct Messages: Sendable {
    public var language: Language

    public init(_ language: Language) { self.language = language }

    public static let english = Messages(.en)

    /// `text` in this language.
    public func localize(_ text: String) -> String {
        guard language == .ko else { return text }
        return text.components(separatedBy: "; ").map(Self.translate).joined(separator: "; ")
    }

    /// A fixed word or phrase (severity words, report and usage words) in this language.
    public func word(_ english: String) -> String {
        guard language == .ko else { return english }
        return Self.korean[english] ?? english
    }

    /// The pointer to `--help` under a usage error.
    func seeHelp(_ command: String) -> String {
        language == .ko ? "자세한 내용은 '\(command) --help'를 보세요." : "See '\(command) --help' for more information."
    }

    /// `2 errors, 1 warning in 180 files` (+ commits for a range, + what a later commit fixed).
    func summary(errors: Int, warnings: Int, files: Int, commits: Int, parsed: Int, fixed: Int) -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        switch language {
        case .en:
            var text = "\(count(errors, "error")), \(count(warnings, "warning")) in \(count(files, "file"))"
            if commits > 0 { text += " across \(count(commits, "commit")) (\(count(parsed, "file")) parsed)" }
            if fixed > 0 { text += "; \(fixed) fixed later in the range" }
            return text
        case .ko:
            var text = "오류 \(errors)개, 경고 \(warnings)개 (파일 \(files)개"
            if commits > 0 { text += ", 커밋 \(commits)개, 읽은 파일 \(parsed)개" }
            text += ")"
            if fixed > 0 { text += "; 범위 안에서 나중에 고쳐진 문제 \(fixed)개" }
            return text
        }
    }

    // MARK: - The table

    /// Fixed words and phrases.
    static let korean: [String: String] = [
        "error": "오류",
        "warning": "경고",
        "note": "참고",
        "invalid": "유효하지 않음",
        "ok": "정상",
        "Error": "오류",
        "Usage": "사용법",
        "introduced in": "도입한 커밋",
        "fixed later in the range by": "범위 안의 나중 커밋에서 고쳐짐:",
        "Fixed later in the range (history, not problems at its end):": "범위 안에서 나중에 고쳐진 문제 (기록일 뿐, 범위 끝에서는 문제가 아님):",
        "Warnings (they do not block the save):": "경고 (저장을 막지는 않습니다):",
    ]

    /// Templates for message parts, English -> Korean.
    static let templates: [(String, String)] = [
        // Validation: the most frequent rules (SCH, YML, CAP-01, BND) and the did-you-mean text.
        ("did you mean {}?", "혹시 {}을(를) 뜻했나요?"),
        ("missing required field '{}'", "필수 필드 '{}'이(가) 없습니다"),
        ("required field '{}' is empty", "필수 필드 '{}'이(가) 비어 있습니다"),
        ("unknown field '{}'", "알 수 없는 필드 '{}'"),
        ("expected one of: {}", "쓸 수 있는 필드: {}"),
        ("'{}' is '{}', which is not one of: {}", "'{}'의 값 '{}'은(는) 허용되지 않습니다. 허용되는 값: {}"),
        ("'{}' is '{}', which is not a real date in YYYY-MM-DD form", "'{}'의 값 '{}'은(는) YYYY-MM-DD 형식의 실제 날짜가 아닙니다"),
        ("'{}' must be a number, found {}", "'{}'에는 숫자를 써야 합니다 (지금 값: {})"),
        ("'{}' must be a whole number, found {}", "'{}'에는 정수를 써야 합니다 (지금 값: {})"),
        ("'{}' must be a whole number of won, found {}", "'{}'에는 원 단위 정수를 써야 합니다 (지금 값: {})"),
        ("'{}' must be text, found {}", "'{}'에는 텍스트를 써야 합니다 (지금 값: {})"),
        ("'{}' must be true or false, found {}", "'{}'에는 true 또는 false를 써야 합니다 (지금 값: {})"),
        ("'{}' must be a list, found {}", "'{}'에는 목록을 써야 합니다 (지금 값: {})"),
        ("'{}' must be a date (YYYY-MM-DD), found {}", "'{}'에는 날짜(YYYY-MM-DD)를 써야 합니다 (지금 값: {})"),
        ("expected a mapping of fields for {}, found a {}", "{}에는 필드 매핑이 와야 합니다 (지금 값: {})"),
        ("put it in quotes", "따옴표로 감싸세요"),
        ("the file is empty", "파일이 비어 있습니다"),
        ("tabs are not allowed for indentation in YAML", "YAML에서는 탭으로 들여쓸 수 없습니다"),
        ("indent with spaces", "공백으로 들여쓰세요"),
        ("YAML syntax error: {}", "YAML 문법 오류: {}"),
        ("duplicate key '{}' (first defined at line {})", "키 '{}'이(가) 두 번 나옵니다 (처음 나온 곳: {}번째 줄)"),
        ("keep one", "하나만 남기세요"),
        ("apr_max_pct {} is above the legal cap {} in force since {} ({})", "apr_max_pct {0}이(가) {2}부터 시행 중인 법정 최고금리 {1}을(를) 넘습니다 ({3})"),
        ("lower it or split the band", "낮추거나 구간을 나누세요"),
        ("scores {}-{} are in no band", "점수 {}-{}이(가) 어느 구간에도 들어 있지 않습니다"),
        ("score_min should be {}", "score_min은 {}이어야 합니다"),
        ("scores {}-{} are also in the band {}", "점수 {}-{}이(가) 구간 {}에도 들어 있습니다"),
        ("the top band ends at {}", "가장 높은 구간이 {}에서 끝납니다"),
        ("it must reach {}", "{}까지 이어져야 합니다"),
        (
            "history rules (HIS-01 to HIS-04) were not checked for {}: its parent {} is not in this clone (a shallow clone)",
            "{0}의 이력 규칙(HIS-01~HIS-04)은 검사하지 않았습니다: 부모 커밋 {1}이(가) 이 클론에 없습니다 (얕은 클론)"
        ),
        (
            "fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range)",
            "'git fetch --deepen=1'로 가져오세요 (GitHub Actions에서는 actions/checkout에 fetch-depth: 2, --range에는 0)"
        ),
        // BND-07, REF-06, DSC-06, DSC-18, DSC-19, HIS-06, HIS-11.
        ("the best band {}-{} starts at {}%, above the worst band {}-{} ({}%)", "가장 좋은 구간 {}-{}의 최저 금리({}%)가 가장 낮은 구간 {}-{}의 최저 금리({}%)보다 높습니다"),
        ("the best band {}-{} goes up to {}%, above the worst band {}-{} ({}%)", "가장 좋은 구간 {}-{}의 최고 금리({}%)가 가장 낮은 구간 {}-{}의 최고 금리({}%)보다 높습니다"),
        ("the table runs the wrong way end to end (the best scores pay the most)", "금리표 전체가 거꾸로 되어 있습니다 (신용점수가 가장 좋은 고객이 가장 높은 금리를 냅니다)"),
        ("check that the rates are not in reverse order", "금리를 거꾸로 입력하지 않았는지 확인하세요"),
        ("사업자등록번호 '{}' is written in full-width digits (an IME paste)", "사업자등록번호 '{}': 전각 숫자로 쓰여 있습니다 (입력기에서 붙여 넣은 값)"),
        ("사업자등록번호 '{}' has characters other than ASCII digits and '-'", "사업자등록번호 '{}': ASCII 숫자와 '-' 말고 다른 문자가 있습니다"),
        ("write it in ASCII digits: '{}'", "ASCII 숫자로 쓰세요: '{}'"),
        ("write it in ASCII digits (0-9) and '-'", "ASCII 숫자(0-9)와 '-'로 쓰세요"),
        ("the text quotes {} ('{}') without warning against it", "본문에 인용한 문구('{1}')는 경고 없이 쓰였습니다"),
        (
            "{}. A quotation is a warning only when a word of quotation_warnings in regulatory/phrases.yaml ({}) follows it in its sentence, or for a block quote, stands in it or in the line before it",
            "{}. 인용은 regulatory/phrases.yaml의 quotation_warnings 단어({})가 같은 문장에서 인용 뒤에 오거나, 인용 블록이면 그 블록이나 바로 앞 줄에 있을 때만 경고로 봅니다"
        ),
        (
            "{} speaks of credit grades ('{}'), but the product is priced on credit scores ({})",
            "{0}에 신용등급 표현('{1}')이 있지만 이 상품은 신용점수로 금리를 정합니다 ({2})"
        ),
        (
            "grades were replaced by 0-1000 scores on 2021-01-01, so state the score (신용평점) instead",
            "신용등급은 2021-01-01부터 0-1000점의 신용점수로 바뀌었으니 신용평점으로 쓰세요"
        ),
        ("the body states a withdrawal period of {} days ('{}')", "본문에 청약철회 기간이 {}일로 쓰여 있습니다 ('{}')"),
        ("{} states a withdrawal period of {} days ('{}')", "{0}에 청약철회 기간이 {1}일로 쓰여 있습니다 ('{2}')"),
        (
            "a borrower may withdraw for {} days (withdrawal_period_days in regulatory/limits.yaml: {}), so write {}일",
            "청약철회 기간은 {0}일이니 {2}일로 쓰세요 (regulatory/limits.yaml의 withdrawal_period_days: {1})"
        ),
        (
            "quotation warnings were added ({}), so wording quoted before them is no longer checked as advertising ({})",
            "인용 경고 단어가 추가되어({0}) 그 앞에 인용한 문구는 더 이상 광고 문구로 검사하지 않습니다 ({1})"
        ),
        ("quotation warning '{}' is shorter than two characters", "인용 경고 단어 '{}': 두 글자보다 짧습니다"),
        ("a warning word says what is wrong (불법, 사기, 주의)", "경고 단어는 무엇이 잘못인지 말해야 합니다 (불법, 사기, 주의)"),
        (
            "a new version dated {} is backdated (before {}): it would say it was in force on days users were shown the version before",
            "새 버전의 시행일({0})이 소급되어 있습니다 ({1} 이전): 이용자가 이전 버전을 본 날에도 시행 중이었다고 말하게 됩니다"
        ),
        ("date it {} or later (effective_from)", "effective_from을 {} 이후로 하세요"),
        // DSC-16 and REF-02, with partners that go live later.
        (
            "the consent does not name partner '{}' ({}), which goes live on {} while this version is in force",
            "이 버전이 시행 중인 {2}에 제휴를 시작하는 '{0}'({1})의 이름이 동의서에 없습니다"
        ),
        (
            "name it in a new major version with requires_reconsent: true that takes effect on {} or before, or move go_live",
            "{} 또는 그 전에 시행하는 새 주 버전(requires_reconsent: true)에 이름을 넣거나 go_live를 옮기세요"
        ),
        ("the consent does not name partner '{}' ({}), which receives the data", "정보를 받는 제휴사 '{}'({})의 이름이 동의서에 없습니다"),
        ("add it in a new major version with requires_reconsent: true", "requires_reconsent: true인 새 주 버전에 추가하세요"),
        ("active product has no rate table in force on {}, the day its partner goes live", "판매 중인 상품에 제휴 시작일인 {}에 적용되는 금리표가 없습니다"),
        ("active product has no rate table in force on {}", "판매 중인 상품에 {}에 적용되는 금리표가 없습니다"),
        ("add rates/<date>.yaml or set status: withdrawn", "rates/<date>.yaml을 추가하거나 status: withdrawn으로 바꾸세요"),
        // Usage errors.
        ("Unknown option '{}'", "알 수 없는 옵션 '{}'"),
        ("Missing value for '{}'", "'{}'에 값이 없습니다"),
        ("Missing expected argument", "필요한 인자가 없습니다"),
        ("Missing expected arguments", "필요한 인자가 없습니다"),
        ("Unexpected argument '{}'", "예상하지 못한 인자 '{}'"),
        ("Missing expected command", "명령이 없습니다"),
        ("Unknown command '{}'", "알 수 없는 명령 '{}'"),
        ("Missing expected option '{}'", "필요한 옵션 '{}'이(가) 없습니다"),
        ("'{}' takes no value", "'{}'에는 값을 줄 수 없습니다"),
        ("Unknown format '{}'", "알 수 없는 형식 '{}'"),
        ("Unknown language '{}'", "알 수 없는 언어 '{}'"),
        ("use one of: {}", "다음 중 하나를 쓰세요: {}"),
        ("Unknown environment '{}'", "알 수 없는 환경 '{}'"),
        ("ratecard.yaml names these environments: {}", "ratecard.yaml에 있는 환경: {}"),
        ("ratecard.yaml names no environments", "ratecard.yaml에 환경이 하나도 없습니다"),
        ("'--from' and '--to' are the same environment ({})", "'--from'과 '--to'가 같은 환경입니다 ({})"),
        ("promote ships a release to another environment", "promote는 릴리스를 다른 환경으로 보냅니다"),
        ("no product '{}' in the content", "콘텐츠에 상품 '{}'이(가) 없습니다"),
        ("no partner '{}' in the content", "콘텐츠에 제휴사 '{}'이(가) 없습니다"),
        ("no terms document '{}' in the content", "콘텐츠에 약관 문서 '{}'이(가) 없습니다"),
        ("the nearest: {}", "가장 가까운 것: {}"),
        ("'{}' and '{}' cannot be used together", "'{}'와(과) '{}'는 함께 쓸 수 없습니다"),
        // Other messages.
        ("Nothing has been published to {} yet", "{}에는 아직 게시된 것이 없습니다"),
    ]

    static func translate(_ part: String) -> String {
        for (english, korean) in templates {
            if let values = match(part, english) { return fill(korean, values) }
        }
        return part
    }

    /// The values standing for `{}` when `text` fits `template`, else nil. Each `{}` takes the
    /// shortest text up to the literal that follows it; the last one takes the rest.
    static func match(_ text: String, _ template: String) -> [String]? {
        let literals = template.components(separatedBy: "{}")
        guard literals.count > 1 else { return text == template ? [] : nil }
        guard text.hasPrefix(literals[0]), text.hasSuffix(literals[literals.count - 1]),
            text.count >= literals[0].count + literals[literals.count - 1].count
        else { return nil }
        var rest = text.dropFirst(literals[0].count).dropLast(literals[literals.count - 1].count)
        var values: [String] = []
        for literal in literals.dropFirst().dropLast() {
            guard !literal.isEmpty, let found = rest.range(of: literal) else { return nil }
            values.append(String(rest[..<found.lowerBound]))
            rest = rest[found.upperBound...]
        }
        values.append(String(rest))
        return values
    }

    /// The template with its `{}` (in order) or `{N}` (by index) replaced by `values`.
    static func fill(_ template: String, _ values: [String]) -> String {
        var text = ""
        var next = 0
        var index = template.startIndex
        while index < template.endIndex {
            if template[index] == "{", let close = template[index...].firstIndex(of: "}") {
                let inside = template[template.index(after: index)..<close]
                if inside.isEmpty || Int(inside) != nil {
                    let position = Int(inside) ?? next
                    next += 1
                    let value = position < values.count ? values[position] : ""
                    text += value.replacingAll("' or '", "' 또는 '")
                    index = template.index(after: close)
                    continue
                }
            }
            text.append(template[index])
            index = template.index(after: index)
        }
        return text
    }
}
