import RatecardSupport

/// Rules about the shape of each file: fields, types, allowed values, ids and file names.
public enum SchemaRules {
    public static let missingField = Rule(
        "SCH-01", .error, "required fields present", "The app shows every required field; a missing one breaks a screen.",
        ko: "필수 필드가 있음", "앱은 필수 필드를 모두 화면에 보여 줍니다. 하나라도 빠지면 화면이 깨집니다.")
    public static let unknownField = Rule(
        "SCH-02", .error, "no unknown fields", "A misspelt field is silently ignored, so the intended value never ships.",
        ko: "알 수 없는 필드 금지", "철자가 틀린 필드는 조용히 무시되어, 쓰려던 값이 배포되지 않습니다.")
    public static let wrongType = Rule(
        "SCH-03", .error, "values have the right type", "Text where a number belongs (or the reverse) is a typo the app cannot show.",
        ko: "값의 형식이 맞음", "숫자 자리에 텍스트(또는 그 반대)가 있으면 앱이 보여 줄 수 없는 오타입니다.")
    public static let notAllowed = Rule(
        "SCH-04", .error, "values from the allowed set", "Categories, statuses and types drive regulation and display; unknown ones cannot be handled.",
        ko: "허용된 값만 사용", "분류, 상태, 유형에 따라 규제와 화면이 정해집니다. 모르는 값은 처리할 수 없습니다.")
    public static let identifier = Rule(
        "SCH-05", .error, "ids well-formed and equal to file names", "Ids are API keys for the app and analytics; the file name is the id.",
        ko: "id 형식이 맞고 파일 이름과 같음", "id는 앱과 분석에 쓰이는 API 키이며, 파일 이름이 곧 id입니다.")
    public static let date = Rule(
        "SCH-06", .error, "dates are real YYYY-MM-DD dates", "Effective dates decide which rate and which cap apply.",
        ko: "날짜는 실제 있는 YYYY-MM-DD 날짜", "시행일에 따라 어느 금리와 어느 한도가 적용될지 정해집니다.")
    public static let unexpectedFile = Rule(
        "SCH-07", .error, "no unexpected files", "A file in the wrong place or with the wrong extension is never read, so the change silently does not ship.",
        ko: "예상하지 못한 파일 금지", "위치나 확장자가 틀린 파일은 읽히지 않으므로, 그 변경이 조용히 배포되지 않습니다.")
    public static let missingFile = Rule(
        "SCH-08", .error, "required files present", "ratecard.yaml and the regulatory files are needed to check anything else.",
        ko: "필수 파일이 있음", "다른 것을 검사하려면 ratecard.yaml과 규제 파일이 있어야 합니다.")
    public static let empty = Rule(
        "SCH-09", .error, "lists and files not empty", "An empty rate table or limit list cannot price or constrain anything.",
        ko: "목록과 파일이 비어 있지 않음", "빈 금리표나 빈 한도 목록으로는 가격을 정하거나 제한할 수 없습니다.")

    public static let all = [missingField, unknownField, wrongType, notAllowed, identifier, date, unexpectedFile, missingFile, empty]

    /// The pattern every id matches.
    public static func isValidID(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 63 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        return allowed(first) && text.unicodeScalars.allSatisfy { allowed($0) || $0 == "-" }
    }
}

extension SchemaRules {
    /// Ids equal their file and folder names and match the id pattern.
    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        for partner in content.partners {
            checkID(
                partner.id, expected: partner.fileID, what: Message("partner id", ko: "제휴사 id"), file: Message("the file name", ko: "파일 이름"), path: partner.path, diagnostics)
        }
        for product in content.products {
            checkID(
                product.id, expected: product.folderID, what: Message("product id", ko: "상품 id"), file: Message("its folder name", ko: "폴더 이름"), path: product.path, diagnostics)
            if !isValidID(product.folderPartner) {
                diagnostics.report(
                    identifier, product.path, .start,
                    Message("partner folder '\(product.folderPartner)' must match ^[a-z0-9][a-z0-9-]{0,62}$", ko: "제휴사 폴더 '\(product.folderPartner)'은(는) ^[a-z0-9][a-z0-9-]{0,62}$ 형식이어야 합니다"))
            }
        }
        for table in content.rateTables where Day(table.fileDate) == nil {
            diagnostics.report(
                identifier, table.path, .start,
                Message("rate table files are named by their effective date (YYYY-MM-DD.yaml), not '\(table.fileDate)'", ko: "금리표 파일 이름은 '\(table.fileDate)'이(가) 아니라 시행일(YYYY-MM-DD.yaml)이어야 합니다"))
        }
        for terms in content.terms {
            if !isValidID(terms.documentID) {
                diagnostics.report(
                    identifier, terms.path, .start,
                    Message("document id '\(terms.documentID)' must match ^[a-z0-9][a-z0-9-]{0,62}$", ko: "문서 id '\(terms.documentID)'은(는) ^[a-z0-9][a-z0-9-]{0,62}$ 형식이어야 합니다"))
            }
            if terms.semver == nil {
                diagnostics.report(
                    identifier, terms.path, .start,
                    Message(
                        "terms files are named by a semantic version (MAJOR.MINOR.PATCH.md), not '\(terms.fileVersion)'",
                        ko: "약관 파일 이름은 '\(terms.fileVersion)'이(가) 아니라 시맨틱 버전(MAJOR.MINOR.PATCH.md)이어야 합니다"))
            }
        }
    }

    private static func checkID(_ id: Located<String>, expected: String, what: Message, file: Message, path: String, _ diagnostics: Diagnostics) {
        if !isValidID(id.value) {
            diagnostics.report(identifier, path, id.mark, Message("\(what) '\(id.value)' must match ^[a-z0-9][a-z0-9-]{0,62}$", ko: "\(what) '\(id.value)'은(는) ^[a-z0-9][a-z0-9-]{0,62}$ 형식이어야 합니다"))
        } else if id.value != expected {
            diagnostics.report(
                identifier, path, id.mark,
                Message("\(what) '\(id.value)' differs from \(file) '\(expected)'; they must be equal", ko: "\(what) '\(id.value)'이(가) \(file) '\(expected)'와(과) 다릅니다; 둘은 같아야 합니다"))
        }
    }
}
