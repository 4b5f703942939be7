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
            throw OperationalError("\(source) is malformed: \(reason(error))")
        }
    }

    /// What a decoding error means for one of our files, in words: `it is not JSON`,
    /// `it has no "time"`, `"to" is not a string`.
    public static func reason(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = field(context.codingPath)
            return "it has no \"\(key.stringValue)\"" + (parent.isEmpty ? "" : " in \"\(parent)\"")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else { return "it is not a JSON object" }
            let name = type == String.self ? "a string" : type == Int.self ? "a whole number" : type == Bool.self ? "true or false" : "\(type)"
            return "\"\(field(context.codingPath))\" is not \(name)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "\"\(field(context.codingPath))\" is unreadable"
        @unknown default:
            return "\(error)"
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
