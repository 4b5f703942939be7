import RatecardSupport

/// The fields one kind of YAML mapping may hold: what the loader's readers accept (their
/// unknown-field check, SCH-02, consults it) and what `ratecard schema` writes as a JSON Schema,
/// so the two cannot drift.
package struct FieldTable: Sendable {
    package var fields: [Field]
    /// Fields that rule others out: with the key present, none of its fields may be.
    package var excludes: [String: [String]]

    package init(_ fields: [Field], excludes: [String: [String]] = [:]) {
        self.fields = fields
        self.excludes = excludes
    }

    package func field(_ name: String) -> Field? { fields.first { $0.name == name } }

    package var names: [String] { fields.map(\.name) }

    /// One field: its key, its type, whether it is required, and what it means.
    package struct Field: Sendable {
        package var name: String
        package var type: FieldType
        package var required: Bool
        package var about: Message

        package init(_ name: String, _ type: FieldType, required: Bool = true, _ about: Message) {
            self.name = name
            self.type = type
            self.required = required
            self.about = about
        }
    }

    /// What a value may be, with its unit.
    package indirect enum FieldType: Sendable {
        case text
        /// Text of a given form (a regular expression).
        case pattern(String)
        /// An id: lowercase letters, digits and hyphens (SCH-05; that it equals the file's name
        /// is for `validate`).
        case identifier
        case integer
        /// A whole number of won (`*_krw`).
        case krw
        /// A rate or spread with at most three decimals (`*_pct`, `*_pp`).
        case percent
        /// A date, `YYYY-MM-DD`.
        case day
        case bool
        /// One of the listed words.
        case choice([String])
        case list(FieldType)
        case mapping(FieldTable)
        /// A mapping from names (lowercase letters, digits, hyphens) to values of one type.
        case named(FieldType, pattern: String)
        /// A value of a shape a table cannot say (a recursive grammar), given as a JSON Schema of
        /// its own under the kind's `$defs` and read by the file's own reader.
        case reference(String)
    }
}

extension FieldTable {
    /// A draft 2020-12 JSON Schema of a mapping with these fields.
    package func jsonSchema(title: String, about: Message, only: Message?, definitions: [String: JSON] = [:]) -> JSON {
        var schema = objectSchema()
        if !definitions.isEmpty { schema["$defs"] = .object(definitions) }
        schema["$schema"] = .string("https://json-schema.org/draft/2020-12/schema")
        schema["title"] = .string(title)
        let english = [about.english, only?.english].compactMap { $0 }.joined(separator: " ")
        let korean = [about.korean, only?.korean].compactMap { $0 }.joined(separator: " ")
        schema["description"] = .string("\(english)\n\n\(korean)")
        return .object(schema)
    }

    private func objectSchema() -> [String: JSON] {
        var properties: [String: JSON] = [:]
        for field in fields {
            var property = Self.schema(of: field.type, required: field.required)
            if !field.required, case .string(let type) = property["type"] {
                // The loader reads an optional field written with no value (`~`, empty) as absent.
                property["type"] = .array([.string(type), .string("null")])
                if case .array(let words) = property["enum"] { property["enum"] = .array(words + [.null]) }
            }
            let unit = Self.unit(of: field.type)
            property["description"] = .string("\(field.about.english)\(unit.english)\n\n\(field.about.korean)\(unit.korean)")
            properties[field.name] = .object(property)
        }
        var schema: [String: JSON] = [
            "type": .string("object"), "properties": .object(properties), "additionalProperties": .bool(false),
            "required": .array(fields.filter(\.required).map { .string($0.name) }),
        ]
        if !excludes.isEmpty {
            var dependent: [String: JSON] = [:]
            for (key, names) in excludes {
                var ruledOut: [String: JSON] = [:]
                for name in names { ruledOut[name] = .bool(false) }
                dependent[key] = .object(["properties": .object(ruledOut)])
            }
            schema["dependentSchemas"] = .object(dependent)
        }
        return schema
    }

    private static func unit(of type: FieldType) -> (english: String, korean: String) {
        switch type {
        case .krw: return (" Unit: won, a whole number.", " 단위: 원 (정수).")
        case .percent: return (" Unit: percent, at most three decimals.", " 단위: % (소수점 아래 3자리까지).")
        case .day: return (" A date, YYYY-MM-DD.", " 날짜 (YYYY-MM-DD).")
        default: return ("", "")
        }
    }

    private static func schema(of type: FieldType, required: Bool) -> [String: JSON] {
        switch type {
        case .text: return ["type": .string("string")].merging(required ? ["minLength": .int(1)] : [:]) { $1 }
        case .pattern(let pattern): return ["type": .string("string"), "pattern": .string(pattern)]
        case .identifier: return ["type": .string("string"), "pattern": .string("^[a-z0-9][a-z0-9-]{0,62}$")]
        case .integer: return ["type": .string("integer")]
        case .krw: return ["type": .string("integer")]
        case .percent: return ["type": .string("number"), "multipleOf": .number("0.001")]
        case .day: return ["type": .string("string"), "pattern": .string("^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
        case .bool: return ["type": .string("boolean")]
        case .choice(let words): return ["type": .string("string"), "enum": .array(words.map { .string($0) })]
        case .list(let item): return ["type": .string("array"), "items": .object(schema(of: item, required: false))]
        case .mapping(let table): return table.objectSchema()
        case .named(let value, let pattern):
            return [
                "type": .string("object"), "propertyNames": .object(["pattern": .string(pattern)]),
                "additionalProperties": .object(schema(of: value, required: true)),
            ]
        case .reference(let name): return ["$ref": .string("#/$defs/\(name)")]
        }
    }
}
