import RatecardSupport

/// Parsed rate tables, product files and terms versions as the build cache keeps them between
/// runs: a file is parsed once per blob, and a build after a one-table edit reads the 11,000
/// others' models from the cache instead of parsing them again. A terms version is kept without
/// its text (the file is read anyway, for the content's copy of it): its body by where it lies
/// in the file's bytes.
///
/// Only a file that parsed into a model with no findings is kept (nothing to say about it, so no
/// message to store); every other file is parsed each time. The key names the file's repository
/// path and blob id (the model holds the path, and the blob id names its bytes exactly), under
/// the build fingerprint like every key; `WarmCacheTests` checks that every field comes back.
package enum ParsedRecord {
    /// The cache key of the parsed model of the file at repository path `path` with blob `id`.
    package static func key(path: String, id: ObjectID) -> BuildCache.Key {
        var builder = BuildCache.Key.Builder("parsed-file")
        builder.append(file: path, id: id)
        return builder.key
    }

    /// Whether files of `role` are kept (the large, numerous kinds). An asset whose check found
    /// nothing is kept too, as `.asset` (`ContentLoader.parse` looks it up before reading it).
    package static func kept(_ role: FileRole) -> Bool {
        switch role {
        case .rateTable, .product, .terms: return true
        default: return false
        }
    }

    /// The payload for `model`, or nil when it is not one that is kept.
    package static func encode(_ model: ParsedFile.Model) -> [UInt8]? {
        var record = CacheRecord()
        switch model {
        case .rateTable(let table?):
            record.append(1)
            record.append(table)
        case .product(let product?):
            record.append(2)
            record.append(product)
        case .terms(let version?, let text):
            guard let body = bodyRange(version.body, in: text.text) else { return nil }
            record.append(3)
            record.append(version)
            record.append(body.lowerBound)
            record.append(body.upperBound)
        case .asset:
            record.append(4)
        default:
            return nil
        }
        return record.bytes
    }

    /// Where `body` lies in `text`, as UTF-8 offsets: the end of the text, or one byte before
    /// it (a final CR), as `FrontMatter.split` cuts it.
    static func bodyRange(_ body: String, in text: String) -> Range<Int>? {
        let utf8 = Array(text.utf8)
        let count = body.utf8.count
        for end in [utf8.count, utf8.count - 1] where end >= count && utf8[end - count..<end].elementsEqual(body.utf8) {
            return end - count..<end
        }
        return nil
    }

    /// The model `bytes` hold, or nil when they are not a whole record of one; `file`: the
    /// file's bytes (a terms version's text, decoded when it is first read: `TermsText`).
    package static func decode(_ bytes: [UInt8], file: [UInt8] = []) -> ParsedFile.Model? {
        var reader = CacheRecord.Reader(bytes)
        let model: ParsedFile.Model?
        switch reader.int() {
        case 1: model = reader.rateTable().map { .rateTable($0) }
        case 2: model = reader.product().map { .product($0) }
        case 3:
            // The body's ends within the file and between two scalars (not on a UTF-8
            // continuation byte), as a body's are.
            func between(_ offset: Int) -> Bool { offset == file.count || file[offset] & 0xC0 != 0x80 }
            guard var version = reader.termsVersion(), let start = reader.int(), let end = reader.int(), 0 <= start, start <= end, end <= file.count,
                between(start), between(end)
            else { return nil }
            let text = TermsText(bytes: file, body: start..<end)
            version.text = text
            model = .terms(version, text: text)
        case 4: model = .asset
        default: model = nil
        }
        guard let model, reader.atEnd else { return nil }
        return model
    }
}

extension CacheRecord {
    mutating func append(_ mark: SourceMark) {
        append(mark.line)
        append(mark.column)
    }

    mutating func append(_ day: Day) {
        append(day.year)
        append(day.month)
        append(day.day)
    }

    mutating func append(_ value: Located<Int>) {
        append(value.value)
        append(value.mark)
    }

    mutating func append(_ value: Located<String>) {
        append(value.value)
        append(value.mark)
    }

    mutating func append(_ value: Located<Percent>) {
        append(value.value.thousandths)
        append(value.mark)
    }

    mutating func append(_ value: Located<Day>) {
        append(value.value)
        append(value.mark)
    }

    mutating func append<Value: RawRepresentable<String>>(raw value: Located<Value>) {
        append(value.value.rawValue)
        append(value.mark)
    }

    /// 0 for nil, else 1 and the value.
    mutating func append<Value>(optional value: Value?, _ write: (inout CacheRecord, Value) -> Void) {
        guard let value else { return append(0) }
        append(1)
        write(&self, value)
    }

    mutating func append(_ value: Located<Bool>) {
        append(value.value ? 1 : 0)
        append(value.mark)
    }

    /// Every field but the body (kept as where it lies in the text).
    mutating func append(_ version: TermsVersion) {
        append(version.path)
        append(version.documentID)
        append(version.fileVersion)
        append(version.mark)
        append(version.title)
        append(version.version)
        append(version.effectiveFrom)
        append(raw: version.consent)
        append(version.requiresReconsent)
        append(version.summary)
        append(optional: version.announcedOn) { $0.append($1) }
        append(optional: version.namesPartners) { $0.append($1) }
        append(version.bodyLine)
        append(TermsScan.Result(wording: version.prohibitedWording, dropped: version.droppedMarkup))
    }

    mutating func append(_ table: RateTable) {
        append(table.path)
        append(table.productKey)
        append(table.fileDate)
        append(table.mark)
        append(table.effectiveFrom)
        append(optional: table.effectiveTo) { $0.append($1) }
        append(raw: table.bureau)
        append(table.scale.rawValue)
        append(table.bandsMark)
        append(table.bands.count)
        for band in table.bands {
            append(band.mark)
            append(band.min)
            append(band.max)
            append(band.aprMin)
            append(band.aprMax)
            append(band.limitMax)
        }
        append(table.incompleteBands ? 1 : 0)
    }

    mutating func append(_ product: Product) {
        append(product.path)
        append(product.folderPartner)
        append(product.folderID)
        append(product.mark)
        append(product.id)
        append(product.partner)
        append(product.nameKo)
        append(optional: product.nameEn) { $0.append($1) }
        append(raw: product.kind)
        append(raw: product.status)
        append(product.repayment.count)
        for method in product.repayment { append(raw: method) }
        append(optional: product.repaymentMark) { $0.append($1) }
        append(product.termsMonths.mark)
        append(product.termsMonths.value.count)
        for months in product.termsMonths.value { append(months) }
        append(product.limitMin)
        append(product.limitMax)
        append(product.originationFee)
        append(product.earlyRepaymentFee)
        append(product.earlyRepaymentMonths)
        append(product.lateSpread)
        append(product.lateMax)
        append(product.requiredPhrases.mark)
        append(product.requiredPhrases.value.count)
        for phrase in product.requiredPhrases.value { append(phrase) }
        append(optional: product.description) { $0.append($1) }
        append(optional: product.policyProgram) { $0.append($1) }
        let disclosure = product.disclosure
        append(disclosure.mark)
        append(disclosure.reviewNumber)
        append(disclosure.reviewValidFrom)
        append(disclosure.reviewValidUntil)
        append(raw: disclosure.rateType)
        append(optional: disclosure.baseRate) { $0.append($1) }
        append(disclosure.rateComposition)
        append(disclosure.interestTiming)
        append(disclosure.incidentalCosts)
        append(disclosure.requiredCredit)
        let example = disclosure.repaymentExample
        append(example.mark)
        append(example.amount)
        append(example.apr)
        append(example.months)
        append(raw: example.method)
        append(example.total)
    }
}

extension CacheRecord.Reader {
    mutating func mark() -> SourceMark? {
        guard let line = int(), let column = int() else { return nil }
        return SourceMark(line: line, column: column)
    }

    mutating func day() -> Day? {
        guard let year = int(), let month = int(), let day = int() else { return nil }
        return Day(year: year, month: month, day: day)
    }

    mutating func locatedInt() -> Located<Int>? {
        guard let value = int(), let mark = mark() else { return nil }
        return Located(value, at: mark)
    }

    mutating func locatedString() -> Located<String>? {
        guard let value = string(), let mark = mark() else { return nil }
        return Located(value, at: mark)
    }

    mutating func locatedPercent() -> Located<Percent>? {
        guard let value = int(), let mark = mark() else { return nil }
        return Located(Percent(thousandths: value), at: mark)
    }

    mutating func locatedDay() -> Located<Day>? {
        guard let value = day(), let mark = mark() else { return nil }
        return Located(value, at: mark)
    }

    mutating func raw<Value: RawRepresentable<String>>() -> Located<Value>? {
        guard let text = string(), let value = Value(rawValue: text), let mark = mark() else { return nil }
        return Located(value, at: mark)
    }

    /// `.some(nil)` for a nil written, `.some(value)` for a value, nil when the bytes do not fit.
    mutating func optional<Value>(_ read: (inout Self) -> Value?) -> Value?? {
        switch int() {
        case 0: return .some(nil)
        case 1: return read(&self).map { .some($0) }
        default: return nil
        }
    }

    /// A count that the remaining bytes can hold (each item takes 8 bytes at least).
    mutating func count() -> Int? {
        guard let count = int(), count >= 0, count <= bytes.count / 8 else { return nil }
        return count
    }

    mutating func locatedBool() -> Located<Bool>? {
        guard let value = int(), value == 0 || value == 1, let mark = mark() else { return nil }
        return Located(value == 1, at: mark)
    }

    /// A terms version with an empty body (the caller cuts it from the text).
    mutating func termsVersion() -> TermsVersion? {
        guard let path = string(), let documentID = string(), let fileVersion = string(), let mark = mark(), let title = locatedString(),
            let version = locatedString(), let from = locatedDay(), let consent: Located<TermsVersion.Consent> = raw(),
            let reconsent = locatedBool(), let summary = locatedString(), let announced = optional({ $0.locatedDay() }),
            let namesPartners = optional({ $0.locatedBool() }), let bodyLine = int(), let scan = termsScan()
        else { return nil }
        return TermsVersion(
            path: path, documentID: documentID, fileVersion: fileVersion, mark: mark, title: title, version: version, effectiveFrom: from,
            consent: consent, requiresReconsent: reconsent, summary: summary, announcedOn: announced, namesPartners: namesPartners, text: .unread,
            bodyLine: bodyLine, prohibitedWording: scan.wording, droppedMarkup: scan.dropped)
    }

    mutating func rateTable() -> RateTable? {
        guard let path = string(), let productKey = string(), let fileDate = string(), let mark = mark(), let from = locatedDay(),
            let to = optional({ $0.locatedDay() }), let bureau: Located<RateTable.Bureau> = raw(),
            let scale = string().flatMap(RateTable.Scale.init(rawValue:)), let bandsMark = self.mark(), let count = count()
        else { return nil }
        var bands: [RateTable.Band] = []
        bands.reserveCapacity(count)
        for _ in 0..<count {
            guard let mark = self.mark(), let min = locatedInt(), let max = locatedInt(), let aprMin = locatedPercent(), let aprMax = locatedPercent(),
                let limit = locatedInt()
            else { return nil }
            bands.append(RateTable.Band(mark: mark, min: min, max: max, aprMin: aprMin, aprMax: aprMax, limitMax: limit))
        }
        guard let incomplete = int(), incomplete == 0 || incomplete == 1 else { return nil }
        return RateTable(
            path: path, productKey: productKey, fileDate: fileDate, mark: mark, effectiveFrom: from, effectiveTo: to, bureau: bureau, scale: scale,
            bandsMark: bandsMark, bands: bands, incompleteBands: incomplete == 1)
    }

    mutating func product() -> Product? {
        guard let path = string(), let folderPartner = string(), let folderID = string(), let mark = mark(), let id = locatedString(),
            let partner = locatedString(), let nameKo = locatedString(), let nameEn = optional({ $0.string() }),
            let kind: Located<Product.Kind> = raw(), let status: Located<Product.Status> = raw(), let methods = count()
        else { return nil }
        var repayment: [Located<Product.Repayment>] = []
        for _ in 0..<methods {
            guard let method: Located<Product.Repayment> = raw() else { return nil }
            repayment.append(method)
        }
        guard let repaymentMark = optional({ $0.mark() }), let termsMark = self.mark(), let termsCount = count() else { return nil }
        var terms: [Located<Int>] = []
        for _ in 0..<termsCount {
            guard let months = locatedInt() else { return nil }
            terms.append(months)
        }
        guard let limitMin = locatedInt(), let limitMax = locatedInt(), let origination = locatedInt(), let early = locatedPercent(),
            let earlyMonths = locatedInt(), let spread = locatedPercent(), let lateMax = locatedPercent(), let phrasesMark = self.mark(),
            let phraseCount = count()
        else { return nil }
        var phrases: [Located<String>] = []
        for _ in 0..<phraseCount {
            guard let phrase = locatedString() else { return nil }
            phrases.append(phrase)
        }
        guard let description = optional({ $0.locatedString() }), let program = optional({ $0.locatedString() }),
            let disclosureMark = self.mark(), let number = locatedString(), let from = locatedDay(), let until = locatedDay(),
            let rateType: Located<Product.RateType> = raw(), let baseRate = optional({ $0.locatedString() }), let composition = locatedString(),
            let timing = locatedString(), let costs = locatedString(), let credit = locatedString(), let exampleMark = self.mark(),
            let amount = locatedInt(), let apr = locatedPercent(), let months = locatedInt(), let method: Located<Product.Repayment> = raw(),
            let total = locatedInt()
        else { return nil }
        let example = Product.RepaymentExample(mark: exampleMark, amount: amount, apr: apr, months: months, method: method, total: total)
        let disclosure = Product.Disclosure(
            mark: disclosureMark, reviewNumber: number, reviewValidFrom: from, reviewValidUntil: until, rateType: rateType, baseRate: baseRate,
            rateComposition: composition, interestTiming: timing, incidentalCosts: costs, requiredCredit: credit, repaymentExample: example)
        return Product(
            path: path, folderPartner: folderPartner, folderID: folderID, mark: mark, id: id, partner: partner, nameKo: nameKo, nameEn: nameEn,
            kind: kind, status: status, repayment: repayment, repaymentMark: repaymentMark, termsMonths: Located(terms, at: termsMark),
            limitMin: limitMin, limitMax: limitMax, originationFee: origination, earlyRepaymentFee: early, earlyRepaymentMonths: earlyMonths,
            lateSpread: spread, lateMax: lateMax, requiredPhrases: Located(phrases, at: phrasesMark), description: description,
            policyProgram: program, disclosure: disclosure)
    }
}
