/// Reads JSON that ratecard itself wrote (manifests, journals, version files) into `JSON`.
///
/// JSON is a subset of YAML, so the strict libyaml reader parses it; quoted scalars are strings,
/// plain ones are numbers, booleans or null.
public enum JSONReader {
    public static func parse(_ bytes: [UInt8]) throws -> JSON {
        let text = try SourceText.decode(bytes)
        guard let node = try YAMLParser.parse(Array(text.utf8)) else { throw OperationalError("empty JSON document") }
        return value(node)
    }

    static func value(_ node: YAMLNode) -> JSON {
        switch node.kind {
        case .scalar(let text, let plain):
            guard plain else { return .string(text) }
            if text == "true" || text == "false" { return .bool(text == "true") }
            if text == "null" || text.isEmpty { return .null }
            if let int = Int(text) { return .int(int) }
            return .number(text)
        case .sequence(let items): return .array(items.map(value))
        case .mapping(let pairs):
            var fields: [String: JSON] = [:]
            for pair in pairs { if let key = pair.key.scalarText { fields[key] = value(pair.value) } }
            return .object(fields)
        }
    }
}

extension JSON {
    public subscript(key: String) -> JSON? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
