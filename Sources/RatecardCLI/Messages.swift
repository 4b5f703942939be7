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

    /// `2 errors, 1 warning in 180 files` (+ commits for a range, + what a later commit fixed, +
    /// the rules that could not run, or were skipped on request).
    func summary(errors: Int, warnings: Int, files: Int, commits: Int, parsed: Int, fixed: Int, unrun: Int = 0, skipped: Bool = false) -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        switch language {
        case .en:
            var text = "\(count(errors, "error")), \(count(warnings, "warning")) in \(count(files, "file"))"
            if commits > 0 { text += " across \(count(commits, "commit")) (\(count(parsed, "file")) parsed)" }
            if fixed > 0 { text += "; \(fixed) fixed later in the range" }
            if unrun > 0 { text += skipped ? "; \(count(unrun, "rule")) skipped (--allow-shallow)" : "; \(count(unrun, "rule")) could not run" }
            return text
        case .ko:
            var text = "오류 \(errors)개, 경고 \(warnings)개 (파일 \(files)개"
            if commits > 0 { text += ", 커밋 \(commits)개, 읽은 파일 \(parsed)개" }
            text += ")"
            if fixed > 0 { text += "; 범위 안에서 나중에 고쳐진 문제 \(fixed)개" }
            if unrun > 0 { text += skipped ? "; 건너뛴 규칙 \(unrun)개 (--allow-shallow)" : "; 실행하지 못한 규칙 \(unrun)개" }
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
        "incomplete": "검사 미완료",
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
            "history rules ({}) could not run for {}: its parent {} is not in this clone (a shallow clone)",
            "{1} 커밋의 이력 규칙({0})은 실행하지 못했습니다: 부모 커밋({2})이 이 클론에 없습니다 (얕은 클론)"
        ),
        (
            "history rules ({}) were skipped for {} (--allow-shallow): its parent {} is not in this clone (a shallow clone)",
            "{1} 커밋의 이력 규칙({0})은 요청대로 건너뛰었습니다 (--allow-shallow): 부모 커밋({2})이 이 클론에 없습니다 (얕은 클론)"
        ),
        (
            "{} rules could not run: {} compare a commit with its parent, and the parent of {} is not in this clone (a shallow clone)",
            "규칙 {0}개는 실행하지 못했습니다: 이 규칙들({1})은 커밋을 부모 커밋과 비교하는데, 커밋 {2}의 부모 커밋이 이 클론에 없습니다 (얕은 클론)"
        ),
        (
            "fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range)",
            "'git fetch --deepen=1'로 가져오세요 (GitHub Actions에서는 actions/checkout에 fetch-depth: 2, --range에는 0)"
        ),
        ("or pass --allow-shallow to skip them", "일부러 건너뛰려면 --allow-shallow 옵션을 주세요"),
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
        // The native bridge: how the web build reaches the app (BRG-04, 05, 08, 09, 10).
        ("'{}' is the app's native interface, used directly", "앱의 네이티브 인터페이스 '{}' 직접 사용"),
        (
            "call the app through RatecardBridge.call(\"command\", params) (app/bridge.js), which checks, times out and replies",
            "앱 호출은 확인, 시간 제한, 응답을 처리하는 RatecardBridge.call(\"command\", params) (app/bridge.js)로 하세요"
        ),
        (
            "RatecardBridge.{} needs the message name as a string literal, so it can be checked against bridge.yaml and the installed apps",
            "RatecardBridge.{}에는 메시지 이름을 문자열 리터럴로 써야 bridge.yaml과 설치된 앱에 맞춰 검사할 수 있습니다"
        ),
        (
            "RatecardBridge may be used only as RatecardBridge.call(\"name\", ...), RatecardBridge.has(\"name\") or RatecardBridge.on(\"name\", ...), written out",
            "RatecardBridge는 RatecardBridge.call(\"name\", ...), RatecardBridge.has(\"name\"), RatecardBridge.on(\"name\", ...) 형태로 그대로 써야만 합니다"
        ),
        ("the check cannot tell what other code calls", "다른 형태로는 무엇을 호출하는지 검사기가 알 수 없습니다"),
        ("the string 'RatecardBridge' reaches the runtime by name", "문자열 'RatecardBridge': 이름으로 런타임에 접근합니다"),
        ("use RatecardBridge.call(\"name\", ...), .has(\"name\") or .on(\"name\", ...)", "RatecardBridge.call(\"name\", ...), .has(\"name\"), .on(\"name\", ...) 형태를 쓰세요"),
        ("the name '{}' is written with a \\u escape", "이름 '{}'에 \\u 이스케이프가 쓰였습니다"),
        ("write names out plainly", "이름은 이스케이프 없이 그대로 쓰세요"),
        ("'{}' runs text as code, which the check cannot read", "'{}' 사용: 텍스트를 코드로 실행하므로 검사기가 읽을 수 없습니다"),
        ("write the code out", "코드를 직접 쓰세요"),
        ("'Reflect' reaches properties by computed name, which the check cannot follow", "'Reflect' 사용: 계산된 이름으로 속성에 접근하므로 검사기가 따라갈 수 없습니다"),
        ("use plain property access", "일반 속성 접근(object.name)을 쓰세요"),
        (
            "'{}' must be given a function written in place (function () {...} or an arrow): given text, it runs it as code",
            "'{}'에는 그 자리에 쓴 함수(function () {...} 또는 화살표 함수)를 넘겨야 합니다: 텍스트를 넘기면 코드로 실행합니다"
        ),
        ("import() loads code the check cannot follow", "import()는 검사기가 따라갈 수 없는 코드를 불러옵니다"),
        ("load scripts with <script src> or a static import", "스크립트는 <script src> 또는 정적 import로 불러오세요"),
        ("a with statement hides which object a name is read from", "with 문은 이름을 어느 객체에서 읽는지 감춥니다"),
        ("write the object out", "객체를 직접 쓰세요"),
        ("'open' makes a window the check cannot follow", "'open' 사용: 검사기가 따라갈 수 없는 창을 만듭니다"),
        (
            "open a page outside the app with RatecardBridge.call(\"open_external_url\", ...)",
            "앱 밖의 페이지는 RatecardBridge.call(\"open_external_url\", ...)로 여세요"
        ),
        (
            "'{}' can hold the page's window, so the check accepts it only as {}.name: stored, passed, indexed or called, it reaches the app's bridge unseen (use another name for a variable of your own)",
            "'{}'에는 페이지의 window가 들어 있을 수 있어 {}.name 형태로만 허용됩니다: 저장하거나 넘기거나 인덱싱하거나 호출하면 검사기 모르게 앱 브리지에 닿습니다 (직접 만든 변수에는 다른 이름을 쓰세요)"
        ),
        ("the string '{}' names what the check refuses to see reached", "문자열 '{}': 검사기가 허용하지 않는 대상을 이름으로 가리킵니다"),
        ("write the code out without it", "그 문자열 없이 코드를 직접 쓰세요"),
        ("a javascript: URL runs code the check does not read", "javascript: URL은 검사기가 읽지 않는 코드를 실행합니다"),
        ("a javascript: URL ({}) runs code the check does not read", "javascript: URL ({}): 검사기가 읽지 않는 코드를 실행합니다"),
        ("put the code in a .js file", "코드는 .js 파일에 두세요"),
        (
            "a member name computed from string pieces can name anything, the app's bridge included",
            "문자열 조각으로 만든 멤버 이름은 앱 브리지를 포함해 무엇이든 가리킬 수 있습니다"
        ),
        ("write the name out (object.name)", "이름을 직접 쓰세요 (object.name)"),
        ("a comment is not closed (no */)", "주석이 닫히지 않았습니다 (*/ 없음)"),
        ("an HTML-like comment (<!-- or -->) in a script", "스크립트 안에 HTML식 주석(<!-- 또는 -->)이 있습니다"),
        ("use // instead", "대신 // 주석을 쓰세요"),
        ("'{}' is never closed", "열린 '{}' 기호가 닫히지 않습니다"),
        ("'{}' closes nothing that is open", "닫을 대상이 없는 '{}' 기호입니다"),
        ("a name holds a '\\' that is not a \\u escape", "이름 안에 \\u 이스케이프가 아닌 '\\' 문자가 있습니다"),
        ("a \\u escape in a name stands for a character no name may hold", "이름 안의 \\u 이스케이프가 이름에 쓸 수 없는 문자를 나타냅니다"),
        ("a \\x escape needs two hex digits", "\\x 이스케이프에는 16진수 두 자리가 필요합니다"),
        ("a \\u escape needs four hex digits or {hex}", "\\u 이스케이프에는 16진수 네 자리 또는 {hex} 형식이 필요합니다"),
        ("a string is not closed on its line", "문자열이 그 줄에서 닫히지 않았습니다"),
        ("a template literal is not closed (no `)", "템플릿 리터럴이 닫히지 않았습니다 (` 없음)"),
        ("a regular expression is not closed on its line", "정규 표현식이 그 줄에서 닫히지 않았습니다"),
        ("a '/' after '{}' may divide or start a regular expression", "'{}' 뒤의 '/' 기호는 나눗셈일 수도, 정규 표현식의 시작일 수도 있습니다"),
        ("the check cannot tell which: use parentheses", "검사기는 어느 쪽인지 알 수 없습니다: 괄호로 감싸세요"),
        ("the check cannot tell which: use parentheses or a ';'", "검사기는 어느 쪽인지 알 수 없습니다: 괄호로 감싸거나 세미콜론(;)을 넣으세요"),
        ("an event-handler attribute ({}) in a file whose scripts the check does not read", "검사기가 스크립트를 읽지 않는 파일의 이벤트 핸들러 속성 ({})"),
        ("a <script> in a file whose scripts the check does not read", "검사기가 스크립트를 읽지 않는 파일 안의 <script>"),
        ("an srcdoc document's scripts are not checked", "srcdoc 문서의 스크립트는 검사되지 않습니다"),
        ("give the frame a page of the web build as its src", "프레임의 src에 웹 빌드의 페이지를 지정하세요"),
        ("inline <{}> is parsed by other rules, which can hide scripts from the check", "인라인 <{}> 요소는 다른 규칙으로 파싱되어 검사기에게서 스크립트를 숨길 수 있습니다"),
        ("use it as an image file (<img src>)", "이미지 파일로 쓰세요 (<img src>)"),
        (
            "an inline script holding '<!--' (where such a script ends depends on what follows it)",
            "'<!--' 기호가 든 인라인 스크립트 (끝나는 위치가 뒤에 오는 내용에 따라 달라집니다)"
        ),
        ("move it to a .js file", "코드를 .js 파일로 옮기세요"),
        ("a character reference the check does not decode ({}) in the {} handler", "{1} 핸들러 안에 검사기가 해석하지 않는 문자 참조 ({0})"),
        ("write the character itself", "문자를 그대로 쓰세요"),
        (
            "<script src=\"{}\"> loads a script from outside the web build, which the check cannot read",
            "<script src=\"{}\">: 웹 빌드 밖의 스크립트를 불러오므로 검사기가 읽을 수 없습니다"
        ),
        ("serve it from the web build", "웹 빌드 안에서 제공하세요"),
        ("<script src=\"{}\"> names no file of the web build ({})", "<script src=\"{}\">: 웹 빌드에 없는 파일입니다 ({})"),
        (
            "the file starts with a UTF-16 byte order mark, so a browser reads it as UTF-16 and the check cannot",
            "파일이 UTF-16 바이트 순서 표시로 시작해 브라우저는 UTF-16으로 읽지만 검사기는 읽을 수 없습니다"
        ),
        ("save it as UTF-8", "UTF-8로 저장하세요"),
        ("'{}' needs bridge {}", "'{}' 명령에는 브리지 {} 이상이 필요합니다"),
        ("app versions supported in {} lack it: {}", "{} 환경이 지원하는 앱 버전 중 이 명령이 없는 버전: {}"),
        (
            "guard the call with if (RatecardBridge.has(\"{}\")) { ... }, or stop listing those versions under apps: in ratecard.yaml",
            "if (RatecardBridge.has(\"{}\")) { ... }로 호출을 감싸거나, ratecard.yaml의 apps:에서 그 버전들을 빼세요"
        ),
        // Other messages.
        ("Nothing has been published to {} yet", "{}에는 아직 게시된 것이 없습니다"),
        (
            "the live release {}'s version.json does not match the seal journaled when it was published (it was changed since)",
            "라이브 릴리스 {}의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않습니다 (그 뒤에 바뀌었습니다)"
        ),
        ("--if-stale rebuilds the commit it names, so nothing was published", "--if-stale은 그 파일이 가리키는 커밋을 다시 빌드하므로 아무것도 게시하지 않았습니다"),
        (
            "publish a reviewed commit with --rev, or roll back to a release that matches its seal",
            "검토한 커밋을 --rev로 게시하거나, 봉인과 맞는 릴리스로 롤백하세요"
        ),
        ("{} has {} hard links (another name is the same file)", "{0}에 하드 링크가 {1}개 있습니다 (다른 이름도 같은 파일입니다)"),
        (
            "ratecard never writes through one (it could overwrite or append to that file)",
            "ratecard는 하드 링크를 거쳐 쓰지 않습니다 (그 다른 파일을 덮어쓰거나 뒤에 덧붙일 수 있기 때문입니다)"
        ),
        (
            "copy it and move the copy over it ({}), or remove the other name, and run again",
            "파일을 복사해 원래 이름으로 옮기거나({0}) 다른 이름을 지운 다음 다시 실행하세요"
        ),
        // The build cache, when its folder or key is not safe to use (CacheFolder).
        ("build cache not used: {} is a symbolic link", "빌드 캐시를 쓰지 않습니다 ({}): 심볼릭 링크입니다"),
        ("build cache not used: {} is not a folder", "빌드 캐시를 쓰지 않습니다 ({}): 폴더가 아닙니다"),
        ("build cache not used: {} is not a regular file", "빌드 캐시를 쓰지 않습니다 ({}): 일반 파일이 아닙니다"),
        ("build cache not used: {} is owned by another user (uid {})", "빌드 캐시를 쓰지 않습니다 ({}): 다른 사용자(uid {})의 소유입니다"),
        ("build cache not used: {} is writable by group or others (mode {})", "빌드 캐시를 쓰지 않습니다 ({}): 그룹이나 다른 사용자도 쓸 수 있습니다 (모드 {})"),
        ("build cache not used: {} has mode {}, not 600", "빌드 캐시를 쓰지 않습니다 ({}): 모드가 600이 아니라 {}입니다"),
        ("build cache not used: {} has {} links, not 1", "빌드 캐시를 쓰지 않습니다 ({}): 링크가 1개가 아니라 {}개입니다"),
        ("build cache not used: {} is not 32 bytes long", "빌드 캐시를 쓰지 않습니다 ({}): 길이가 32바이트가 아닙니다"),
        ("build cache not used: {} cannot be opened: {}", "빌드 캐시를 쓰지 않습니다 ({}): 열 수 없습니다: {}"),
        ("build cache not used: {} cannot be created: {}", "빌드 캐시를 쓰지 않습니다 ({}): 만들 수 없습니다: {}"),
        ("build cache not used: {} cannot be made: {}", "빌드 캐시를 쓰지 않습니다 ({}): 만들 수 없습니다: {}"),
        ("build cache not used: {} cannot be read: {}", "빌드 캐시를 쓰지 않습니다 ({}): 읽을 수 없습니다: {}"),
        ("set RATECARD_CACHE_DIR to a folder only you can write, or remove this one", "RATECARD_CACHE_DIR에 본인만 쓸 수 있는 폴더를 지정하거나 이 경로를 지우세요"),
        // Release history: rollbacks in either direction.
        (
            "'--mark-bad' goes with '--to <id>' (a bare rollback always marks the release it leaves bad)",
            "'--mark-bad'는 '--to <id>'와 함께 씁니다 (--to 없는 롤백은 떠나는 릴리스를 언제나 불량으로 표시합니다)"
        ),
        // ratecard serve (and preview --watch, which shares the port messages).
        ("environment '{}' is in object storage ({})", "'{}' 환경은 오브젝트 스토리지에 있습니다 ({})"),
        ("serve shows a serve root folder: look at a bucket through its CDN or static website", "serve는 서빙 루트 폴더만 보여 줍니다: 버킷은 CDN이나 정적 웹사이트에서 확인하세요"),
        ("nothing is live in {} yet ({})", "'{}' 환경에는 아직 라이브 릴리스가 없습니다 ({})"),
        ("publish to it first", "먼저 게시하세요"),
        ("'--port' must be a port number (0-65535), not '{}'", "'--port'에는 포트 번호(0-65535)를 써야 합니다 (지금 값: '{}')"),
        ("port {} on 127.0.0.1 is in use", "127.0.0.1의 {} 포트는 이미 쓰이고 있습니다"),
        ("choose another with --port", "--port로 다른 포트를 고르세요"),
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
