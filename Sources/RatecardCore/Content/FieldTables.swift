import RatecardSupport

/// The field table of every kind of content file, and the JSON Schema each one is written as.
package enum FieldTables {
    typealias Field = FieldTable.Field

    /// A kind of file: its name (`ratecard schema` writes `<name>.schema.json`), the files it
    /// describes (a glob from the content root) and its table.
    package struct Kind: Sendable {
        package var name: String
        package var files: [String]
        package var about: Message
        package var table: FieldTable
    }

    static let partner = FieldTable([
        Field("id", .identifier, Message("The partner's id; the file's name without .yaml.", ko: "제휴사 id입니다. 파일 이름(.yaml 제외)과 같아야 합니다.")),
        Field("name_ko", .text, Message("The lender's name in Korean, as shown.", ko: "화면에 보이는 제휴사의 한글 이름입니다.")),
        Field("name_en", .text, required: false, Message("The lender's name in English.", ko: "제휴사의 영문 이름입니다.")),
        Field(
            "category", .choice(Partner.Category.allCases.map(\.rawValue)),
            Message("What kind of lender it is: bank, internet_bank, savings_bank, card, capital, insurance or p2p.", ko: "금융사 분류: 은행, 인터넷은행, 저축은행, 카드, 캐피탈, 보험, P2P.")),
        Field(
            "status", .choice(Partner.Status.allCases.map(\.rawValue)),
            Message("active (shown), paused (hidden for now) or terminated (ended).", ko: "active(노출), paused(일시 중지), terminated(제휴 종료).")),
        Field("status_reason", .text, required: false, Message("Why the partner is paused or terminated.", ko: "일시 중지나 제휴 종료의 사유입니다.")),
        Field("display_order", .integer, Message("Where the partner is listed, smallest first.", ko: "목록에서의 순서입니다. 작은 값이 먼저 나옵니다.")),
        Field("logo", .text, Message("The logo file, under assets/.", ko: "assets/ 아래의 로고 파일입니다.")),
        Field(
            "contact",
            .mapping(
                FieldTable([
                    Field("phone", .text, Message("The lender's customer phone number.", ko: "제휴사 고객센터 전화번호입니다.")),
                    Field("website", .text, Message("The lender's website (https).", ko: "제휴사 웹사이트(https)입니다.")),
                ])), Message("How borrowers reach the lender.", ko: "대출자가 제휴사에 연락하는 방법입니다.")),
        Field(
            "registration",
            .mapping(
                FieldTable([
                    Field("brn", .text, Message("The business registration number (사업자등록번호).", ko: "사업자등록번호입니다.")),
                    Field("kftc_bank_code", .text, required: false, Message("The KFTC bank code, for banks.", ko: "금융결제원 은행 코드입니다 (은행만).")),
                ])), Message("The lender's registration numbers.", ko: "제휴사의 등록 번호입니다.")),
        Field("go_live", .day, required: false, Message("The day the partner goes live; before it, it is in no release.", ko: "제휴사가 노출되기 시작하는 날입니다. 그 전에는 어떤 릴리스에도 들어가지 않습니다.")),
    ])

    static let repaymentExample = FieldTable([
        Field("amount_krw", .krw, Message("The amount borrowed in the example.", ko: "예시의 대출 금액입니다.")),
        Field("apr_pct", .percent, Message("The yearly rate of the example.", ko: "예시의 연 금리입니다.")),
        Field("months", .integer, Message("The term of the example, in months.", ko: "예시의 대출 기간(개월)입니다.")),
        Field("method", .choice(Product.Repayment.allCases.map(\.rawValue)), Message("How the example is repaid.", ko: "예시의 상환 방식입니다.")),
        Field("total_krw", .krw, Message("What the borrower pays in all in the example.", ko: "예시에서 대출자가 갚는 총액입니다.")),
    ])

    static let disclosure = FieldTable([
        Field("review_no", .text, Message("The compliance review number of this advertising.", ko: "준법감시인 심의필 번호입니다.")),
        Field("review_valid_from", .day, Message("The first day the review is valid.", ko: "심의필 유효기간의 시작일입니다.")),
        Field("review_valid_until", .day, Message("The last day the review is valid.", ko: "심의필 유효기간의 마지막 날입니다.")),
        Field("rate_type", .choice(Product.RateType.allCases.map(\.rawValue)), Message("fixed, variable or mixed (fixed for a period, then variable).", ko: "고정, 변동, 혼합(일정 기간 고정 후 변동) 금리입니다.")),
        Field("base_rate_ko", .text, required: false, Message("The base rate a variable rate follows (COFIX, ...).", ko: "변동금리의 기준금리입니다 (COFIX 등).")),
        Field("rate_composition_ko", .text, Message("How the rate is made up.", ko: "금리 구성(기준금리 + 가산금리 - 우대금리)입니다.")),
        Field("interest_timing_ko", .text, Message("When interest is charged.", ko: "이자 부과 시기입니다.")),
        Field("incidental_costs_ko", .text, Message("Costs besides interest, or that there are none.", ko: "이자 외 부대비용(인지세 등)입니다.")),
        Field("required_credit_ko", .text, Message("The credit a borrower needs.", ko: "필요한 신용 조건입니다.")),
        Field("repayment_example", .mapping(repaymentExample), Message("A worked example of the total cost.", ko: "총 비용의 예시입니다.")),
    ])

    static let product = FieldTable([
        Field("id", .identifier, Message("The product's id; its folder's name.", ko: "상품 id입니다. 상품 폴더 이름과 같아야 합니다.")),
        Field("partner", .identifier, Message("The partner's id; the folder above.", ko: "제휴사 id입니다. 상위 폴더 이름과 같아야 합니다.")),
        Field("name_ko", .text, Message("The product's name in Korean.", ko: "상품의 한글 이름입니다.")),
        Field("name_en", .text, required: false, Message("The product's name in English.", ko: "상품의 영문 이름입니다.")),
        Field("type", .choice(Product.Kind.allCases.map(\.rawValue)), Message("What kind of loan it is.", ko: "대출 종류입니다.")),
        Field("status", .choice(Product.Status.allCases.map(\.rawValue)), Message("active (offered) or withdrawn.", ko: "active(판매 중) 또는 withdrawn(판매 중단)입니다.")),
        Field("repayment_methods", .list(.choice(Product.Repayment.allCases.map(\.rawValue))), Message("How the loan may be repaid.", ko: "가능한 상환 방식입니다.")),
        Field("terms_months", .list(.integer), Message("The terms offered, in months.", ko: "가능한 대출 기간(개월)입니다.")),
        Field(
            "limit",
            .mapping(
                FieldTable([
                    Field("min_krw", .krw, Message("The smallest amount lent.", ko: "최소 대출 금액입니다.")),
                    Field("max_krw", .krw, Message("The largest amount lent.", ko: "최대 대출 금액입니다.")),
                ])), Message("How much may be borrowed.", ko: "대출 한도입니다.")),
        Field(
            "fees",
            .mapping(
                FieldTable([
                    Field("origination_krw", .krw, Message("The origination fee.", ko: "취급 수수료입니다.")),
                    Field("early_repayment_pct", .percent, Message("The early-repayment fee.", ko: "중도상환수수료율입니다.")),
                    Field("early_repayment_months", .integer, Message("For how many months the early-repayment fee applies.", ko: "중도상환수수료가 부과되는 기간(개월)입니다.")),
                ])), Message("The fees besides interest.", ko: "이자 외 수수료입니다.")),
        Field(
            "late_interest",
            .mapping(
                FieldTable([
                    Field("spread_pp", .percent, Message("What late interest adds to the rate, in percentage points.", ko: "연체 가산금리(%p)입니다.")),
                    Field("max_pct", .percent, Message("The highest late-interest rate.", ko: "최고 연체이자율입니다.")),
                ])), Message("Late interest.", ko: "연체이자입니다.")),
        Field("required_phrases", .list(.text), Message("The ids of phrases.yaml's phrases the page must show.", ko: "상품 페이지에 보여야 하는 phrases.yaml 문구의 id입니다.")),
        Field("description_ko", .text, required: false, Message("The product's description in Korean.", ko: "상품 설명입니다.")),
        Field("policy_program", .text, required: false, Message("The policy programme whose own caps in limits.yaml apply.", ko: "limits.yaml의 별도 상한이 적용되는 정책 상품 이름입니다.")),
        Field("disclosure", .mapping(disclosure), Message("What the product page must disclose besides rates and fees.", ko: "금리와 수수료 외에 상품 페이지가 알려야 하는 내용입니다.")),
    ])

    static let band = FieldTable([
        Field("score_min", .integer, required: false, Message("The lowest credit score of the band (from 2021-01-01).", ko: "구간의 최저 신용점수입니다 (2021-01-01부터).")),
        Field("score_max", .integer, required: false, Message("The highest credit score of the band.", ko: "구간의 최고 신용점수입니다.")),
        Field("grade_min", .integer, required: false, Message("The best credit grade of the band (before 2021-01-01).", ko: "구간의 신용등급 경계입니다 (2021-01-01 이전).")),
        Field("grade_max", .integer, required: false, Message("The other credit grade bound of the band.", ko: "구간의 다른 신용등급 경계입니다.")),
        Field("apr_min_pct", .percent, Message("The lowest yearly rate in the band.", ko: "구간의 최저 연 금리입니다.")),
        Field("apr_max_pct", .percent, Message("The highest yearly rate in the band.", ko: "구간의 최고 연 금리입니다.")),
        Field("limit_max_krw", .krw, Message("The largest amount lent in the band.", ko: "구간의 최대 대출 한도입니다.")),
    ])

    static let rateTable = FieldTable([
        Field("effective_from", .day, Message("The first day the table applies; also the file's name.", ko: "금리표가 적용되는 첫날입니다. 파일 이름과 같아야 합니다.")),
        Field("effective_to", .day, required: false, Message("The last day the table applies.", ko: "금리표가 적용되는 마지막 날입니다.")),
        Field("bureau", .choice(RateTable.Bureau.allCases.map(\.rawValue)), Message("The credit bureau whose scores the bands use.", ko: "구간이 쓰는 신용평가사입니다.")),
        Field("bands", .list(.mapping(band)), Message("The credit bands, each with its rates and limit.", ko: "신용 구간 목록입니다. 구간마다 금리와 한도가 있습니다.")),
    ])

    static let limitEntry = FieldTable([
        Field("id", .choice(LegalLimits.Kind.allCases.map(\.rawValue)), Message("Which cap this is.", ko: "어떤 상한인지입니다.")),
        Field("value", .percent, Message("The cap's value.", ko: "상한 값입니다.")),
        Field("effective_from", .day, Message("The first day the cap applies.", ko: "상한이 적용되는 첫날입니다.")),
        Field("citation", .text, Message("The law or rule that sets it.", ko: "근거 법령입니다.")),
        Field("program", .identifier, required: false, Message("The policy programme the cap is for, if any.", ko: "이 상한이 적용되는 정책 상품입니다.")),
    ])

    static let limits = FieldTable([
        Field("limits", .list(.mapping(limitEntry)), Message("The legal caps, each from its day.", ko: "법정 상한 목록입니다. 항목마다 적용 시작일이 있습니다."))
    ])

    static let phrase = FieldTable([
        Field("id", .identifier, Message("The phrase's id, named by products' required_phrases.", ko: "문구 id입니다. 상품의 required_phrases가 이 id를 씁니다.")),
        Field("ko", .text, Message("The phrase in Korean, as shown.", ko: "화면에 보이는 문구입니다.")),
        Field("pages", .list(.choice(["product", "rates"])), required: false, Message("The pages that show it.", ko: "문구를 보여 주는 페이지입니다.")),
        Field("documents", .list(.text), required: false, Message("The terms documents that must contain it.", ko: "이 문구를 담아야 하는 약관 문서입니다.")),
        Field(
            "partner_categories", .list(.choice(Partner.Category.allCases.map(\.rawValue))), required: false,
            Message("Only for partners of these categories.", ko: "이 분류의 제휴사에만 적용합니다.")),
        Field(
            "not_partner_categories", .list(.choice(Partner.Category.allCases.map(\.rawValue))), required: false,
            Message("Not for partners of these categories.", ko: "이 분류의 제휴사에는 적용하지 않습니다.")),
        Field("basis", .text, Message("The law or rule that requires it.", ko: "근거 법령입니다.")),
    ])

    static let phrases = FieldTable([
        Field("quotation_warnings", .list(.text), required: false, Message("Words that must not appear in quotation marks.", ko: "따옴표 안에 쓰면 안 되는 말입니다.")),
        Field("phrases", .list(.mapping(phrase)), Message("The required phrases.", ko: "필수 문구 목록입니다.")),
    ])

    static let signoff = FieldTable([
        Field("file", .text, Message("The file the sign-off is for.", ko: "승인 대상 파일입니다.")),
        Field("change", .text, Message("The change approved.", ko: "승인된 변경입니다.")),
        Field("approved_by", .text, Message("Who approved it.", ko: "승인한 사람입니다.")),
        Field("approved_on", .day, Message("The day it was approved.", ko: "승인한 날입니다.")),
        Field("reference", .text, Message("The approval's reference (document or ticket).", ko: "승인 근거(문서 또는 요청 번호)입니다.")),
    ])

    static let signoffs = FieldTable([
        Field("signoffs", .list(.mapping(signoff)), Message("The compliance sign-offs.", ko: "준법 승인 기록 목록입니다."))
    ])

    static let termsFrontMatter = FieldTable([
        Field("title", .text, Message("The document's title.", ko: "약관 제목입니다.")),
        Field("version", .text, Message("The version, as the file's name says.", ko: "약관 버전입니다. 파일 이름과 같아야 합니다.")),
        Field("effective_from", .day, Message("The first day this version applies.", ko: "이 버전이 적용되는 첫날입니다.")),
        Field(
            "consent", .choice(TermsVersion.Consent.allCases.map(\.rawValue)),
            Message("Whether the borrower's consent is required, optional or none.", ko: "대출자의 동의가 필수(required), 선택(optional), 불필요(none)인지입니다.")),
        Field("requires_reconsent", .bool, Message("Whether those who agreed to the last version must agree again.", ko: "이전 버전에 동의한 사람이 다시 동의해야 하는지입니다.")),
        Field("summary", .text, Message("What changed, in a sentence.", ko: "바뀐 내용의 요약입니다.")),
        Field("announced_on", .day, required: false, Message("The day the change was announced.", ko: "변경을 공지한 날입니다.")),
        Field("recipients", .choice(["partners"]), required: false, Message("partners: the document names the partners data goes to.", ko: "partners: 정보를 제공받는 제휴사를 나열하는 문서입니다.")),
    ])

    static let objectStorage = FieldTable([
        Field(
            "endpoint", .pattern("^(https://[^/:]+(:[0-9]+)?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]+)?)/?$"),
            Message("The storage's address, https://host[:port].", ko: "스토리지 주소(https://host[:port])입니다.")),
        Field("bucket", .text, Message("The bucket's name.", ko: "버킷 이름입니다.")),
        Field("prefix", .pattern("^([a-z0-9_-][a-z0-9._-]*/)*$"), required: false, Message("The folder in the bucket, ending in /.", ko: "버킷 안의 폴더입니다. /로 끝납니다.")),
        Field("region", .text, required: false, Message("The storage's region.", ko: "스토리지 리전입니다.")),
        Field("lock_ttl_seconds", .integer, required: false, Message("How long the publish lock lives unless renewed.", ko: "갱신하지 않을 때 게시 잠금이 유지되는 시간(초)입니다.")),
        Field("deadline_seconds", .integer, required: false, Message("How long a command may talk to storage.", ko: "명령이 스토리지와 통신할 수 있는 시간(초)입니다.")),
        Field("lock_wait_seconds", .integer, required: false, Message("How long to wait for a held lock.", ko: "잡혀 있는 잠금을 기다리는 시간(초)입니다.")),
    ])

    static let signing = FieldTable([
        Field(
            "keys", .list(.pattern("^ed25519:[A-Za-z0-9+/]{43}=$")),
            Message("The public keys live.json may be signed by (ratecard keys generate).", ko: "live.json에 서명할 수 있는 공개 키 목록입니다 (keys generate 명령이 만듭니다).")),
        Field("expires_after_days", .integer, Message("How many days a signed statement is good for.", ko: "서명한 내용이 유효한 날수입니다.")),
    ])

    static let environment = FieldTable(
        [
            Field("root", .text, required: false, Message("The serve root folder; required unless s3 is given.", ko: "서빙 루트 폴더입니다. s3가 없으면 필수입니다.")),
            Field("s3", .mapping(objectStorage), required: false, Message("A place in object storage instead of a folder.", ko: "폴더 대신 쓰는 오브젝트 스토리지의 위치입니다.")),
            Field("protected", .bool, required: false, Message("Whether a risky change needs --approve.", ko: "위험한 변경에 --approve가 필요한지입니다.")),
            Field(
                "apps", .named(.integer, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$"), required: false,
                Message("The app versions in use, each with its bridge version.", ko: "사용 중인 앱 버전과 각 버전의 브리지 버전입니다.")),
            Field(
                "signing", .mapping(signing), required: false,
                Message("Sign live.json with these keys (what apps load here).", ko: "이 키로 live.json(앱이 불러올 것)에 서명합니다.")),
        ], excludes: ["s3": ["root"]])

    static let service = FieldTable([
        Field("service_name", .text, Message("The service's name, as shown.", ko: "화면에 보이는 서비스 이름입니다.")),
        Field("broker_registration_no", .text, Message("The broker's registration number.", ko: "대출모집인(중개업자) 등록번호입니다.")),
        Field("timezone", .choice(["Asia/Seoul"]), Message("The zone content dates are in: Asia/Seoul.", ko: "콘텐츠 날짜의 시간대입니다: Asia/Seoul.")),
        Field("web", .text, required: false, Message("The web build's folder (default ../site).", ko: "웹 빌드 폴더입니다 (기본값 ../site).")),
        Field(
            "rate_move_warn_pp", .percent, required: false,
            Message("A rate move larger than this, in percentage points, is warned about.", ko: "이보다 큰 금리 변동(%p)은 경고합니다.")),
        Field(
            "environments", .named(.mapping(environment), pattern: "^[a-z0-9][a-z0-9-]{0,62}$"), required: false,
            Message("Where releases are published, by name.", ko: "릴리스를 게시하는 곳입니다 (이름별).")),
    ])

    /// What only `validate` checks, said at the top of every schema.
    static let onlyValidate = Message(
        "A schema checks each file alone: names, types, units, allowed values and required fields. What it cannot say stays with 'ratecard validate': rules across files (ids, partners, phrases, sign-offs), legal caps by date, and the history rules against earlier commits.",
        ko: "스키마는 파일 하나만 검사합니다: 필드 이름, 형식, 단위, 쓸 수 있는 값, 필수 필드. 파일 사이의 규칙(id, 제휴사, 문구, 승인 기록), 날짜별 법정 상한, 이전 커밋과 비교하는 이력 규칙은 'ratecard validate'가 검사합니다.")

    /// Every kind of content file `ratecard schema` writes (site/bridge.yaml, read in RatecardOutput, has none yet).
    package static let kinds: [Kind] = [
        Kind(name: "service", files: ["ratecard.yaml"], about: Message("The service's settings: ratecard.yaml.", ko: "서비스 설정: ratecard.yaml."), table: service),
        Kind(name: "partner", files: ["partners/*.yaml"], about: Message("A partner lender: partners/<id>.yaml.", ko: "제휴사: partners/<id>.yaml."), table: partner),
        Kind(
            name: "product", files: ["products/*/*/product.yaml"], about: Message("A loan product: products/<partner>/<product>/product.yaml.", ko: "대출 상품: products/<제휴사>/<상품>/product.yaml."),
            table: product),
        Kind(
            name: "rate-table", files: ["products/*/*/rates/*.yaml"],
            about: Message("A rate table: products/<partner>/<product>/rates/<YYYY-MM-DD>.yaml.", ko: "금리표: products/<제휴사>/<상품>/rates/<YYYY-MM-DD>.yaml."),
            table: rateTable),
        Kind(name: "limits", files: ["regulatory/limits.yaml"], about: Message("The legal caps: regulatory/limits.yaml.", ko: "법정 상한: regulatory/limits.yaml."), table: limits),
        Kind(name: "phrases", files: ["regulatory/phrases.yaml"], about: Message("The required phrases: regulatory/phrases.yaml.", ko: "필수 문구: regulatory/phrases.yaml."), table: phrases),
        Kind(name: "signoffs", files: ["regulatory/signoffs.yaml"], about: Message("The compliance sign-offs: regulatory/signoffs.yaml.", ko: "준법 승인 기록: regulatory/signoffs.yaml."), table: signoffs),
        Kind(
            name: "terms-front-matter", files: ["terms/*/*.md"], about: Message("The front matter of a terms version: terms/<document>/<version>.md.", ko: "약관 버전의 머리말: terms/<문서>/<버전>.md."),
            table: termsFrontMatter),
    ]

    /// The JSON Schema of `kind`.
    package static func schema(_ kind: Kind) -> JSON {
        kind.table.jsonSchema(title: "ratecard \(kind.name)", about: kind.about, only: onlyValidate)
    }
}
