import RatecardCore
import RatecardSupport

/// The JSON documents of a bundle's data folder (see docs/bundle-format.md).
package final class DataDocuments: Sendable {
    let content: Content
    let asOf: Day
    /// Lookups built once per bundle (each page and product would otherwise scan every list).
    /// Each product's tables, oldest first, as positions in `content.rateTables` (a table is a
    /// large value: grouping copies of 6,000 of them cost more than grouping their positions).
    let tablesByProduct: [String: [Int]]
    /// Each document's versions, oldest first, as positions in `content.terms`.
    let versionsByDocument: [String: [Int]]
    let partnersByID: [String: Partner]
    /// Each partner's file, by id (read for every product's key: a `Partner` is a large value).
    let partnerPaths: [String: String]
    /// Each table's file, by position in `content.rateTables`, and `content.fileIDs`.
    let tablePaths: [String]
    let fileIDs: [String: ObjectID]
    /// Each product's name (`Product.key`: `partner/id`; not its cache key) and its partner folder, by position in `content.products`.
    let productNames: [String]
    let productPartners: [String]
    /// Each product's file and the partner it names, by position in `content.products` (read
    /// for its key: indexing the array would copy each large value whole).
    let productPaths: [String]
    let productPartnerIDs: [String]
    /// `asOf` as keys write it.
    let asOfText: String

    package init(content: Content, asOf: Day) {
        self.content = content
        self.asOf = asOf
        (productNames, productPartners) = content.products.withUnsafeBufferPointer { products in
            (products.indices.map { "\(products[$0].folderPartner)/\(products[$0].folderID)" }, products.indices.map { products[$0].folderPartner })
        }
        (productPaths, productPartnerIDs) = content.products.withUnsafeBufferPointer { products in
            (products.indices.map { products[$0].path }, products.indices.map { products[$0].partner.value })
        }
        asOfText = asOf.description
        let tables = content.rateTablePositions
        tablePaths = tables.paths
        fileIDs = content.fileIDs
        tablesByProduct = tables.byProduct
        versionsByDocument = content.termsPositions
        partnersByID = content.partnersByID
        let partners = content.partners
        partnerPaths = Dictionary(partners.indices.map { (partners[$0].id.value, partners[$0].path) }, uniquingKeysWith: { first, _ in first })
    }

    func versions(of document: String) -> [TermsVersion] { (versionsByDocument[document] ?? []).map { content.terms[$0] } }

    var phrasesByID: [String: Phrase] {
        Dictionary((content.phrases ?? []).map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func service() -> JSON {
        .object([
            "service_name": .string(content.config?.serviceName.value ?? ""),
            "broker_registration_no": .string(content.config?.brokerRegistrationNo.value ?? ""),
        ])
    }

    var orderedPartners: [Partner] {
        // Indices are sorted, not the partners (large values: every field keeps its position).
        content.partners.indices.sorted {
            (content.partners[$0].displayOrder.value, content.partners[$0].id.value) < (content.partners[$1].displayOrder.value, content.partners[$1].id.value)
        }.map { content.partners[$0] }
    }

    /// `partners.json`; `logoHashes` (asset path -> sha256) names each logo's object, so the app
    /// fetches it by a URL that outlives the release.
    func partners(logoHashes: [String: String]) -> JSON {
        let productKeys = Dictionary(grouping: productNames.sorted(), by: { String($0.split(separator: "/")[0]) })
        return .object([
            "partners": .array(
                orderedPartners.map { partner in
                    .object([
                        "id": .string(partner.id.value),
                        "name_ko": .string(partner.nameKo.value),
                        "name_en": partner.nameEn.map(JSON.string) ?? .null,
                        "category": .string(partner.category.value.rawValue),
                        "category_ko": .string(KoreanLabels.category(partner.category.value)),
                        "status": .string(partner.status.value.rawValue),
                        "status_reason": partner.statusReason.map { .string($0.value) } ?? .null,
                        "display_order": .int(partner.displayOrder.value),
                        "logo": .string(partner.logo.value),
                        "logo_sha256": logoHashes[partner.logo.value].map(JSON.string) ?? .null,
                        "phone": .string(partner.phone.value),
                        "website": .string(partner.website.value),
                        "products": .array((productKeys[partner.id.value] ?? []).map(JSON.string)),
                    ])
                })
        ])
    }

    var orderedProducts: [Product] {
        content.products.indices.sorted { content.products[$0].key < content.products[$1].key }.map { content.products[$0] }
    }

    /// The table in force on the as-of date and the next one scheduled after it.
    func tables(of product: Product) -> (current: RateTable?, next: RateTable?) {
        let tables = content.rateTables
        let positions = tablesByProduct[product.key] ?? []
        let current = positions.last { tables[$0].isInForce(on: asOf) }.map { tables[$0] }
        let next = positions.first { tables[$0].effectiveFrom.value > asOf }.map { tables[$0] }
        return (current, next)
    }

    /// The comparison index's entry for a product; nil when the comparison leaves it out
    /// (withdrawn, its partner paused, or no table in force), as `rates.html` does.
    package func compareItem(_ product: Product) -> CompareIndex.Item? {
        // The comparison asks for a credit score: a table priced by grade (in force before
        // 2021, so only on an as-of date that early) cannot be matched to one.
        guard status(of: product) == "active", let table = tables(of: product).current, table.scale == .score else { return nil }
        return CompareIndex.Item(
            partner: product.folderPartner, id: product.folderID, nameKo: product.nameKo.value, type: product.kind.value.rawValue,
            bureau: table.bureau.value.rawValue, limitMin: product.limitMin.value, limitMax: product.limitMax.value,
            termsMonths: Array(Set(product.termsMonths.value.map(\.value))).sorted(),
            repayment: CompareIndex.repaymentMethods.filter { method in product.repayment.contains { $0.value.rawValue == method } },
            bands: table.bandsBestFirst.map { band in
                CompareIndex.Band(scoreMin: band.min.value, scoreMax: band.max.value, aprMin: band.aprMin.value, aprMax: band.aprMax.value, limitMax: band.limitMax.value)
            })
    }

    /// Every partner id (a partner file's, or a product folder's) and how many products it has.
    var productCounts: [(id: String, products: Int)] {
        var counts: [String: Int] = [:]
        for partner in content.partners { counts[partner.id.value] = 0 }
        for partner in productPartners { counts[partner, default: 0] += 1 }
        return counts.map { ($0.key, $0.value) }
    }

    /// The comparison index: the partners cut into shards, each with its comparable products.
    /// `logoHashes` (asset path -> sha256) names each partner's logo object. `items`: each
    /// product's entry by its position in the content, when the caller has them (a memo's);
    /// else they are made here (`compareItem`).
    func compareShards(logoHashes: [String: String] = [:], items made: [CompareIndex.Item?]? = nil) -> [CompareIndex.Shard] {
        let counts = productCounts
        let names = CompareIndex.boundaries(counts)
        var partners: [String: [CompareIndex.Partner]] = [:]
        for id in counts.map(\.id).sorted() {
            let partner = partnersByID[id]
            let logo = partner?.logo.value ?? ""
            partners[CompareIndex.shard(of: id, in: names)!, default: []].append(
                CompareIndex.Partner(
                    id: id, nameKo: partner?.nameKo.value ?? id, category: partner?.category.value.rawValue ?? "",
                    logo: logoHashes[logo] == nil ? "" : logo, logoSHA256: logoHashes[logo] ?? ""))
        }
        var items: [String: [CompareIndex.Item]] = [:]
        // Made on two threads (each product's on its own), then put in their shards in order.
        let made = made ?? ParallelMap.map(Array(content.products.indices)) { index in compareItem(content.products[index]) }
        for case let item? in made {
            items[CompareIndex.shard(of: item.partner, in: names)!, default: []].append(item)
        }
        return names.map { name in
            CompareIndex.Shard(partners: partners[name] ?? [], items: (items[name] ?? []).sorted { ($0.partner, $0.id) < ($1.partner, $1.id) })
        }
    }

    /// What the app shows for a product: `withdrawn`, `paused` (its partner is paused) or `active`.
    func status(of product: Product) -> String {
        if product.status.value == .withdrawn { return "withdrawn" }
        if partnersByID[product.partner.value]?.status.value != .active { return "paused" }
        return "active"
    }

    package func product(_ product: Product) -> JSON {
        let (current, next) = tables(of: product)
        var apr: JSON = .null
        if let current, let low = current.bands.map(\.aprMin.value).min(), let high = current.bands.map(\.aprMax.value).max() {
            apr = .object(["min_pct": .number(low.description), "max_pct": .number(high.description)])
        }
        return .object([
            "key": .string(product.key),
            "id": .string(product.id.value),
            "partner": .string(product.partner.value),
            "partner_name_ko": .string(partnersByID[product.partner.value]?.nameKo.value ?? product.partner.value),
            "name_ko": .string(product.nameKo.value),
            "name_en": product.nameEn.map(JSON.string) ?? .null,
            "type": .string(product.kind.value.rawValue),
            "type_ko": .string(KoreanLabels.productType(product.kind.value)),
            "status": .string(status(of: product)),
            "description_ko": product.description.map { .string($0.value) } ?? .null,
            "repayment_methods": .array(product.repayment.map { .string($0.value.rawValue) }),
            "terms_months": .array(product.termsMonths.value.map { .int($0.value) }),
            "limit": .object(["min_krw": .int(product.limitMin.value), "max_krw": .int(product.limitMax.value)]),
            "fees": .object([
                "origination_krw": .int(product.originationFee.value),
                "early_repayment_pct": .number(product.earlyRepaymentFee.value.description),
                "early_repayment_months": .int(product.earlyRepaymentMonths.value),
            ]),
            "late_interest": .object([
                "spread_pp": .number(product.lateSpread.value.description),
                "max_pct": .number(product.lateMax.value.description),
            ]),
            "phrases": .array(product.requiredPhrases.value.map { .string($0.value) }),
            "disclosure": disclosure(product.disclosure),
            "apr": apr,
            "current": current.map(table) ?? .null,
            "next": next.map(table) ?? .null,
        ])
    }

    func disclosure(_ disclosure: Product.Disclosure) -> JSON {
        let example = disclosure.repaymentExample
        return .object([
            "review_no": .string(disclosure.reviewNumber.value),
            "review_valid_from": .string(disclosure.reviewValidFrom.value.description),
            "review_valid_until": .string(disclosure.reviewValidUntil.value.description),
            "rate_type": .string(disclosure.rateType.value.rawValue),
            "base_rate_ko": disclosure.baseRate.map { .string($0.value) } ?? .null,
            "rate_composition_ko": .string(disclosure.rateComposition.value),
            "interest_timing_ko": .string(disclosure.interestTiming.value),
            "incidental_costs_ko": .string(disclosure.incidentalCosts.value),
            "required_credit_ko": .string(disclosure.requiredCredit.value),
            "repayment_example": .object([
                "amount_krw": .int(example.amount.value),
                "apr_pct": .number(example.apr.value.description),
                "months": .int(example.months.value),
                "method": .string(example.method.value.rawValue),
                "total_krw": .int(example.total.value),
            ]),
        ])
    }

    func table(_ table: RateTable) -> JSON { Self.tableDocument(table) }

    /// A rate table as a product's document shows it (`current`, `next`).
    package static func tableDocument(_ table: RateTable) -> JSON {
        .object([
            "bureau": .string(table.bureau.value.rawValue),
            "effective_from": .string(table.effectiveFrom.value.description),
            "effective_to": table.effectiveTo.map { .string($0.value.description) } ?? .null,
            "bands": .array(
                table.bandsBestFirst.map { band in
                    .object([
                        table.scale.minKey: .int(band.min.value),
                        table.scale.maxKey: .int(band.max.value),
                        "apr_min_pct": .number(band.aprMin.value.description),
                        "apr_max_pct": .number(band.aprMax.value.description),
                        "limit_max_krw": .int(band.limitMax.value),
                    ])
                }),
        ])
    }

    /// The version of a document in force on the as-of date.
    func currentVersion(of document: String) -> TermsVersion? {
        let terms = content.terms
        return (versionsByDocument[document] ?? []).last { terms[$0].effectiveFrom.value <= asOf }.map { terms[$0] }
    }

    /// The terms index; `pageHashes`: each version's page (`terms/<doc>/<version>.html`) by its
    /// sha256, so that a reader finds the page as an object (a bucket serves it only so).
    func terms(pageHashes: [String: String]) -> JSON {
        .object(["documents": .array(content.documentIDs.map { termsDocument($0, pageHashes: pageHashes) })])
    }

    /// One document's entry in the terms index.
    func termsDocument(_ document: String, pageHashes: [String: String]) -> JSON {
        let versions = self.versions(of: document)
        let current = currentVersion(of: document)
        let head = current ?? versions.first
        return .object([
            "id": .string(document),
            "title": .string(head?.title.value ?? document),
            "consent": .string(head?.consent.value.rawValue ?? "none"),
            "current": current.map { .string($0.fileVersion) } ?? .null,
            "versions": .array(
                versions.map { version in
                    .object([
                        "version": .string(version.fileVersion),
                        "title": .string(version.title.value),
                        "effective_from": .string(version.effectiveFrom.value.description),
                        "consent": .string(version.consent.value.rawValue),
                        "requires_reconsent": .bool(version.requiresReconsent.value),
                        "summary": .string(version.summary.value),
                        "url": .string(BundleLayout.termsPage(document, version.fileVersion)),
                        "sha256": pageHashes[BundleLayout.termsPage(document, version.fileVersion)].map(JSON.string) ?? .null,
                    ])
                }),
        ])
    }

    /// `terms.json`'s bytes (`terms(pageHashes:)` as written, with a final newline) from each
    /// document's entry written where it lands (`termsDocument(...).bytes(indent: 2)`, in
    /// `documentIDs`' order): an edit to one terms version writes one entry again.
    static func termsIndexBytes(_ entries: [[UInt8]]) -> [UInt8] {
        guard !entries.isEmpty else { return JSON.object(["documents": .array([])]).bytes(terminator: "\n") }
        var out = Array("{\n  \"documents\": [".utf8)
        out.reserveCapacity(entries.reduce(64) { $0 + $1.count + 8 })
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\n    ".utf8)
            out.append(contentsOf: entry)
        }
        out.append(contentsOf: "\n  ]\n}\n".utf8)
        return out
    }

    func limits() -> JSON {
        var fields: [String: JSON] = [:]
        for kind in LegalLimits.Kind.allCases {
            guard let entry = content.limits?.inForce(kind, on: asOf) else { continue }
            fields[kind.rawValue] = .object([
                "value": .number(entry.value.description),
                "effective_from": .string(entry.effectiveFrom.description),
                "citation": .string(entry.citation),
            ])
        }
        return .object(["as_of": .string(asOf.description), "limits": .object(fields)])
    }

    func phrases() -> JSON {
        .object([
            "phrases": .array(
                (content.phrases ?? []).sorted { $0.id.value < $1.id.value }.map { phrase in
                    .object([
                        "id": .string(phrase.id.value),
                        "text": .string(phrase.text(config: content.config)),
                        "pages": .array(phrase.pages.map { .string($0.value.rawValue) }),
                    ])
                })
        ])
    }
}

private func < (lhs: (Int, String), rhs: (Int, String)) -> Bool {
    lhs.0 != rhs.0 ? lhs.0 < rhs.0 : lhs.1 < rhs.1
}
