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

    /// Returns nil (after reporting SCH-03) when `node` is not a mapping.
    package init?(_ node: YAMLNode, path: String, what: String, diagnostics: Diagnostics) {
        guard case .mapping(let pairs) = node.kind else {
            diagnostics.report(SchemaRules.wrongType, path, node.mark, "expected a mapping of fields for \(what), found a \(node.kindName)")
            return nil
        }
        self.node = node
        self.path = path
        self.diagnostics = diagnostics
        self.pairs = pairs
    }

    /// The keys present, in file order.
    package var keys: [String] { pairs.compactMap(\.key.scalarText) }

    /// The raw value of `key`, or nil when absent or null; reports SCH-01 if required and absent.
    package func value(_ key: String, required: Bool) -> YAMLNode? {
        if let index = pairs.firstIndex(where: { $0.key.scalarText == key }) {
            markAsked(index)
            if !pairs[index].value.isNull { return pairs[index].value }
        } else if !absent.contains(key) {
            absent.append(key)
        }
        if required {
            diagnostics.report(SchemaRules.missingField, path, node.mark, "missing required field '\(key)'")
        }
        return nil
    }

    package func string(_ key: String, required: Bool = true) -> Located<String>? {
        guard let value = value(key, required: required) else { return nil }
        guard let text = Scalar.string(value, key: key, reader: self) else { return nil }
        if required && Self.isBlank(text.value) {
            diagnostics.report(SchemaRules.missingField, path, text.mark, "required field '\(key)' is empty")
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
            report(SchemaRules.wrongType, value, "'\(key)' must be true or false, found \(Scalar.describe(value))")
            return nil
        }
        return Located(text == "true", at: value.mark)
    }

    package func choice<E: RawRepresentable & CaseIterable & Sendable>(_ key: String, required: Bool = true) -> Located<E>? where E.RawValue == String {
        guard let text = string(key, required: required) else { return nil }
        guard let value = E(rawValue: text.value) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            let hint = Suggestion.didYouMean(text.value, in: E.allCases.map(\.rawValue)).map { "; " + $0 } ?? ""
            diagnostics.report(SchemaRules.notAllowed, path, text.mark, "'\(key)' is '\(text.value)', which is not one of: \(allowed)\(hint)")
            return nil
        }
        return Located(value, at: text.mark)
    }

    /// A list; reports SCH-03 when the value is not a list.
    package func list(_ key: String, required: Bool = true) -> Located<[YAMLNode]>? {
        guard let value = value(key, required: required) else { return nil }
        guard case .sequence(let items) = value.kind else {
            report(SchemaRules.wrongType, value, "'\(key)' must be a list, found \(Scalar.describe(value))")
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
        return MappingReader(value, path: path, what: "'\(key)'", diagnostics: diagnostics)
    }

    /// Reports every key that no accessor asked for (SCH-02).
    package func finish() {
        // The list of expected keys is only spelled out when there is an unknown one.
        var expected: String?
        for (index, pair) in pairs.enumerated() {
            guard !wasAsked(index), let key = pair.key.scalarText else { continue }
            let list = expected ?? knownKeys().sorted().joined(separator: ", ")
            expected = list
            let hint = Suggestion.didYouMean(key, in: knownKeys()).map { "; " + $0 } ?? ""
            diagnostics.report(SchemaRules.unknownField, path, pair.key.mark, "unknown field '\(key)'; expected one of: \(list)\(hint)")
        }
    }

    private func markAsked(_ index: Int) {
        if index < 64 { asked |= 1 << UInt64(index) } else { askedBeyond.insert(index) }
    }

    private func wasAsked(_ index: Int) -> Bool {
        index < 64 ? asked & (1 << UInt64(index)) != 0 : askedBeyond.contains(index)
    }

    /// Every key an accessor asked for, each once.
    private func knownKeys() -> [String] {
        pairs.indices.filter(wasAsked).compactMap { pairs[$0].key.scalarText } + absent
    }

    package func report(_ rule: Rule, _ node: YAMLNode, _ message: String) {
        diagnostics.report(rule, path, node.mark, message)
    }
}

/// Typing policy for scalars, shared by mappings and lists.
package enum Scalar {
    package static func describe(_ node: YAMLNode) -> String {
        switch node.kind {
        case .scalar(let text, let plain):
            if !plain { return "text \"\(text)\"" }
            if text == "true" || text == "false" { return "boolean \(text)" }
            if Percent.parse(text) != nil { return "number \(text)" }
            return "'\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    package static func string(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<String>? {
        guard case .scalar(let text, let plain) = node.kind else {
            reader.report(SchemaRules.wrongType, node, "'\(key)' must be text, found \(describe(node))")
            return nil
        }
        if plain && (text == "true" || text == "false" || Percent.parse(text) != nil) {
            reader.report(SchemaRules.wrongType, node, "'\(key)' must be text, found \(describe(node)); put it in quotes")
            return nil
        }
        return Located(text, at: node.mark)
    }

    package static func integer(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Int>? {
        guard case .scalar(let text, true) = node.kind, let value = Int(text), text.first != "+" else {
            reader.report(SchemaRules.wrongType, node, "'\(key)' must be a whole number, found \(describe(node))")
            return nil
        }
        return Located(value, at: node.mark)
    }

    package static func krw(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Int>? {
        guard case .scalar(let text, true) = node.kind, Int(text) != nil || isDecimal(text) else {
            reader.report(SchemaRules.wrongType, node, "'\(key)' must be a whole number of won, found \(describe(node))")
            return nil
        }
        guard let value = Int(text), text.first != "+" else {
            reader.report(RangeRules.wholeWon, node, "'\(key)' is \(text); amounts in won are whole numbers (no decimals, no separators)")
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
            reader.report(SchemaRules.wrongType, node, "'\(key)' must be a number, found \(describe(node))")
            return nil
        }
        if decimals > 3 {
            reader.report(RangeRules.precision, node, "'\(key)' is \(text) with \(decimals) decimals; rates have at most 3")
        }
        return Located(value, at: node.mark)
    }

    package static func day(_ node: YAMLNode, key: String, reader: MappingReader) -> Located<Day>? {
        guard case .scalar(let text, _) = node.kind else {
            reader.report(SchemaRules.wrongType, node, "'\(key)' must be a date (YYYY-MM-DD), found \(describe(node))")
            return nil
        }
        guard let day = Day(text) else {
            reader.report(SchemaRules.date, node, "'\(key)' is '\(text)', which is not a real date in YYYY-MM-DD form")
            return nil
        }
        return Located(day, at: node.mark)
    }
}
