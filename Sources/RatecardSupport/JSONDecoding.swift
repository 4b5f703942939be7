import Foundation

/// Reading our own small JSON files (journal entries, bridge-lines.json, the S3 lock) through
/// Codable. The two listings (a bundle's `data/manifest.json` and a release's version.json,
/// thousands of files each) keep `JSONReader.parseListingFiles`: see docs/decisions/0002 for why.
public enum JSONDecoding {
    /// Decodes `bytes`; a failure names `source` and says what is wrong, in words.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], source: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            let why = reason(error)
            throw OperationalError("\(source) is malformed: \(why)", ko: "\(source)의 형식이 잘못되었습니다: \(why)")
        }
    }

    /// What a decoding error means for one of our files, in words: `it is not JSON`,
    /// `it has no "time"`, `"to" is not a string`.
    public static func reason(_ error: DecodingError) -> Message {
        func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = field(context.codingPath)
            return parent.isEmpty
                ? Message("it has no \"\(key.stringValue)\"", ko: "\"\(key.stringValue)\" 항목이 없습니다")
                : Message("it has no \"\(key.stringValue)\" in \"\(parent)\"", ko: "\"\(parent)\" 안에 \"\(key.stringValue)\" 항목이 없습니다")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else { return Message("it is not a JSON object", ko: "JSON 객체가 아닙니다") }
            let name: Message =
                type == String.self
                ? Message("a string", ko: "문자열") : type == Int.self ? Message("a whole number", ko: "정수") : type == Bool.self ? Message("true or false", ko: "true나 false") : .verbatim("\(type)")
            return Message("\"\(field(context.codingPath))\" is not \(name)", ko: "\"\(field(context.codingPath))\" 값이 \(name)이(가) 아닙니다")
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? Message("it is not JSON", ko: "JSON이 아닙니다") : Message("\"\(field(context.codingPath))\" is unreadable", ko: "\"\(field(context.codingPath))\" 값을 읽을 수 없습니다")
        @unknown default:
            return .verbatim("\(error)")
        }
    }
}

/// `JSON` read through Codable: for the parts of our own files that are shown or kept as they
/// are (a journal entry in `log --format json`, the S3 lock's holder) rather than read field by
/// field.
extension JSON: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            // Our files hold decimals as strings; a number that is not an Int keeps its value.
            self = .number("\(value)")
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }
}
