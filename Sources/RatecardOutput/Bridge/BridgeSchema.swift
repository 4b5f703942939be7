import RatecardCore
import RatecardSupport

/// `bridge.yaml`: every message between the app and its web view, with the bridge version
/// that introduced it. The app's Swift, the web build's runtime and its types are generated
/// from it (`ratecard bridge generate`), and publish checks the web build against it.
///
/// ```yaml
/// bridge: {name: ratecard, version: 3}
/// commands:                      # web -> native, each with typed params and reply
///   open_product:
///     since: 1
///     params: {key: string}
/// events:                        # native -> web
///   identity_verification_finished:
///     since: 3
///     payload: {result: {enum: [verified, cancelled, failed]}}
/// ```
public struct BridgeSchema: Sendable, Equatable {
    public static let fileName = "bridge.yaml"

    public var path: String
    public var name: String
    public var version: Int
    /// Web -> native, sorted by name.
    public var commands: [BridgeMessage]
    /// Native -> web, sorted by name.
    public var events: [BridgeMessage]
    /// sha256 of the schema file, shortened: embedded in everything generated from it.
    public var fingerprint: String

    public func command(_ name: String) -> BridgeMessage? { commands.first { $0.name == name } }
    public func event(_ name: String) -> BridgeMessage? { events.first { $0.name == name } }

    /// Reads `bytes` strictly; every problem goes to `diagnostics` with its position.
    public static func parse(_ bytes: [UInt8], path: String, diagnostics: Diagnostics) -> BridgeSchema? {
        let root: YAMLNode
        do {
            try SourceText.check(bytes)
            guard let node = try YAMLParser.parse(bytes) else {
                diagnostics.report(
                    BridgeRules.schema, path, .start, Message("the bridge schema is empty; it needs 'bridge', 'commands' and 'events'", ko: "브리지 스키마가 비어 있습니다; 'bridge', 'commands', 'events'가 있어야 합니다")
                )
                return nil
            }
            root = node
        } catch {
            diagnostics.report(FileRules.rule(for: error), path, error.mark, FileRules.message(for: error, in: bytes))
            return nil
        }
        let before = diagnostics.items.count
        guard let top = MappingReader(root, path: path, what: Message("the bridge schema", ko: "브리지 스키마"), diagnostics: diagnostics, table: FieldTables.bridge) else {
            return nil
        }
        var reader = SchemaReader(path: path, diagnostics: diagnostics)
        var name = ""
        var version = 0
        if let header = top.mapping("bridge") {
            if let text = header.string("name") {
                name = text.value
                reader.checkName(text.value, at: text.mark, what: Message("bridge name", ko: "브리지 이름"))
            }
            if let number = header.integer("version") {
                version = number.value
                if number.value < 1 {
                    diagnostics.report(
                        BridgeRules.version, path, number.mark, Message("'version' is \(number.value); bridge versions start at 1", ko: "'version' 값이 \(number.value)입니다; 브리지 버전은 1부터 시작합니다"))
                }
            }
            header.finish()
        }
        let commands = reader.messages(top.mapping("commands", required: false), direction: .command, schemaVersion: version)
        let events = reader.messages(top.mapping("events", required: false), direction: .event, schemaVersion: version)
        top.finish()
        guard diagnostics.items.count == before else { return nil }
        return BridgeSchema(
            path: path, name: name, version: version, commands: commands.sorted { $0.name < $1.name },
            events: events.sorted { $0.name < $1.name }, fingerprint: String(SHA256.hex(bytes).prefix(16)))
    }

    /// Reads `<web>/bridge.yaml` from disk; nil (and no finding) when the web build has none.
    public static func load(webFolder: String, displayPath: String, diagnostics: Diagnostics) throws -> BridgeSchema? {
        let file = webFolder + "/" + fileName
        guard FileSystem.exists(file) else { return nil }
        return parse(try FileSystem.readFile(file), path: displayPath, diagnostics: diagnostics)
    }
}

/// One message of the bridge.
public struct BridgeMessage: Sendable, Equatable {
    public enum Direction: Sendable, Equatable {
        /// Web -> native, answered with a reply.
        case command
        /// Native -> web, not answered.
        case event
    }

    public var name: String
    public var direction: Direction
    public var since: Int
    public var summary: String?
    /// Why it is deprecated and what to use instead, if it is.
    public var deprecated: String?
    /// Params of a command, payload of an event.
    public var fields: [BridgeField]
    /// A command's reply fields (empty: the reply carries nothing but success).
    public var reply: [BridgeField]
    public var mark: SourceMark
}

public struct BridgeField: Sendable, Equatable {
    public var name: String
    public var type: BridgeType
}

/// The types a message can carry. Objects and enums are named after where they appear
/// (`HapticParamsStyle`), so generated code can declare them.
public indirect enum BridgeType: Sendable, Equatable {
    case string
    case integer
    case number
    case boolean
    case enumeration(name: String, cases: [String])
    case optional(BridgeType)
    case array(BridgeType)
    case object(name: String, fields: [BridgeField])

    public static let primitives = ["string", "integer", "number", "boolean"]

    /// The named types (enums and objects) `fields` use, innermost first, each once across
    /// calls sharing `declared`: the order every generator declares them in.
    static func namedTypes(in fields: [BridgeField], declared: inout Set<String>) -> [BridgeType] {
        var found: [BridgeType] = []
        func visit(_ type: BridgeType) {
            switch type {
            case .string, .integer, .number, .boolean: return
            case .optional(let inner), .array(let inner): visit(inner)
            case .enumeration(let name, _):
                if declared.insert(name).inserted { found.append(type) }
            case .object(let name, let fields):
                for field in fields { visit(field.type) }
                if declared.insert(name).inserted { found.append(type) }
            }
        }
        for field in fields { visit(field.type) }
        return found
    }
}

/// Walks the schema's YAML, reporting every problem at its node.
private struct SchemaReader {
    let path: String
    let diagnostics: Diagnostics

    func checkName(_ name: String, at mark: SourceMark, what: Message) {
        let valid =
            !name.isEmpty && name.count <= 63 && name.first!.isASCII && name.first!.isLowercase
            && name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" }
        if !valid {
            diagnostics.report(BridgeRules.schema, path, mark, Message("\(what) '\(name)' must match ^[a-z][a-z0-9_]{0,62}$", ko: "\(what) '\(name)'은(는) ^[a-z][a-z0-9_]{0,62}$ 형식이어야 합니다"))
        }
    }

    mutating func messages(_ reader: MappingReader?, direction: BridgeMessage.Direction, schemaVersion: Int) -> [BridgeMessage] {
        guard let reader else { return [] }
        defer { reader.finish() }
        var result: [BridgeMessage] = []
        for name in reader.keys {
            let mark = reader.keyMark(name) ?? reader.node.mark
            checkName(name, at: mark, what: direction == .command ? Message("command name", ko: "명령 이름") : Message("event name", ko: "이벤트 이름"))
            guard let entry = reader.mapping(name) else { continue }
            defer { entry.finish() }
            var since = 0
            if let value = entry.integer("since") {
                since = value.value
                if value.value < 1 {
                    diagnostics.report(BridgeRules.version, path, value.mark, Message("'since' is \(value.value); bridge versions start at 1", ko: "'since' 값이 \(value.value)입니다; 브리지 버전은 1부터 시작합니다"))
                } else if schemaVersion > 0 && value.value > schemaVersion {
                    diagnostics.report(
                        BridgeRules.version, path, value.mark,
                        Message(
                            "'\(name)' is since bridge \(value.value), after the schema's own version \(schemaVersion); raise 'bridge.version' to \(value.value)",
                            ko: "'\(name)'은(는) 브리지 \(value.value)부터인데, 스키마 자체 버전 \(schemaVersion)보다 나중입니다; 'bridge.version'을 \(value.value)(으)로 올리세요"))
                }
            }
            let summary = entry.string("summary", required: false)?.value
            let deprecated = entry.string("deprecated", required: false)?.value
            let prefix = Self.pascal(name)
            let fieldsKey = direction == .command ? "params" : "payload"
            let fields = objectFields(entry.value(fieldsKey, required: false), typeName: prefix + (direction == .command ? "Params" : "Event"))
            var reply: [BridgeField] = []
            if direction == .command {
                reply = objectFields(entry.value("reply", required: false), typeName: prefix + "Reply")
            }
            result.append(BridgeMessage(name: name, direction: direction, since: since, summary: summary, deprecated: deprecated, fields: fields, reply: reply, mark: mark))
        }
        return result
    }

    /// The fields of an object type written as a mapping of name -> type.
    func objectFields(_ node: YAMLNode?, typeName: String) -> [BridgeField] {
        guard let node else { return [] }
        guard case .mapping(let pairs) = node.kind else {
            let found = Scalar.describe(node)
            diagnostics.report(
                BridgeRules.schema, path, node.mark, Message("expected a mapping of field names to types, found \(found)", ko: "필드 이름과 타입의 매핑이 와야 합니다 (지금 값: \(found))"))
            return []
        }
        var fields: [BridgeField] = []
        for pair in pairs {
            guard let name = pair.key.scalarText else { continue }
            checkName(name, at: pair.key.mark, what: Message("field name", ko: "필드 이름"))
            if let type = type(pair.value, typeName: typeName + Self.pascal(name)) {
                fields.append(BridgeField(name: name, type: type))
            }
        }
        return fields
    }

    /// A type: `string`, `integer`, `number`, `boolean`, or one of `{enum: [..]}`,
    /// `{optional: T}`, `{array: T}`, `{object: {field: T}}`.
    func type(_ node: YAMLNode, typeName: String) -> BridgeType? {
        switch node.kind {
        case .scalar(let text, _):
            switch text {
            case "string": return .string
            case "integer": return .integer
            case "number": return .number
            case "boolean": return .boolean
            default:
                let hint = Suggestion.didYouMean(text, in: BridgeType.primitives + ["enum", "optional", "array", "object"])
                let kinds = "string, integer, number, boolean, {enum: [...]}, {optional: T}, {array: T}, {object: {...}}"
                diagnostics.report(
                    BridgeRules.schema, path, node.mark,
                    Message("unknown type '\(text)'; a type is one of \(kinds)", ko: "알 수 없는 타입 '\(text)'; 타입은 다음 중 하나입니다: \(kinds)").then(hint))
                return nil
            }
        case .sequence:
            diagnostics.report(BridgeRules.schema, path, node.mark, Message("a type cannot be a list; for a list of values write {array: T}", ko: "타입은 목록일 수 없습니다; 값의 목록은 {array: T}로 쓰세요"))
            return nil
        case .mapping(let pairs):
            guard pairs.count == 1, let kind = pairs[0].key.scalarText else {
                diagnostics.report(
                    BridgeRules.schema, path, node.mark,
                    Message("a composite type is a mapping with exactly one of enum, optional, array, object", ko: "복합 타입은 'enum', 'optional', 'array', 'object' 중 정확히 하나를 키로 가진 매핑입니다"))
                return nil
            }
            let inner = pairs[0].value
            switch kind {
            case "optional":
                guard let wrapped = type(inner, typeName: typeName) else { return nil }
                if case .optional = wrapped {
                    diagnostics.report(
                        BridgeRules.schema, path, inner.mark,
                        Message("an optional of an optional says nothing more; write {optional: T} once", ko: "optional을 두 번 겹쳐도 뜻이 달라지지 않습니다; {optional: T}는 한 번만 쓰세요"))
                    return nil
                }
                return .optional(wrapped)
            case "array":
                return type(inner, typeName: typeName + "Item").map(BridgeType.array)
            case "object":
                return .object(name: typeName, fields: objectFields(inner, typeName: typeName))
            case "enum":
                guard case .sequence(let items) = inner.kind, !items.isEmpty else {
                    diagnostics.report(BridgeRules.schema, path, inner.mark, Message("'enum' needs a non-empty list of values", ko: "'enum'에는 비어 있지 않은 값 목록이 필요합니다"))
                    return nil
                }
                var cases: [String] = []
                for item in items {
                    guard let value = item.scalarText else {
                        let found = Scalar.describe(item)
                        diagnostics.report(BridgeRules.schema, path, item.mark, Message("an enum value must be text, found \(found)", ko: "enum 값은 텍스트여야 합니다 (지금 값: \(found))"))
                        continue
                    }
                    checkName(value, at: item.mark, what: Message("enum value", ko: "enum 값"))
                    if cases.contains(value) {
                        diagnostics.report(BridgeRules.schema, path, item.mark, Message("enum value '\(value)' is listed twice", ko: "enum 값 '\(value)'이(가) 두 번 나옵니다"))
                    }
                    cases.append(value)
                }
                return .enumeration(name: typeName, cases: cases)
            default:
                let hint = Suggestion.didYouMean(kind, in: ["enum", "optional", "array", "object"])
                diagnostics.report(
                    BridgeRules.schema, path, pairs[0].key.mark,
                    Message("unknown type '\(kind)'; a composite type is one of enum, optional, array, object", ko: "알 수 없는 타입 '\(kind)'; 복합 타입은 'enum', 'optional', 'array', 'object' 중 하나입니다")
                        .then(hint))
                return nil
            }
        }
    }

    /// `open_product` -> `OpenProduct`.
    static func pascal(_ name: String) -> String {
        name.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

extension BridgeSchema {
    /// `open_product` -> `OpenProduct`, as generated names spell it.
    public static func pascal(_ name: String) -> String { SchemaReader.pascal(name) }

    /// `open_product` -> `openProduct`.
    public static func camel(_ name: String) -> String {
        let p = pascal(name)
        return p.prefix(1).lowercased() + p.dropFirst()
    }
}
