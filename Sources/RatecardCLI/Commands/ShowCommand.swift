import RatecardKit

/// `ratecard show`: what a borrower was shown at a past moment, from the journal and the
/// release live then (rebuilt from its commit when prune removed it).
enum ShowCommand {
    static let command = Command(
        name: "show",
        abstract: "What the screens showed at a past moment: the release live then, and a product's rates or a terms version.",
        usage: "(--env <name> | --root <dir>) --at \"YYYY-MM-DD HH:MM\" (--product <partner/product> | --terms <id>) [--format <format>]",
        options: ServeRootOptions.options + [
            OptionSpec("--at", value: "TIME", "The moment, in Asia/Seoul: \"YYYY-MM-DD HH:MM\" (or HH:MM:SS)"),
            OptionSpec("--product", value: "KEY", "A product as <partner-id>/<product-id>: its bands, rates, limits, disclosure and repayment example"),
            OptionSpec("--terms", value: "ID", "A terms document id: the version in force"),
            ServeRootOptions.format,
        ],
        discussion:
            "The release is the one the journal says was live at the end of that minute. A release prune removed is rebuilt\nfrom the commit and as-of date journaled for it, and shown only when its bundle id is the one journaled.",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        guard let at = arguments.value("--at") else { throw UsageError("Missing expected option '--at \"YYYY-MM-DD HH:MM\"'", ko: "'--at \"YYYY-MM-DD HH:MM\"' 옵션이 필요합니다") }
        guard let moment = ShowFlow.moment(at) else {
            throw UsageError("'--at' must be \"YYYY-MM-DD HH:MM\" (Asia/Seoul), not '\(at)'", ko: "'--at'에는 \"YYYY-MM-DD HH:MM\"(서울 시각)을 써야 합니다 (지금 값: '\(at)')")
        }
        let subjects: [ShowFlow.Subject] = [arguments.value("--product").map { .product($0) }, arguments.value("--terms").map { .terms($0) }].compactMap { $0 }
        guard subjects.count == 1, let subject = subjects.first else {
            throw UsageError("Name exactly one of '--product' or '--terms'", ko: "'--product'와 '--terms' 중 정확히 하나를 주세요")
        }
        let destination = try ServeRootOptions.resolve(arguments, invocation)
        let (root, name) = (destination.store, destination.name)
        let location = try? ContentLocation.find(from: invocation.directory)
        let shown = try ShowFlow(store: root, location: location, caches: invocation.caches).show(subject, at: moment, name: name)
        if json {
            invocation.console.out(
                JSON.object([
                    "environment": .string(name), "at": .string(at), "release": .string(shown.release), "activated_by": .string(shown.activatedBy),
                    "activated_at": .string(shown.activatedAt), "seal": shown.seal.map(JSON.string) ?? .null, "commit": shown.commit.map { .string($0.hex) } ?? .null,
                    "as_of": .string(shown.asOf), "bundle_id": shown.bundleID.map(JSON.string) ?? .null, "rebuilt": .bool(shown.rebuilt != nil),
                    "rebuilt_how": shown.rebuilt.map { .string($0.english) } ?? .null,
                    "bridge_lines": .object(Dictionary(uniqueKeysWithValues: shown.bridgeLines.map { ("\($0.key)", JSON.string($0.value)) })),
                    subject.key: shown.document,
                ]).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let messages = invocation.messages
        var text = messages(
            Message(
                "\(name) at \(at) (Asia/Seoul): release \(shown.release), live since \(Timestamp.seoul(shown.activatedAt)) (\(shown.activatedBy)), as of \(shown.asOf)\n",
                ko: "\(name), \(at) (서울 시각): 릴리스 \(shown.release), \(Timestamp.seoul(shown.activatedAt))부터 라이브 (\(shown.activatedBy)), 기준일 \(shown.asOf)\n"))
        text += messages(Message("seal: \(shown.seal ?? "none journaled")\n", ko: "봉인: \(shown.seal ?? "저널에 없음")\n"))
        if let rebuilt = shown.rebuilt { text += messages(rebuilt) + "\n" }
        if !shown.bridgeLines.isEmpty {
            let lines = shown.bridgeLines.sorted { $0.key < $1.key }.map { "\($0.key) -> \($0.value)" }.joined(separator: ", ")
            text += messages(Message("bridge lines (app bridge version -> release it loaded): \(lines)\n", ko: "브리지 라인 (앱 브리지 버전 -> 불러온 릴리스): \(lines)\n"))
        }
        text += describe(shown.document, subject, messages)
        invocation.console.out(text)
        return RatecardCLI.ExitCode.ok
    }

    /// A product's bands, rates, limits, disclosure and repayment example, or a terms document's
    /// version in force, as lines.
    static func describe(_ document: JSON, _ subject: ShowFlow.Subject, _ messages: Messages) -> String {
        func string(_ value: JSON?) -> String {
            switch value {
            case .string(let text)?: return text
            case .int(let number)?: return "\(number)"
            case .number(let number)?: return number
            case .bool(let flag)?: return "\(flag)"
            default: return "-"
            }
        }
        var text = ""
        switch subject {
        case .product(let key):
            text += "\(string(document["name_ko"])) (\(key)): \(string(document["status"]))\n"
            let limit = document["limit"]
            text += messages(Message("limit: \(string(limit?["min_krw"]))-\(string(limit?["max_krw"])) KRW\n", ko: "한도: \(string(limit?["min_krw"]))-\(string(limit?["max_krw"]))원\n"))
            if let table = document["current"], table != .null {
                text += messages(
                    Message(
                        "rate table from \(string(table["effective_from"])) (\(string(table["bureau"]))):\n", ko: "\(string(table["effective_from"]))부터의 금리표 (\(string(table["bureau"]))):\n"))
                for band in table["bands"]?.arrayValue ?? [] {
                    guard case .object(let fields) = band else { continue }
                    // The band's bounds (score_min/score_max or grade_min/grade_max), lower key first.
                    let bounds = fields.keys.filter { !$0.hasPrefix("apr") && !$0.hasPrefix("limit") }.sorted { $0.hasSuffix("_min") && !$1.hasSuffix("_min") }
                    let range = bounds.map { "\($0) \(string(fields[$0]))" }.joined(separator: ", ")
                    text += "  \(range): \(string(band["apr_min_pct"]))% ~ \(string(band["apr_max_pct"]))%, \(string(band["limit_max_krw"]))\n"
                }
            } else {
                text += messages(Message("no rate table in force\n", ko: "시행 중인 금리표 없음\n"))
            }
            let disclosure = document["disclosure"]
            for field in [
                "review_no", "review_valid_from", "review_valid_until", "rate_type", "base_rate_ko", "rate_composition_ko", "interest_timing_ko", "incidental_costs_ko", "required_credit_ko",
            ] {
                text += "\(field): \(string(disclosure?[field]))\n"
            }
            let example = disclosure?["repayment_example"]
            text += messages(
                Message(
                    "repayment example: \(string(example?["amount_krw"])) KRW at \(string(example?["apr_pct"]))% for \(string(example?["months"])) months (\(string(example?["method"]))): \(string(example?["total_krw"])) KRW in total\n",
                    ko:
                        "상환 예시: \(string(example?["amount_krw"]))원, 연 \(string(example?["apr_pct"]))%, \(string(example?["months"]))개월 (\(string(example?["method"]))): 총 \(string(example?["total_krw"]))원\n"
                ))
        case .terms(let id):
            let current = string(document["current"])
            let version = document["versions"]?.arrayValue?.first { $0["version"]?.stringValue == current }
            text += messages(
                Message(
                    "\(string(document["title"])) (\(id)): version \(current) in force, from \(string(version?["effective_from"])), page \(string(version?["url"])) (sha256 \(string(version?["sha256"])))\n",
                    ko: "\(string(document["title"])) (\(id)): 시행 중인 버전 \(current), \(string(version?["effective_from"]))부터, 페이지 \(string(version?["url"])) (sha256 \(string(version?["sha256"])))\n"))
        }
        return text
    }
}

extension ShowFlow.Subject {
    /// The JSON key `show --format json` puts the document under.
    var key: String {
        switch self {
        case .product: "product"
        case .terms: "terms"
        }
    }
}
