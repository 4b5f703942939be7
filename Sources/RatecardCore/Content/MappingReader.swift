import RatecardSupport

/// Reads the fields of one YAML mapping strictly, reporting every problem with its position.
///
/// Each accessor marks its key as known; `finish()` reports the keys nobody asked for. Values
/// are typed by policy: plain `true`/`false` are booleans, plain digits are numbers, quoted
/// scalars are always text, plain `~`/`null`/empty are absent.
package final class MappingReader {
    package let node: YAMLNode
    package let path: String
    package let diagnostics: Diagnostics
    private let pairs: [YAMLNode.Pair]
    /// The pairs whose key an accessor asked for, one bit per pair (keys are unique: the parser
    /// refuses duplicates), and the keys asked for that are absent. Together they are the known
    /// keys; a `Set<String>` per mapping cost a dozen hashes and a few allocations for every
    /// score band of every rate table.
    private var asked: UInt64 = 0
    private var askedBeyond: Set<Int> = []
    private var absent: [String] = []
    /// The fields this mapping may hold; when set, it (not what the accessors asked for) decides
    /// which keys are unknown, and every accessor must name one of its fields.
    package let table: FieldTable?
    /// The type of every value, for a mapping whose keys are names (`environments:`, `apps:`).
    package let valueType: FieldTable.FieldType?
    /// Keys reported by a rule of their own, not again as unknown.
    private var excused: Set<String> = []

    /// Returns nil (after reporting SCH-03) when `node` is not a mapping.
    package init?(_ node: YAMLNode, path: String, what: Message, diagnostics: Diagnostics, table: FieldTable? = nil, valueType: FieldTable.FieldType? = nil) {
        guard case .mapping(let pairs) = node.kind else {
            diagnostics.report(
                SchemaRules.wrongType, path, node.mark,
                Message("expected a mapping of fields for \(what), found a \(node.kindName)", ko: "\(what)은(는) '키: 값' 형태의 매핑이어야 합니다 (지금은 \(node.kindNameKorean))"))
            return nil
        }
        self.node = node
        self.path = path
        self.diagnostics = diagnostics
        self.pairs = pairs
        self.table = table
        self.valueType = valueType
    }

    /// The keys present, in file order.
    package var keys: [String] { pairs.compactMap(\.key.scalarText) }

    /// The raw value of `key`, or nil when absent or null; reports SCH-01 if required and absent.
    package func value(_ key: String, required: Bool) -> YAMLNode? {
        assert(table.map { $0.field(key) != nil } ?? true, "'\(key)' is read but not in the field table")
        if let index = pairs.firstIndex(where: { $0.key.scalarText == key }) {
            markAsked(index)
            if !pairs[index].value.isNull { return pairs[index].value }
        } else if !absent.contains(key) {
            absent.append(key)
        }
        if required {
            diagnostics.report(SchemaRules.missingField, path, node.mark, Message("missing required field '\(key)'", ko: "필수 필드 '\(key)'이(가) 없습니다"))
        }
        return nil
    }

    package func string(_ key: String, required: Bool = true) -> Located<String>? {
        guard let value = value(key, required: required) else { return nil }
        guard let text = Scalar.string(value, key: key, reader: self) else { return nil }
        if required && Self.isBlank(text.value) {
            diagnostics.report(SchemaRules.missingField, path, text.mark, Message("required field '\(key)' is empty", ko: "필수 필드 '\(key)'이(가) 비어 있습니다"))
            return nil
        }
        return text
    }

    /// Whether every Character is whitespace. A Character is whitespace when its first scalar is,
    /// so text starting with a visible ASCII character is not blank (the usual case, decided
    /// without breaking the text into Characters).
    package static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first > 0x20, first < 0x7F { return false }
        return text.allSatisfy(\.isWhitespace)
    }

    /// Where a key is written, if present.
    package func keyMark(_ key: String) -> SourceMark? {
        pairs.first { $0.key.scalarText == key }?.key.mark
    }

    package func integer(_ key: String, required: Bool = true) -> Located<Int>? {
        guard let value = value(key, required: required) else { return nil }
        return Scalar.integer(value, key: key, reader: self)
    }

    /// An integer amount of won (`*_krw`): a decimal is RNG-06, not a type error.
    package func krw(_ key: String, required: Bool = true) -> Located<Int>? {
        guard let value = value(key, required: required) else { return nil }
        return Scalar.krw(value, key: key, reader: self)
    }

    /// A rate or spread with at most 3 decimals (`*_pct`, `*_pp`).
    package func percent(_ key: String, required: Bool = true) -> Located<Percent>? {
        guard let value = value(key, required: required) else { return nil }
        return Scalar.percent(value, key: key, reader: self)
    }

    package func day(_ key: String, required: Bool = true) -> Located<Day>? {
        guard let value = value(key, required: required) else { return nil }
        return Scalar.day(value, key: key, reader: self)
    }

    package func bool(_ key: String, required: Bool = true) -> Located<Bool>? {
        guard let value = value(key, required: required) else { return nil }
        guard case .scalar(let text, let plain) = value.kind, plain, text == "true" || text == "false" else {
            let found = Scalar.describe(value)
            report(SchemaRules.wrongType, value, Message("'\(key)' must be true or false, found \(found)", ko: "'\(key)'에는 true 또는 false를 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        return Located(text == "true", at: value.mark)
    }

    package func choice<E: RawRepresentable & CaseIterable & Sendable>(_ key: String, required: Bool = true) -> Located<E>? where E.RawValue == String {
        guard let text = string(key, required: required) else { return nil }
        guard let value = E(rawValue: text.value) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            let message = Message(
                "'\(key)' is '\(text.value)', which is not one of: \(allowed)", ko: "'\(key)'의 값 '\(text.value)'은(는) 쓸 수 없습니다. 쓸 수 있는 값: \(allowed)")
            diagnostics.report(SchemaRules.notAllowed, path, text.mark, message.then(Suggestion.didYouMean(text.value, in: E.allCases.map(\.rawValue))))
            return nil
        }
        return Located(value, at: text.mark)
    }

    /// A list; reports SCH-03 when the value is not a list.
    package func list(_ key: String, required: Bool = true) -> Located<[YAMLNode]>? {
        guard let value = value(key, required: required) else { return nil }
        guard case .sequence(let items) = value.kind else {
            let found = Scalar.describe(value)
            report(SchemaRules.wrongType, value, Message("'\(key)' must be a list, found \(found)", ko: "'\(key)'에는 목록을 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        return Located(items, at: value.mark)
    }

    /// A list of text values.
    package func strings(_ key: String, required: Bool = true) -> Located<[Located<String>]>? {
        guard let items = list(key, required: required) else { return nil }
        return Located(items.value.compactMap { Scalar.string($0, key: key, reader: self) }, at: items.mark)
    }

    /// A nested mapping.
    package func mapping(_ key: String, required: Bool = true) -> MappingReader? {
        guard let value = value(key, required: required) else { return nil }
        var inner: FieldTable?
        var each: FieldTable.FieldType?
        switch table?.field(key)?.type ?? valueType {
        case .mapping(let nested): inner = nested
        case .named(let type, _): each = type
        default: break
        }
        return MappingReader(value, path: path, what: .verbatim("'\(key)'"), diagnostics: diagnostics, table: inner, valueType: each)
    }

    /// Reports every key that no accessor asked for (SCH-02).
    package func finish() {
        // The list of expected keys is only spelled out when there is an unknown one.
        var expected: String?
        for (index, pair) in pairs.enumerated() {
            guard let key = pair.key.scalarText else { continue }
            if let table { guard table.field(key) == nil, !excused.contains(key) else { continue } } else { guard !wasAsked(index) else { continue } }
            let list = expected ?? knownKeys().sorted().joined(separator: ", ")
            expected = list
            let message = Message("unknown field '\(key)'; expected one of: \(list)", ko: "알 수 없는 필드 '\(key)'; 쓸 수 있는 필드: \(list)")
            diagnostics.report(SchemaRules.unknownField, path, pair.key.mark, message.then(Suggestion.didYouMean(key, in: knownKeys())))
        }
    }

    /// Marks `key` as reported by another rule, so `finish()` does not call it unknown.
    package func excuse(_ key: String) {
        excused.insert(key)
        if let index = pairs.firstIndex(where: { $0.key.scalarText == key }) { markAsked(index) }
    }

    private func markAsked(_ index: Int) {
        if index < 64 { asked |= 1 << UInt64(index) } else { askedBeyond.insert(index) }
    }

    private func wasAsked(_ index: Int) -> Bool {
        index < 64 ? asked & (1 << UInt64(index)) != 0 : askedBeyond.contains(index)
    }

    /// The field table's keys, or every key an accessor asked for, each once.
    private func knownKeys() -> [String] {
        if let table { return table.names }
        return pairs.indices.filter(wasAsked).compactMap { pairs[$0].key.scalarText } + absent
    }

    package func report(_ rule: Rule, _ node: YAMLNode, _ message: Message) {
        diagnostics.report(rule, path, node.mark, message)
    }
}

/// Typing policy for scalars, shared by mappings and lists.
package enum Scalar {
    package static func describe(_ node: YAMLNode) -> Message {
        switch node.kind {
        case .scalar(let text, let plain):
            if !plain { return Message("text \"\(text)\"", ko: "텍스트 \"\(text)\"") }
            if text == "true" || text == "false" { return Message("boolean \(text)", ko: "참거짓 값 \(text)") }
            if Percent.parse(text) != nil { return Message("number \(text)", ko: "숫자 \(text)") }
            return .verbatim("'\(text)'")
        case .mapping: return Message("a mapping", ko: "매핑")
        case .sequence: return Message("a list", ko: "목록")
        }
    }

    package static func string(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<String>? {
        guard case .scalar(let text, let plain) = node.kind else {
            let found = describe(node)
            reader.report(SchemaRules.wrongType, node, Message("'\(key)' must be text, found \(found)", ko: "'\(key)'에는 텍스트를 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        if plain && (text == "true" || text == "false" || Percent.parse(text) != nil) {
            let found = describe(node)
            reader.report(
                SchemaRules.wrongType, node,
                Message("'\(key)' must be text, found \(found); put it in quotes", ko: "'\(key)'에는 텍스트를 써야 합니다 (지금 값: \(found)); 따옴표로 감싸세요"))
            return nil
        }
        return Located(text, at: node.mark)
    }

    package static func integer(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Int>? {
        guard case .scalar(let text, true) = node.kind, let value = Int(text), text.first != "+" else {
            let found = describe(node)
            reader.report(SchemaRules.wrongType, node, Message("'\(key)' must be a whole number, found \(found)", ko: "'\(key)'에는 정수를 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        return Located(value, at: node.mark)
    }

    package static func krw(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Int>? {
        guard case .scalar(let text, true) = node.kind, Int(text) != nil || isDecimal(text) else {
            let found = describe(node)
            reader.report(SchemaRules.wrongType, node, Message("'\(key)' must be a whole number of won, found \(found)", ko: "'\(key)'에는 원 단위 정수를 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        guard let value = Int(text), text.first != "+" else {
            reader.report(
                RangeRules.wholeWon, node,
                Message("'\(key)' is \(text); amounts in won are whole numbers (no decimals, no separators)", ko: "'\(key)' 값 \(text): 원 금액은 정수로 씁니다 (소수점과 자릿수 구분 기호 없이)"))
            return nil
        }
        return Located(value, at: node.mark)
    }

    /// Digits with one decimal point (`1500000.5`), of any length.
    package static func isDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    package static func percent(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Percent>? {
        guard case .scalar(let text, true) = node.kind, let (value, decimals) = Percent.parse(text) else {
            let found = describe(node)
            reader.report(SchemaRules.wrongType, node, Message("'\(key)' must be a number, found \(found)", ko: "'\(key)'에는 숫자를 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        if decimals > 3 {
            reader.report(
                RangeRules.precision, node, Message("'\(key)' is \(text) with \(decimals) decimals; rates have at most 3", ko: "'\(key)' 값 \(text)은(는) 소수점 아래 \(decimals)자리입니다; 금리는 소수점 아래 3자리까지 씁니다"))
        }
        return Located(value, at: node.mark)
    }

    package static func day(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Day>? {
        guard case .scalar(let text, _) = node.kind else {
            let found = describe(node)
            reader.report(SchemaRules.wrongType, node, Message("'\(key)' must be a date (YYYY-MM-DD), found \(found)", ko: "'\(key)'에는 날짜(YYYY-MM-DD)를 써야 합니다 (지금 값: \(found))"))
            return nil
        }
        guard let day = Day(text) else {
            reader.report(
                SchemaRules.date, node, Message("'\(key)' is '\(text)', which is not a real date in YYYY-MM-DD form", ko: "'\(key)'의 값 '\(text)'은(는) YYYY-MM-DD 형식의 실제 날짜가 아닙니다"))
            return nil
        }
        return Located(day, at: node.mark)
    }
}
