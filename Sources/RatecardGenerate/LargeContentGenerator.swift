import RatecardCore
import RatecardSupport

/// Generates a large, valid content repository for benchmarks (`ratecard generate`, `make bench`).
///
/// Deterministic: the same parameters and seed give the same files, the same commits and the same
/// commit ids (a SplitMix64 stream, fixed dates and a fixed author with fixed commit times). The
/// content passes every rule with no warnings for any as-of date from 2026-01-01 on: every rate
/// table is dated 2020-2025 and the newest one per product is open-ended, 100-point score bands
/// run contiguously from 1000 down to a floor (one grade per band from grade 1 for a table dated
/// before 2021, when lenders priced by credit grade), pricing is monotone and below the 20% cap, limits
/// are multiples of 10,000 won within the product limit, every product lists every product-page
/// phrase, and every version of `broker-notice` carries the broker phrases verbatim.
///
/// After the first commit, `history` further commits each move one rate table by 0.05-0.25pp
/// (well under the 3pp warning threshold).
public struct LargeContentGenerator {
    public struct Parameters: Sendable, Equatable {
        public var partners: Int
        public var products: Int
        public var rateTables: Int
        public var termsVersions: Int
        public var history: Int
        public var seed: UInt64
        /// Target size of one terms body in bytes (Korean text is 3 bytes a syllable).
        public var termsBodyBytes: Int

        /// The issue's full size: 300 partners, 3,000 products, 6,000 rate tables, 2,000 terms
        /// versions (about 16 MB of Markdown) and 200 history commits.
        public init(
            partners: Int = 300, products: Int = 3000, rateTables: Int = 6000, termsVersions: Int = 2000,
            history: Int = 200, seed: UInt64 = 1, termsBodyBytes: Int = 7400
        ) {
            self.partners = partners
            self.products = products
            self.rateTables = rateTables
            self.termsVersions = termsVersions
            self.history = history
            self.seed = seed
            self.termsBodyBytes = termsBodyBytes
        }
    }

    public struct Summary: Sendable, Equatable {
        /// Content files written (YAML, Markdown and logos).
        public var files: Int
        /// Bytes of all files written by the first commit.
        public var bytes: Int
        /// Bytes of the terms Markdown files.
        public var markdownBytes: Int
        /// The first commit (the whole tree), then one commit per history step, oldest first.
        public var commits: [ObjectID]
    }

    public var parameters: Parameters

    public init(_ parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// The author of every generated commit; commit `n` is made at `baseTime + n` hours.
    public static let author = Signature(name: "ratecard generator", email: "generator@ratecard.invalid", time: baseTime, offsetMinutes: 540)
    static let baseTime: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z

    /// Writes the content into `directory` (created; it must be missing or empty), makes it a git
    /// repository and commits it, then adds the history commits.
    @discardableResult
    public func generate(into directory: String) throws -> Summary {
        let p = parameters
        guard p.partners >= 1, p.products >= 0, p.rateTables >= 0, p.termsVersions >= 0, p.history >= 0 else {
            throw OperationalError("generator counts must not be negative, and at least one partner is needed", ko: "생성할 개수는 음수일 수 없고, 제휴사가 하나 이상 필요합니다")
        }
        guard p.history == 0 || (p.rateTables > 0 && p.products > 0) else {
            throw OperationalError("history commits change rate tables; generate at least one product and one rate table", ko: "이력 커밋은 금리표를 바꿉니다; 상품과 금리표를 하나 이상 생성하세요")
        }
        if FileSystem.exists(directory), try !FileSystem.listDirectory(directory).isEmpty {
            throw ConflictError("\(directory) already exists and is not empty; choose a new folder", ko: "\(directory)이(가) 이미 있고 비어 있지 않습니다; 새 폴더를 고르세요")
        }
        var random = SplitMix64(seed: p.seed)
        var writer = TreeWriter(root: directory)

        try writer.write("ratecard.yaml", Self.config)
        try writer.write("regulatory/limits.yaml", Self.limits)
        try writer.write("regulatory/phrases.yaml", Self.phrases(withDocuments: p.termsVersions > 0))

        let partners = (0..<p.partners).map { makePartner($0, &random) }
        for partner in partners {
            try writer.write("partners/\(partner.id).yaml", partner.yaml)
            try writer.write("assets/partners/\(partner.id).svg", partner.logo)
        }

        var tables: [TableSpec] = []
        for index in 0..<p.products {
            let partner = partners[index % partners.count]
            let count = p.rateTables / p.products + (index < p.rateTables % p.products ? 1 : 0)
            var product = makeProduct(index, partner: partner, &random)
            if count == 0 || partner.status == "terminated" { product.status = "withdrawn" }
            let productTables = makeTables(count, product: product, &random)
            product.lastTable = productTables.last
            try writer.write("products/\(product.key)/product.yaml", product.yaml)
            for table in productTables {
                try writer.write(table.path, table.yaml)
                tables.append(table)
            }
        }

        let documents = p.termsVersions == 0 ? 0 : (p.termsVersions + 4) / 5
        var markdownBytes = 0
        for document in 0..<documents {
            let count = p.termsVersions / documents + (document < p.termsVersions % documents ? 1 : 0)
            for version in makeTerms(document, versions: count, &random) {
                try writer.write(version.path, version.text)
                markdownBytes += version.text.utf8.count
            }
        }

        let repository = try Repository.create(at: directory)
        var commits: [ObjectID] = []
        commits.append(
            try repository.commitAll(
                message: "Generated content: \(p.partners) partners, \(p.products) products, \(tables.count) rate tables, \(p.termsVersions) terms versions (seed \(p.seed))",
                author: Self.signature(commit: 0)))

        // A history commit corrects a product's newest table: a superseded or ended one is a
        // record (HIS-08) that is never edited.
        var newest: [String: Int] = [:]
        for (index, table) in tables.enumerated() where table.to == nil {
            if let known = newest[table.productKey], tables[known].from >= table.from { continue }
            newest[table.productKey] = index
        }
        let editable = newest.values.sorted()
        for step in 1...max(1, p.history) where p.history > 0 && !editable.isEmpty {
            let index = editable[random.int(0...(editable.count - 1))]
            let move = tables[index].move(&random)
            try writer.write(tables[index].path, tables[index].yaml)
            let sign = move > 0 ? "+" : "-"
            commits.append(
                try repository.commitAll(
                    paths: [tables[index].path],
                    message: "Rates: \(tables[index].productKey) from \(tables[index].from) \(sign)\(Percent(thousandths: abs(move)))pp",
                    author: Self.signature(commit: step)))
        }
        return Summary(files: writer.files, bytes: writer.bytes, markdownBytes: markdownBytes, commits: commits)
    }

    static func signature(commit: Int) -> Signature {
        Signature(name: author.name, email: author.email, time: baseTime + Int64(commit) * 3600, offsetMinutes: author.offsetMinutes)
    }

    // MARK: - Partners

    struct PartnerSpec {
        var id: String
        var nameKo: String
        var category: String
        var status: String
        var yaml: String
        var logo: String
    }

    static let prefixes: [(ko: String, en: String)] = [
        ("한빛", "hanbit"), ("푸른", "pureun"), ("새솔", "saesol"), ("다온", "daon"), ("가람", "garam"),
        ("누리", "nuri"), ("미래", "mirae"), ("하나로", "hanaro"), ("두레", "dure"), ("온새", "onsae"),
        ("이음", "ieum"), ("바른", "bareun"), ("드림", "dream"), ("한울", "hanul"), ("소담", "sodam"),
        ("여울", "yeoul"), ("라온", "raon"), ("도담", "dodam"), ("별빛", "byeolbit"), ("해솔", "haesol"),
    ]

    /// Category, Korean suffix, id slug, share out of 100.
    static let categories: [(category: String, ko: String, slug: String, share: Int)] = [
        ("bank", "은행", "bank", 10), ("internet_bank", "뱅크", "digital", 3), ("savings_bank", "저축은행", "savings", 35),
        ("card", "카드", "card", 12), ("capital", "캐피탈", "capital", 25), ("insurance", "생명", "life", 8),
        ("p2p", "펀딩", "funding", 7),
    ]

    func makePartner(_ index: Int, _ random: inout SplitMix64) -> PartnerSpec {
        let prefix = random.pick(Self.prefixes)
        var roll = random.int(0...99)
        var category = Self.categories[0]
        for candidate in Self.categories {
            if roll < candidate.share {
                category = candidate
                break
            }
            roll -= candidate.share
        }
        let number = index + 1
        let id = "\(prefix.en)-\(category.slug)-\(number)"
        let name = "\(prefix.ko)\(category.ko) \(number)"
        var status = "active"
        var reason: String?
        if index % 67 == 4 {
            status = "terminated"
            reason = "제휴 계약이 종료되었습니다."
        } else if index % 41 == 3 {
            status = "paused"
            reason = "전산 시스템 점검으로 신규 신청을 잠시 중단했습니다."
        }
        var yaml = """
            id: \(id)
            name_ko: \(name)
            name_en: \(prefix.en.prefix(1).uppercased() + prefix.en.dropFirst()) \(category.slug.prefix(1).uppercased() + category.slug.dropFirst()) \(number)
            category: \(category.category)
            status: \(status)

            """
        if let reason { yaml += "status_reason: \"\(reason)\"\n" }
        yaml += """
            display_order: \(number * 10)
            logo: assets/partners/\(id).svg
            contact:
              phone: "15\(random.int(44...99))-\(random.int(1000...9999))"
              website: "https://www.\(id).example.kr"
            registration:
              brn: "\(Self.businessNumber(&random))"

            """
        if category.category == "bank" || category.category == "internet_bank" {
            yaml += "  kftc_bank_code: \"0\(random.int(10...99))\"\n"
        }
        let colors = ["#1D4ED8", "#0F766E", "#B45309", "#9D174D", "#4338CA", "#15803D", "#B91C1C"]
        let logo = """
            <svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48" role="img" aria-label="\(name) 로고">
              <rect width="48" height="48" rx="10" fill="\(random.pick(colors))"/>
              <text x="24" y="24" fill="#FFFFFF" font-size="16" text-anchor="middle" dominant-baseline="central">\(prefix.ko.prefix(1))</text>
            </svg>

            """
        return PartnerSpec(id: id, nameKo: name, category: category.category, status: status, yaml: yaml, logo: logo)
    }

    /// A 사업자등록번호 that passes the checksum (`ReferenceRules.isValidBusinessNumber`).
    static func businessNumber(_ random: inout SplitMix64) -> String {
        var digits = [random.int(1...9), random.int(0...9), random.int(0...9), 8, random.pick([1, 6, 7])]
        for _ in 0..<4 { digits.append(random.int(0...9)) }
        let weights = [1, 3, 7, 1, 3, 7, 1, 3, 5]
        var sum = zip(digits, weights).reduce(0) { $0 + $1.0 * $1.1 }
        sum += (digits[8] * 5) / 10
        digits.append((10 - sum % 10) % 10)
        let text = digits.map(String.init).joined()
        return "\(text.prefix(3))-\(text.dropFirst(3).prefix(2))-\(text.suffix(5))"
    }

    // MARK: - Products and rate tables

    struct ProductSpec {
        var key: String
        var nameKo: String
        var kind: String
        var status: String
        var partnerCategory: String
        var limitMin: Int
        var limitMax: Int
        var repayment: [String]
        var termsMonths: [Int]
        var earlyFee: Int
        var earlyMonths: Int
        var origination: Int
        /// The newest rate table: the disclosure's example rate and required credit come from it.
        var lastTable: TableSpec?

        /// The `disclosure:` section: a review valid for any date the content is validated on,
        /// and a repayment example at the newest table's highest rate (never below a rate in
        /// force, however history commits move it, and within the cap: rates stay under 19.9%).
        var disclosure: String {
            let apr = Percent(thousandths: lastTable?.bands.map(\.aprMax).max() ?? 10_000)
            let method = Product.Repayment(rawValue: repayment[0]) ?? .equalInstallment
            let months = termsMonths.contains(12) ? 12 : termsMonths[0]
            let amount = min(max(limitMin, 10_000_000), limitMax)
            let total = ProductDisclosureRules.total(amount: amount, apr: apr, months: months, method: method)
            let floor = lastTable?.bands.map(\.min).min() ?? 0
            let worstGrade = lastTable?.bands.map(\.max).max() ?? 10
            let credit =
                lastTable?.onGrades == true
                ? "\(lastTable?.bureau ?? "KCB") 신용등급 \(worstGrade)등급 이내"
                : floor > 0 ? "\(lastTable?.bureau ?? "KCB") 개인신용평점 \(floor)점 이상" : "개인신용평점 전 구간 (금융회사 심사 기준 적용)"
            let timing = method == .revolving ? "매월 결제일에 사용한 금액과 기간만큼 후취합니다" : "매월 약정 납입일에 후취합니다 (대출 실행일부터 계산)"
            let number = key.unicodeScalars.reduce(0) { ($0 * 31 + Int($1.value)) % 9000 } + 1000
            return """
                disclosure:
                  review_no: "준법감시인 심의필 제2025-\(number)호"
                  review_valid_from: 2025-01-01
                  review_valid_until: 2099-12-31
                  rate_type: fixed
                  rate_composition_ko: "대출 실행 시점의 기준금리 + 가산금리 - 우대금리로 정하며, 만기까지 바뀌지 않습니다"
                  interest_timing_ko: "\(timing)"
                  incidental_costs_ko: "인지세는 대출금액 5천만원 초과 시 고객과 금융회사가 절반씩 부담하며, 그 밖의 비용은 없습니다"
                  required_credit_ko: "\(credit)"
                  repayment_example:
                    amount_krw: \(amount)
                    apr_pct: \(apr)
                    months: \(months)
                    method: \(method.rawValue)
                    total_krw: \(total)

                """
        }

        var yaml: String {
            var phrases = ["warn-excess-debt", "warn-score-drop", "warn-acceleration", "right-explanation", "notice-read-terms", "info-rates-annual"]
            phrases.append(partnerCategory == "p2p" ? "notice-p2p-no-withdrawal" : "right-withdrawal")
            phrases.append("info-dispute")
            let parts = key.split(separator: "/")
            return """
                id: \(parts[1])
                partner: \(parts[0])
                name_ko: \(nameKo)
                type: \(kind)
                status: \(status)
                repayment_methods: [\(repayment.joined(separator: ", "))]
                terms_months: [\(termsMonths.map(String.init).joined(separator: ", "))]
                limit:
                  min_krw: \(limitMin)
                  max_krw: \(limitMax)
                fees:
                  origination_krw: \(origination)
                  early_repayment_pct: \(Percent(thousandths: earlyFee))
                  early_repayment_months: \(earlyMonths)
                late_interest:
                  spread_pp: 3.0
                  max_pct: 20.0
                required_phrases: [\(phrases.joined(separator: ", "))]
                description_ko: "\(nameKo) 상품입니다. 금리와 한도는 신용점수 구간에 따라 달라집니다."\(kind == "policy" ? "\npolicy_program: saitdol2" : "")

                """ + disclosure
        }
    }

    static let kinds: [(kind: String, slug: String, ko: String)] = [
        ("credit", "credit", "직장인 신용대출"), ("credit_line", "credit-line", "마이너스통장"),
        ("card_loan", "card-loan", "장기카드대출"), ("auto_secured", "auto", "자동차담보대출"),
        ("policy", "policy", "햇살론"), ("refinance", "refinance", "대환대출"),
    ]

    func makeProduct(_ index: Int, partner: PartnerSpec, _ random: inout SplitMix64) -> ProductSpec {
        let kind = random.pick(Self.kinds)
        let number = index / parameters.partners + 1
        let limitMax = random.int(10...300) * 1_000_000
        let limitMin = min(random.int(1...10) * 1_000_000, limitMax)
        var repayment = ["equal_installment", "equal_principal", "bullet", "revolving"].filter { _ in random.chance(1, in: 2) }
        if repayment.isEmpty { repayment = ["equal_installment"] }
        var months = [6, 12, 24, 36, 48, 60, 84, 120].filter { _ in random.chance(1, in: 2) }
        if months.isEmpty { months = [12] }
        let fee = random.chance(1, in: 3) ? 0 : random.int(1...15) * 100
        // Fees count as interest (CAP-06..09): an early-repayment fee within the 1% exemption,
        // no fee on terms under 12 months, a fee period within the longest term, and no
        // origination fee (rates run up to 19.9%, so most fees would push the all-in rate past the cap). The random
        // draws stay as they were, so a seed gives the same content otherwise.
        let status = random.chance(1, in: 25) ? "withdrawn" : "active"
        let earlyFee = min(fee, 1000)
        if earlyFee > 0 {
            months = months.filter { $0 >= 12 }
            if months.isEmpty { months = [12] }
        }
        let earlyMonths = fee == 0 ? 0 : min(random.pick([12, 24, 36]), months.max() ?? 12)
        _ = random.chance(1, in: 4) ? random.int(1...20) * 10_000 : 0
        return ProductSpec(
            key: "\(partner.id)/\(kind.slug)-\(number)", nameKo: "\(partner.nameKo) \(kind.ko) \(number)", kind: kind.kind,
            status: status, partnerCategory: partner.category,
            limitMin: limitMin, limitMax: limitMax, repayment: repayment, termsMonths: months,
            earlyFee: earlyFee, earlyMonths: earlyMonths, origination: 0)
    }

    struct TableSpec {
        /// `min`-`max` are scores, or grades for a table dated before 2021 (`onGrades`).
        struct Band {
            var min: Int
            var max: Int
            var aprMin: Int
            var aprMax: Int
            var limit: Int
        }

        var productKey: String
        var from: Day
        var to: Day?
        var bureau: String
        var bands: [Band]

        var path: String { "products/\(productKey)/rates/\(from).yaml" }
        var onGrades: Bool { from < BandRules.scoresFrom }

        var yaml: String {
            var text = "effective_from: \(from)\n"
            if let to { text += "effective_to: \(to)\n" }
            text += "bureau: \(bureau)\nbands:\n"
            for band in bands {
                text += """
                      - \(onGrades ? "grade_min" : "score_min"): \(band.min)
                        \(onGrades ? "grade_max" : "score_max"): \(band.max)
                        apr_min_pct: \(Percent(thousandths: band.aprMin))
                        apr_max_pct: \(Percent(thousandths: band.aprMax))
                        limit_max_krw: \(band.limit)

                    """
            }
            return text
        }

        static let lowest = 1_000
        static let highest = 19_900

        /// Moves every rate of the table by the same 0.05-0.25pp (so bands stay monotone and
        /// within the cap); returns the move in thousandths.
        mutating func move(_ random: inout SplitMix64) -> Int {
            let size = random.int(1...5) * 50
            let low = bands.map(\.aprMin).min() ?? Self.lowest
            let high = bands.map(\.aprMax).max() ?? Self.highest
            var move = random.chance(1, in: 2) ? size : -size
            if high + move > Self.highest || low + move < Self.lowest { move = -move }
            for index in bands.indices {
                bands[index].aprMin += move
                bands[index].aprMax += move
            }
            return move
        }
    }

    func makeTables(_ count: Int, product: ProductSpec, _ random: inout SplitMix64) -> [TableSpec] {
        guard count > 0 else { return [] }
        let last = Day(year: 2025, month: 12, day: 31).ordinal
        var day = Day(year: 2020, month: 1, day: 1).ordinal + random.int(0...364)
        let gap = max(30, (last - day) / count)
        var tables: [TableSpec] = []
        for index in 0..<count {
            if index > 0 { day += random.int(30...gap) }
            let bandCount = random.int(3...9)
            let best = random.int(250...900) * 10
            let spread = random.int(50...300) * 10
            let room = TableSpec.highest - 500 - best - spread
            let maxStep = max(30, min(150, room / max(1, bandCount - 1) / 10))
            var bands: [TableSpec.Band] = []
            var aprMin = best
            var limit = product.limitMax
            for band in 0..<bandCount {
                if band > 0 {
                    aprMin += random.int(30...maxStep) * 10
                    limit = max(10_000, (limit * (100 - random.int(5...25)) / 100) / 10_000 * 10_000)
                }
                let onGrades = Day(ordinal: day) < BandRules.scoresFrom
                bands.append(
                    TableSpec.Band(
                        min: onGrades ? band + 1 : 901 - band * 100, max: onGrades ? band + 1 : 1000 - band * 100,
                        aprMin: aprMin, aprMax: aprMin + spread, limit: limit))
            }
            tables.append(TableSpec(productKey: product.key, from: Day(ordinal: day), to: nil, bureau: random.chance(1, in: 2) ? "KCB" : "NICE", bands: bands))
        }
        for index in tables.indices.dropLast() where random.chance(1, in: 2) {
            tables[index].to = tables[index + 1].from.adding(days: -1)
        }
        return tables
    }

    // MARK: - Terms

    struct TermsFile {
        var path: String
        var text: String
    }

    static let documentKinds: [(slug: String, title: String, consent: String)] = [
        ("service-terms", "서비스 이용약관", "required"), ("privacy-policy", "개인정보 처리방침", "none"),
        ("personal-data-consent", "개인(신용)정보 수집·이용 동의", "required"), ("marketing-consent", "마케팅 정보 수신 동의", "optional"),
        ("third-party-consent", "개인(신용)정보 제3자 제공 동의", "required"), ("credit-inquiry-consent", "신용정보 조회 동의", "required"),
        ("explanation-notice", "설명의무 안내", "none"), ("e-finance-terms", "전자금융거래 이용약관", "required"),
        ("location-terms", "위치기반서비스 이용약관", "optional"), ("identity-terms", "본인확인서비스 이용약관", "required"),
    ]

    /// The phrases every broker-notice version must contain, with ratecard.yaml's values filled in.
    static let brokerPhrases = [
        "(주)레이트카드는 제휴 금융회사와 대출모집 위탁계약을 체결한 금융상품판매대리·중개업자(대출모집인 등록번호 제2021-0123호)이며, 대출계약을 체결할 권한이 없습니다. 대출 심사 및 계약은 각 금융회사가 직접 합니다.",
        "고객님이 제공한 신용정보 및 개인정보는 해당 금융회사가 보유·관리합니다.",
        "대출모집인은 고객에게 어떠한 명목으로도 수수료를 요구하거나 받을 수 없습니다.",
    ]

    func makeTerms(_ document: Int, versions count: Int, _ random: inout SplitMix64) -> [TermsFile] {
        let id: String
        let title: String
        let consent: String
        if document == 0 {
            (id, title, consent) = ("broker-notice", "대출모집인 고지", "none")
        } else {
            let kind = Self.documentKinds[(document - 1) % Self.documentKinds.count]
            let number = (document - 1) / Self.documentKinds.count + 1
            (id, title, consent) = ("\(kind.slug)-\(number)", "\(kind.title) \(number)", kind.consent)
        }
        var version = [1, 0, 0]
        var day = Day(year: 2019, month: 1, day: 1).ordinal + random.int(0...700)
        var files: [TermsFile] = []
        for index in 0..<count {
            var major = false
            if index > 0 {
                day += random.int(60...250)
                switch random.int(0...9) {
                case 0...1:
                    version = [version[0] + 1, 0, 0]
                    major = true
                case 2...6: version = [version[0], version[1] + 1, 0]
                default: version = [version[0], version[1], version[2] + 1]
                }
            }
            let semver = version.map(String.init).joined(separator: ".")
            let reconsent = major && consent != "none"
            let summary = index == 0 ? "최초 게시했습니다." : "\(random.pick(Self.articleTitles)) 조항의 문구를 명확히 했습니다."
            var text = """
                ---
                title: "\(title)"
                version: \(semver)
                effective_from: \(Day(ordinal: day))
                consent: \(consent)
                requires_reconsent: \(reconsent)
                summary: "\(summary)"
                ---
                # \(title)


                """
            text += body(document: id, required: document == 0 ? Self.brokerPhrases : [], &random)
            files.append(TermsFile(path: "terms/\(id)/\(semver).md", text: text))
        }
        return files
    }

    static let articleTitles = [
        "목적", "정의", "약관의 게시와 변경", "서비스의 제공", "이용계약의 성립", "개인정보의 보호", "회사의 의무", "이용자의 의무",
        "서비스의 중단", "책임의 제한", "분쟁의 해결", "관할법원", "수수료", "통지", "손해배상", "정보의 보관", "제휴 금융회사",
        "대출 조회", "계약의 해지", "청약의 철회",
    ]

    static let nouns = [
        "회사", "고객", "이용자", "서비스", "대출", "금리", "약관", "계약", "정보", "개인정보", "신용정보", "금융회사", "상환",
        "이자", "한도", "신청", "심사", "결과", "변경", "통지", "해지", "책임", "손해", "배상", "분쟁", "조정", "법령", "규정",
        "적용", "기간", "전자문서", "확인", "안내", "절차", "보관", "파기", "목적", "범위", "항목", "조회", "평점", "수수료",
        "연체", "중도상환", "위탁", "수탁자", "처리", "보호", "권리", "의무", "제한", "요청", "방법", "시행", "본인", "동의",
        "화면", "기록", "내용", "사항", "고지", "금액", "기한", "영업일", "고객센터", "민원", "담당자", "증빙", "서류",
    ]
    static let particles = ["은", "는", "이", "가", "을", "를", "에", "에서", "으로", "와", "과", "의", "에게", " 및", ""]
    static let endings = [
        "합니다.", "할 수 있습니다.", "하여야 합니다.", "됩니다.", "하지 않습니다.", "한 것으로 봅니다.", "을 따릅니다.",
        "에 따라 처리합니다.", "을 안내합니다.", "을 보관합니다.",
    ]
    static let links = [
        ("금융감독원", "https://www.fss.or.kr"), ("국가법령정보센터", "https://www.law.go.kr"),
        ("개인정보보호위원회", "https://www.pipc.go.kr"), ("금융위원회", "https://www.fsc.go.kr"),
        ("서민금융진흥원", "https://www.kinfa.or.kr"), ("고객센터 안내", "https://www.example.com/help"),
    ]

    func sentence(_ random: inout SplitMix64) -> String {
        var words: [String] = []
        for _ in 0..<random.int(6...14) {
            words.append(random.pick(Self.nouns) + random.pick(Self.particles))
        }
        if random.chance(1, in: 5) {
            let at = random.int(0...(words.count - 1))
            words[at] = "**\(words[at])**"
        }
        if random.chance(1, in: 8) {
            let link = random.pick(Self.links)
            words.append("[\(link.0)](\(link.1))")
        }
        return words.joined(separator: " ") + " " + random.pick(Self.nouns) + random.pick(Self.endings)
    }

    func paragraph(_ random: inout SplitMix64) -> String {
        (0..<random.int(2...5)).map { _ in sentence(&random) }.joined(separator: " ")
    }

    /// About `termsBodyBytes` of articles: headings, paragraphs, ordered and unordered lists.
    func body(document: String, required: [String], _ random: inout SplitMix64) -> String {
        var text = paragraph(&random) + "\n\n"
        var article = 0
        var pending = required
        while text.utf8.count < parameters.termsBodyBytes || !pending.isEmpty {
            article += 1
            text += "## 제\(article)조(\(Self.articleTitles[(article - 1) % Self.articleTitles.count]))\n\n"
            if let phrase = pending.first {
                text += phrase + "\n\n"
                pending.removeFirst()
            }
            text += paragraph(&random) + "\n\n"
            switch random.int(0...2) {
            case 0:
                for item in 1...random.int(2...5) { text += "\(item). \(sentence(&random))\n" }
                text += "\n"
            case 1:
                for _ in 0..<random.int(2...5) { text += "- \(sentence(&random))\n" }
                text += "\n"
            default:
                text += paragraph(&random) + "\n\n"
            }
        }
        text += "자세한 내용은 [\(document) 안내](https://www.example.com/terms/\(document))를 참고하시기 바랍니다.\n"
        return text
    }

    // MARK: - Fixed files

    static let config = """
        service_name: 레이트카드
        broker_registration_no: "제2021-0123호"
        timezone: Asia/Seoul
        rate_move_warn_pp: 3.0

        """

    static let limits = """
        limits:
          - id: max_apr_pct
            value: 24.0
            effective_from: 2018-02-08
            citation: "대부업법 시행령 제5조②·제9조① (연 100분의 24), 2018-02-08 시행"
          - id: max_apr_pct
            value: 20.0
            effective_from: 2021-07-07
            citation: "대부업법 시행령 제5조②·제9조① (연 100분의 20); 부칙 <제31613호, 2021.4.6>, 2021-07-07 이후 신규·갱신·연장 계약부터 적용"
          - id: late_interest_spread_max_pp
            value: 3.0
            effective_from: 2018-04-30
            citation: "금융위원회 여신금융기관의 연체이자율에 관한 규정 (약정금리 + 3%p, 2018-04-30 시행); 대부업법 제15조③, 시행령 제9조④"
          - id: late_interest_max_pct
            value: 24.0
            effective_from: 2018-04-30
            citation: "대부업법 제15조③, 시행령 제9조④ (연체이자율은 최고이자율 연 100분의 24를 초과할 수 없음)"
          - id: late_interest_max_pct
            value: 20.0
            effective_from: 2021-07-07
            citation: "대부업법 제15조③, 시행령 제9조④ 후단 (연 100분의 20을 초과할 수 없음); 부칙 <제31613호, 2021.4.6>"
          - id: early_repayment_fee_max_months
            value: 36
            effective_from: 2021-03-25
            citation: "금융소비자 보호에 관한 법률 제20조①4나, 시행령 제15조① (대출일부터 3년 이내 상환 시에만 중도상환수수료 부과 가능), 2021-03-25 시행"
          - id: max_apr_pct
            value: 20.0
            effective_from: 2021-07-07
            program: saitdol2
            citation: "사잇돌2: 별도 상한이 확인되지 않아 법정최고금리(대부업법 시행령 제9조①)를 적용"
          - id: early_repayment_fee_exempt_max_pct
            value: 1.0
            effective_from: 2016-03-03
            citation: "대부업법 시행령 제9조③ (대출기간 1년 이상 대출의 중도상환수수료 중 상환금액의 100분의 1 이하는 이자로 보지 않음)"
          - id: early_repayment_fee_exempt_min_term_months
            value: 12
            effective_from: 2016-03-03
            citation: "대부업법 시행령 제9조③ (대출기간 1년 이상인 대출에 한함)"
          - id: credit_score_min
            value: 0
            effective_from: 2021-01-01
            citation: "금융위원회 개인신용평가 점수제 전면 시행 (2021-01-01, 1~1,000점; 0점은 평점 없음으로 허용), https://fsc.go.kr/eng/pr010101/22329"
          - id: credit_score_max
            value: 1000
            effective_from: 2021-01-01
            citation: "금융위원회 개인신용평가 점수제 전면 시행 (2021-01-01, 1~1,000점), https://fsc.go.kr/eng/pr010101/22329"
          - id: withdrawal_period_days
            value: 14
            effective_from: 2021-03-25
            citation: "금융소비자 보호에 관한 법률 제46조①3 (대출성 상품: 계약서류를 제공받은 날 또는 대출금을 받은 날부터 14일 이내 청약 철회), 2021-03-25 시행"
          - id: terms_notice_days
            value: 30
            effective_from: 2007-01-01
            citation: "전자금융거래법 제24조③ (약관을 변경하는 때에는 시행일 1개월 전에 게시), 2007-01-01 시행"

        """

    /// The example content's phrases; the broker phrases name `broker-notice` only when terms are generated.
    static func phrases(withDocuments: Bool) -> String {
        let documents = withDocuments ? "    documents: [broker-notice]\n" : ""
        return """
            phrases:
              - id: warn-excess-debt
                ko: "상환능력에 비해 대출금이 과도할 경우 개인신용평점이 하락할 수 있습니다."
                pages: [product, rates]
                basis: "금소법 제22조, 시행령 제18조; 금융소비자 보호에 관한 감독규정(광고) — 업계 표준 문구"
              - id: warn-score-drop
                ko: "개인신용평점 하락으로 금융거래와 관련된 불이익이 발생할 수 있습니다."
                pages: [product, rates]
                basis: "금소법 제22조, 시행령 제18조; 금융소비자 보호에 관한 감독규정(광고) — 업계 표준 문구"
              - id: warn-acceleration
                ko: "일정기간 원리금을 연체할 경우, 계약만료 기한이 도래하기 전에 모든 원리금을 변제해야 할 의무가 발생할 수 있습니다."
                pages: [product]
                basis: "금소법 제19조①1라, 시행령 제13조⑥ (계약의 해지 및 연체 시 불이익 설명)"
              - id: right-explanation
                ko: "금융소비자는 「금융소비자 보호에 관한 법률」 제19조제1항에 따라 해당 상품에 대하여 설명을 받을 권리가 있으며, 그 설명을 이해한 후 거래하시기 바랍니다."
                pages: [product]
                basis: "금소법 제19조①, 시행령 제18조③1"
              - id: notice-read-terms
                ko: "계약을 체결하기 전에 상품설명서 및 약관을 반드시 확인하시기 바랍니다."
                pages: [product, rates]
                basis: "금소법 제22조③1"
              - id: right-withdrawal
                ko: "일반금융소비자는 대출계약 서류를 제공받은 날(또는 대출금 지급일)부터 14일 이내에 청약을 철회할 수 있습니다."
                pages: [product]
                not_partner_categories: [p2p]
                basis: "금소법 제46조①3, ②2; 시행령 제37조 (온라인투자연계금융 연계대출은 제외)"
              - id: notice-p2p-no-withdrawal
                ko: "온라인투자연계금융업자를 통한 연계대출은 금융소비자보호법상 청약철회 대상이 아닙니다."
                pages: [product]
                partner_categories: [p2p]
                basis: "금소법 제46조①3, 시행령 제37조①3"
              - id: broker-identity
                ko: "(주){service_name}는 제휴 금융회사와 대출모집 위탁계약을 체결한 금융상품판매대리·중개업자(대출모집인 등록번호 {broker_registration_no})이며, 대출계약을 체결할 권한이 없습니다. 대출 심사 및 계약은 각 금융회사가 직접 합니다."
                pages: [rates]
            \(documents)    basis: "금소법 제26조①②, 시행령 제24조①②"
              - id: broker-data-held-by-lender
                ko: "고객님이 제공한 신용정보 및 개인정보는 해당 금융회사가 보유·관리합니다."
                pages: [rates]
            \(documents)    basis: "금소법 제26조①, 시행령 제24조①"
              - id: broker-no-fee
                ko: "대출모집인은 고객에게 어떠한 명목으로도 수수료를 요구하거나 받을 수 없습니다."
                pages: [rates]
            \(documents)    basis: "대부업법 제11조의2②"
              - id: info-inquiry-no-score-impact
                ko: "한도와 금리를 조회해도 개인신용평점에 영향을 주지 않습니다."
                pages: [rates]
                basis: "신용정보법 제32조② 후단 (조회가 신용평점에 영향을 주는지 고지)"
              - id: info-rates-annual
                ko: "표시된 금리는 연 기준 금리입니다."
                pages: [product, rates]
                basis: "금소법 제22조④4가, 시행령 제20조④ (일 단위 이자 표시 금지, 연 기준 표시)"
              - id: info-dispute
                ko: "상품 이용 중 불만(민원)이 있을 경우 해당 금융회사 고객센터로 문의하실 수 있으며, 분쟁이 발생한 경우 금융감독원(국번없이 1332)에 도움을 요청하실 수 있습니다."
                pages: [product]
                basis: "금소법 제36조, 시행령 제13조⑧1"

            """
    }
}

/// Writes files below a root, creating each folder once, and counts what it wrote.
struct TreeWriter {
    let root: String
    var folders: Set<String> = []
    var files = 0
    var bytes = 0
    var written: Set<String> = []

    init(root: String) { self.root = root }

    mutating func write(_ path: String, _ text: String) throws {
        let full = root + "/" + path
        let folder = DurableFiles.parent(of: full)
        if !folders.contains(folder) {
            try FileSystem.makeDirectories(folder)
            folders.insert(folder)
        }
        let data = Array(text.utf8)
        try FileSystem.writeFile(full, data)
        if written.insert(path).inserted {
            files += 1
            bytes += data.count
        }
    }
}

extension LargeContentGenerator {
    /// A rate table's text with its first `apr_max_pct` (the best band's) moved by 0.01pp: up from
    /// an even hundredth, down from an odd one, so applying it twice restores the table. A change
    /// every output shows that keeps generated content valid (the bureau would show too, but each
    /// product's disclosure names it, DSC-17); tests and `make bench` use it as "one rate update".
    public static func nudgedRate(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.trimmingPrefix(while: { $0 == " " }).hasPrefix("apr_max_pct: ") }),
            let colon = lines[index].firstIndex(of: ":"),
            let value = Percent.parse(String(lines[index][lines[index].index(after: colon)...].drop { $0 == " " }))?.value
        else { return text }
        let hundredths = (value.thousandths + 5) / 10
        let moved = hundredths % 2 == 0 ? hundredths + 1 : hundredths - 1
        lines[index] = lines[index][...colon] + " " + Percent(thousandths: moved * 10).description
        return lines.joined(separator: "\n")
    }
}
