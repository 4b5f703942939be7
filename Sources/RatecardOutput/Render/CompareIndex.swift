import RatecardCore
import RatecardSupport

/// The index the comparison screen reads instead of every product's document
/// (docs/bundle-format.md, "The comparison index"): for each product the comparison can show
/// (active, its partner active, a table in force), its names, type, limits, terms, repayment
/// methods, the bureau of that table and its bands, split into shards of whole partners, about
/// `productsPerShard` products each: what the screen sorts, filters and computes repayments by.
///
/// A shard is written column by column (one array per field, band fields delta-coded within a
/// product, money and rates in the largest step that divides them): a phone downloads every
/// shard for its first screen, and columns of similar numbers are what gzip shrinks best. A
/// change to one rate table rewrites the one shard holding its partner.
package struct CompareIndex {
    static let format = 3
    /// Shards of about this many products (counting every product, so a rate update never moves
    /// a partner to another shard): small enough that one table's change re-sends little, large
    /// enough that the list of shards stays short (each is named by a 64-hex hash).
    static let productsPerShard = 64

    struct Band: Equatable, Sendable {
        var scoreMin: Int
        var scoreMax: Int
        var aprMin: Percent
        var aprMax: Percent
        var limitMax: Int
    }

    /// A product as the comparison shows it.
    package struct Item: Equatable, Sendable {
        package var partner: String
        package var id: String
        var nameKo: String
        /// `credit`, `credit_line`, ... (product.yaml's `type`).
        var type: String
        /// The bureau whose scores the table in force is drawn on: `KCB` or `NICE`.
        var bureau: String
        var limitMin: Int
        var limitMax: Int
        /// The terms offered, in months, as the product lists them.
        var termsMonths: [Int]
        /// `equal_installment`, `equal_principal`, `bullet`, `revolving`, as the product lists them.
        var repayment: [String]
        /// The table in force, best scores first.
        var bands: [Band]

        var key: String { partner + "/" + id }
    }

    package struct Partner: Equatable, Sendable {
        package var id: String
        var nameKo: String
        /// `bank`, `savings_bank`, ... (the partner file's `category`; "" when unknown).
        var category: String = ""
        /// The logo's path in the data folder and the sha256 that names its object ("" when none).
        var logo: String = ""
        var logoSHA256: String = ""
    }

    /// The repayment methods in the order of their bits in a product's `repayment` mask.
    static let repaymentMethods = ["equal_installment", "equal_principal", "bullet", "revolving"]

    /// Some partners (sorted by id) and the comparable products of each, by product id.
    package struct Shard: Equatable, Sendable {
        package var partners: [Partner]
        package var items: [Item]

        /// Named by its first partner: the shard holding a partner is the last one named at or before it.
        var name: String { partners.first?.id ?? "" }

        package static func path(_ name: String) -> String { "compare/\(name).json" }

        init(partners: [Partner], items: [Item]) {
            self.partners = partners
            self.items = items
        }

        package func bytes() -> [UInt8] {
            let unit = CompareIndex.unit(of: items.flatMap { [$0.limitMin, $0.limitMax] + $0.bands.map(\.limitMax) })
            // Rates in the largest step that divides them all (hundredths when no rate has three decimals).
            let rates = items.flatMap { $0.bands.flatMap { [$0.aprMin.thousandths, $0.aprMax.thousandths] } }
            let aprStep = CompareIndex.unit(of: rates, from: [100, 10])
            // Terms as bits over the shard's terms (ascending), methods over `repaymentMethods`.
            let terms = Array(Set(items.flatMap(\.termsMonths))).sorted()
            let termBit = Dictionary(uniqueKeysWithValues: terms.enumerated().map { ($1, 1 << $0) })
            let methodBit = Dictionary(uniqueKeysWithValues: CompareIndex.repaymentMethods.enumerated().map { ($1, 1 << $0) })
            // Types and bureaus as indices into the shard's distinct values, sorted.
            let types = Array(Set(items.map(\.type))).sorted()
            let bureaus = Array(Set(items.map(\.bureau))).sorted()
            var counts: [String: Int] = [:]
            for item in items { counts[item.partner, default: 0] += 1 }
            let partnerNames = Dictionary(partners.map { ($0.id, $0.nameKo) }, uniquingKeysWith: { first, _ in first })
            // A name that starts with its partner's name and a space is stored without them.
            let prefixes: [String?] = items.map { item in
                guard let name = partnerNames[item.partner], !name.isEmpty else { return nil }
                let prefix = name + " "
                return item.nameKo.hasPrefix(prefix) && item.nameKo.count > prefix.count ? prefix : nil
            }
            var gaps: [JSON] = []
            var spans: [JSON] = []
            var aprMins: [JSON] = []
            var aprSpreads: [JSON] = []
            var limits: [JSON] = []
            for item in items {
                var ceiling: Int = item.bands.first?.scoreMax ?? 0
                // The first band's limit below the product's; each next one's below the band before.
                var before = (aprMin: 0, spread: 0, limit: item.limitMax)
                for band in item.bands {
                    // Scores: the gap below the band before (0 for contiguous bands) and the span;
                    // rates: the first band as it is, each next one as its difference from the
                    // band before; limits: what the band lends less than the one before (the
                    // product's limit for the first), so columns of small non-negative numbers.
                    let spread: Int = band.aprMax.thousandths - band.aprMin.thousandths
                    gaps.append(.int(ceiling - band.scoreMax))
                    spans.append(.int(band.scoreMax - band.scoreMin))
                    aprMins.append(.int((band.aprMin.thousandths - before.aprMin) / aprStep))
                    aprSpreads.append(.int((spread - before.spread) / aprStep))
                    limits.append(.int((before.limit - band.limitMax) / unit))
                    ceiling = band.scoreMin - 1
                    before = (band.aprMin.thousandths, spread, band.limitMax)
                }
            }
            let partnerColumns: [String: JSON] = [
                "id": .array(partners.map { .string($0.id) }),
                "name_ko": .array(partners.map { .string($0.nameKo) }),
                "products": .array(partners.map { .int(counts[$0.id] ?? 0) }),
                "category": .array(partners.map { .string($0.category) }),
                "logo": .array(partners.map { .string($0.logo) }),
                "logo_sha256": .array(partners.map { .string($0.logoSHA256) }),
            ]
            let productColumns: [String: JSON] = [
                "id": .array(items.map { .string($0.id) }),
                "name_ko": .array(zip(items, prefixes).map { item, prefix in .string(prefix.map { String(item.nameKo.dropFirst($0.count)) } ?? item.nameKo) }),
                "name_after_partner": .array(prefixes.map { .int($0 == nil ? 0 : 1) }),
                "limit_max": .array(items.map { .int($0.limitMax / unit) }),
                "limit_min": .array(items.map { .int($0.limitMin / unit) }),
                "type": .array(items.map { .int(types.firstIndex(of: $0.type) ?? 0) }),
                "bureau": .array(items.map { .int(bureaus.firstIndex(of: $0.bureau) ?? 0) }),
                "terms": .array(items.map { .int($0.termsMonths.reduce(0) { $0 | (termBit[$1] ?? 0) }) }),
                "repayment": .array(items.map { .int($0.repayment.reduce(0) { $0 | (methodBit[$1] ?? 0) }) }),
                "bands": .array(items.map { .int($0.bands.count) }),
                "score_max": .array(items.map { .int($0.bands.first?.scoreMax ?? 0) }),
            ]
            let bandColumns: [String: JSON] = [
                "score_gap": .array(gaps), "score_span": .array(spans), "apr_min": .array(aprMins),
                "apr_spread": .array(aprSpreads), "limit_max": .array(limits),
            ]
            let units: [String: JSON] = [
                "apr_per_pct": .int(1000 / aprStep), "krw_per_unit": .int(unit), "terms_months": .array(terms.map { .int($0) }),
                "types": .array(types.map { .string($0) }), "bureaus": .array(bureaus.map { .string($0) }),
            ]
            let document: [String: JSON] = [
                "format": .int(CompareIndex.format), "units": .object(units), "partners": .object(partnerColumns),
                "products": .object(productColumns), "bands": .object(bandColumns),
            ]
            return JSON.object(document).bytes(pretty: false, terminator: "\n")
        }

        /// Reads a shard back (a rate update re-renders the shards it changes from the live ones).
        package init(decoding bytes: [UInt8]) throws {
            let json = try JSONReader.parse(bytes)
            guard json["format"]?.intValue == CompareIndex.format, let perPercent = json["units"]?["apr_per_pct"]?.intValue,
                [1000, 100, 10].contains(perPercent), let unit = json["units"]?["krw_per_unit"]?.intValue, unit > 0
            else {
                throw Self.failure("format or units")
            }
            let aprStep = 1000 / perPercent
            let partnerIDs = try Self.strings(json["partners"]?["id"])
            let partnerNames = try Self.strings(json["partners"]?["name_ko"])
            let counts = try Self.ints(json["partners"]?["products"])
            let ids = try Self.strings(json["products"]?["id"])
            let names = try Self.strings(json["products"]?["name_ko"])
            let limits = try Self.ints(json["products"]?["limit_max"])
            let limitMins = try Self.ints(json["products"]?["limit_min"])
            let typeNames = try Self.strings(json["units"]?["types"])
            let bureauNames = try Self.strings(json["units"]?["bureaus"])
            let types = try Self.ints(json["products"]?["type"]).map { index in
                guard typeNames.indices.contains(index) else { throw Self.failure("a type out of range") }
                return typeNames[index]
            }
            let bureaus = try Self.ints(json["products"]?["bureau"]).map { index in
                guard bureauNames.indices.contains(index) else { throw Self.failure("a bureau out of range") }
                return bureauNames[index]
            }
            let afterPartner = try Self.ints(json["products"]?["name_after_partner"])
            let termList = try Self.ints(json["units"]?["terms_months"])
            let terms = try Self.ints(json["products"]?["terms"]).map { mask in termList.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element) }
            let methods = try Self.ints(json["products"]?["repayment"]).map { mask in
                CompareIndex.repaymentMethods.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
            }
            let categories = try Self.strings(json["partners"]?["category"])
            let logos = try Self.strings(json["partners"]?["logo"])
            let logoHashes = try Self.strings(json["partners"]?["logo_sha256"])
            let bandCounts = try Self.ints(json["products"]?["bands"])
            let tops = try Self.ints(json["products"]?["score_max"])
            let gaps = try Self.ints(json["bands"]?["score_gap"])
            let spans = try Self.ints(json["bands"]?["score_span"])
            let aprMins = try Self.ints(json["bands"]?["apr_min"])
            let aprSpreads = try Self.ints(json["bands"]?["apr_spread"])
            let bandLimits = try Self.ints(json["bands"]?["limit_max"])
            let bandTotal = bandCounts.reduce(0, +)
            guard partnerNames.count == partnerIDs.count, counts.count == partnerIDs.count,
                [categories.count, logos.count, logoHashes.count].allSatisfy({ $0 == partnerIDs.count }), counts.allSatisfy({ $0 >= 0 }), counts.reduce(0, +) == ids.count,
                bandCounts.allSatisfy({ $0 >= 0 }),
                names.count == ids.count, afterPartner.count == ids.count, afterPartner.allSatisfy({ $0 == 0 || $0 == 1 }), limits.count == ids.count, limitMins.count == ids.count,
                types.count == ids.count,
                bureaus.count == ids.count, terms.count == ids.count, methods.count == ids.count, bandCounts.count == ids.count, tops.count == ids.count,
                [gaps, spans, aprMins, aprSpreads, bandLimits].allSatisfy({ $0.count == bandTotal })
            else {
                throw Self.failure("lists of different lengths")
            }
            partners = partnerIDs.indices.map { index in
                Partner(id: partnerIDs[index], nameKo: partnerNames[index], category: categories[index], logo: logos[index], logoSHA256: logoHashes[index])
            }
            var owners: [String] = []
            var ownerNames: [String] = []
            for (index, count) in counts.enumerated() {
                owners += Array(repeating: partnerIDs[index], count: count)
                ownerNames += Array(repeating: partnerNames[index], count: count)
            }
            var items: [Item] = []
            var position = 0
            for index in ids.indices {
                var bands: [Band] = []
                var ceiling: Int = tops[index]
                var aprMin = 0
                var spread = 0
                var limit = limits[index] * unit
                for _ in 0..<bandCounts[index] {
                    let scoreMax: Int = ceiling - gaps[position]
                    let scoreMin: Int = scoreMax - spans[position]
                    aprMin += aprMins[position] * aprStep
                    spread += aprSpreads[position] * aprStep
                    limit -= bandLimits[position] * unit
                    bands.append(
                        Band(
                            scoreMin: scoreMin, scoreMax: scoreMax, aprMin: Percent(thousandths: aprMin),
                            aprMax: Percent(thousandths: aprMin + spread), limitMax: limit))
                    ceiling = scoreMin - 1
                    position += 1
                }
                let name = afterPartner[index] == 1 ? ownerNames[index] + " " + names[index] : names[index]
                items.append(
                    Item(
                        partner: owners[index], id: ids[index], nameKo: name, type: types[index], bureau: bureaus[index],
                        limitMin: limitMins[index] * unit, limitMax: limits[index] * unit, termsMonths: terms[index],
                        repayment: methods[index], bands: bands))
            }
            self.items = items
        }

        private static func failure(_ what: String) -> OperationalError {
            OperationalError("a comparison shard is malformed: \(what)", ko: "비교 샤드의 형식이 잘못되었습니다: \(what)")
        }

        private static func ints(_ value: JSON?) throws -> [Int] {
            guard let items = value?.arrayValue else { throw failure("a number list is missing") }
            return try items.map { item in
                guard let number = item.intValue else { throw failure("not an integer") }
                return number
            }
        }

        private static func strings(_ value: JSON?) throws -> [String] {
            guard let items = value?.arrayValue else { throw failure("a text list is missing") }
            return try items.map { item in
                guard let text = item.stringValue else { throw failure("not a string") }
                return text
            }
        }
    }

    /// The largest of `units` that divides every amount, else 1.
    static func unit(of amounts: [Int], from units: [Int] = [10_000, 1_000, 100, 10]) -> Int {
        units.first { unit in amounts.allSatisfy { $0 % unit == 0 } } ?? 1
    }

    /// Partners (id and how many products each has) cut into consecutive runs in id order of
    /// about `productsPerShard` products each: the first partner of each run.
    static func boundaries(_ partners: [(id: String, products: Int)]) -> [String] {
        let sorted = partners.sorted { $0.id < $1.id }
        let total = sorted.reduce(0) { $0 + $1.products }
        let count = max(1, (total + productsPerShard - 1) / productsPerShard)
        var firsts: [String] = []
        var taken = 0
        var open = false
        for partner in sorted {
            if !open {
                firsts.append(partner.id)
                open = true
            }
            taken += partner.products
            // Close the run once it reaches its share of the total (the last run takes the rest).
            if firsts.count < count && taken * count >= firsts.count * total { open = false }
        }
        return firsts
    }

    /// The shard (named by its first partner) that holds `partner`: the last name at or before it.
    package static func shard(of partner: String, in names: [String]) -> String? {
        names.last { $0 <= partner }
    }
}

/// Each shard's product documents, for a product screen opened on demand
/// (`documents/<shard>.json`), and the list of those lists (`documents.json`).
package enum DocumentLists {
    package static let index = "documents.json"

    package static func path(_ shard: String) -> String { "documents/\(shard).json" }

    /// `{"products": {"<partner>/<product>": {"path", "sha256"}}}`.
    package static func list(_ documents: [(key: String, sha256: String)]) -> [UInt8] {
        let references = Dictionary(documents.map { ($0.key, reference("products/\($0.key).json", $0.sha256)) }, uniquingKeysWith: { first, _ in first })
        return JSON.object(["products": .object(references)]).bytes(terminator: "\n")
    }

    /// `{"lists": [{"from": "<first partner>", "path", "sha256"}]}`, in partner order.
    package static func index(_ lists: [(shard: String, sha256: String)]) -> [UInt8] {
        let entries: [JSON] = lists.sorted { $0.shard < $1.shard }.map { list in
            .object(["from": .string(list.shard), "path": .string(path(list.shard)), "sha256": .string(list.sha256)])
        }
        return JSON.object(["lists": .array(entries)]).bytes(terminator: "\n")
    }

    /// A list read back: key -> sha256.
    package static func read(_ bytes: [UInt8]) throws -> [String: String] {
        guard case .object(let products)? = try JSONReader.parse(bytes)["products"] else { throw OperationalError("a document list is malformed", ko: "문서 목록의 형식이 잘못되었습니다") }
        return try products.mapValues { reference in
            guard let hash = reference["sha256"]?.stringValue else { throw OperationalError("a document list is malformed", ko: "문서 목록의 형식이 잘못되었습니다") }
            return hash
        }
    }

    /// The index read back: first partner -> sha256 of its list.
    package static func readIndex(_ bytes: [UInt8]) throws -> [String: String] {
        guard let lists = try JSONReader.parse(bytes)["lists"]?.arrayValue else { throw OperationalError("documents.json is malformed", ko: "documents.json의 형식이 잘못되었습니다") }
        var hashes: [String: String] = [:]
        for list in lists {
            guard let from = list["from"]?.stringValue, let hash = list["sha256"]?.stringValue else { throw OperationalError("documents.json is malformed", ko: "documents.json의 형식이 잘못되었습니다") }
            hashes[from] = hash
        }
        return hashes
    }

    static func reference(_ path: String, _ sha256: String) -> JSON {
        .object(["path": .string(path), "sha256": .string(sha256)])
    }
}
