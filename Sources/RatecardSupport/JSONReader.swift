/// Reads JSON that ratecard itself wrote into `JSON`: the listings (manifests, version files),
/// where `JSONDecoder` measured five to seven times slower (docs/decisions/0002), and the data
/// documents an incremental build reads back.
///
/// A strict RFC 8259 reader over the bytes: strings are strings, numbers that fit an `Int` are
/// `.int` and other numbers keep their text, duplicate keys are an error. It used to go through
/// the YAML reader, which refuses files over 1 MiB (content files are capped there) and so
/// could not read the version.json of a release of 11,600 files with carried data folders.
public enum JSONReader {
    public static func parse(_ bytes: [UInt8]) throws -> JSON {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw OperationalError("JSON is not valid UTF-8", ko: "JSON이 올바른 UTF-8이 아닙니다") }
        var reader = ByteReader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.index < bytes.count else { throw OperationalError("empty JSON document", ko: "JSON 문서가 비어 있습니다") }
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the JSON value", ko: "JSON 값 뒤에 다른 내용이 있습니다") }
        return value
    }

    /// A version.json or manifest: the document, with its top-level `files` list (thousands of
    /// `{"path", "sha256", "size"}` objects) read straight into `ListingFile`s instead
    /// of a dictionary each (`files` is `.null` in the document returned).
    package static func parseListingFiles(_ bytes: [UInt8]) throws -> (JSON, [ListingFile]) {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw OperationalError("JSON is not valid UTF-8", ko: "JSON이 올바른 UTF-8이 아닙니다") }
        var reader = ByteReader(bytes: bytes)
        reader.collectFiles = true
        reader.skipWhitespace()
        guard reader.index < bytes.count else { throw OperationalError("empty JSON document", ko: "JSON 문서가 비어 있습니다") }
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the JSON value", ko: "JSON 값 뒤에 다른 내용이 있습니다") }
        return (value, reader.files)
    }

    private struct ByteReader {
        let bytes: [UInt8]
        var index = 0
        var collectFiles = false
        var files: [ListingFile] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func failure(_ english: String, ko korean: Korean) -> OperationalError {
            OperationalError("malformed JSON at byte \(index): \(english)", ko: "JSON 형식이 잘못되었습니다 (\(index)번째 바이트): \(korean)")
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < 512 else { throw failure("nested too deeply", ko: "너무 깊게 중첩되어 있습니다") }
            guard index < bytes.count else { throw failure("unexpected end", ko: "예상보다 일찍 끝납니다") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("unexpected character", ko: "예상하지 못한 문자가 있습니다")
            }
        }

        mutating func object(depth: Int) throws -> JSON {
            index += 1
            var fields: [String: JSON] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            while true {
                let key = try keyAndColon()
                let item: JSON
                if collectFiles, depth == 0, key == "files" {
                    files = try fileList()
                    item = .null
                } else {
                    item = try value(depth: depth + 1)
                }
                guard fields.updateValue(item, forKey: key) == nil else { throw failure("duplicate key '\(key)'", ko: "키 '\(key)'이(가) 두 번 나옵니다") }
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end", ko: "예상보다 일찍 끝납니다") }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(fields)
                default: throw failure("expected ',' or '}'", ko: "',' 또는 '}' 기호가 있어야 합니다")
                }
            }
        }

        mutating func array(depth: Int) throws -> JSON {
            index += 1
            var items: [JSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end", ko: "예상보다 일찍 끝납니다") }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(items)
                default: throw failure("expected ',' or ']'", ko: "',' 또는 ']' 기호가 있어야 합니다")
                }
            }
        }

        /// An object's `"key":` and the whitespace around it, up to its value.
        mutating func keyAndColon() throws -> String {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key", ko: "키가 있어야 합니다") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'", ko: "':' 기호가 있어야 합니다") }
            index += 1
            skipWhitespace()
            return key
        }

        /// `[{"path": "...", "sha256": "...", "size": N}, ...]`, those three keys exactly.
        mutating func fileList() throws -> [ListingFile] {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw failure("expected a list of files", ko: "파일 목록이 있어야 합니다") }
            index += 1
            var list: [ListingFile] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return list
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw failure("expected a file", ko: "파일 항목이 있어야 합니다") }
                index += 1
                var path: String?
                var sha: String?
                var size: Int?
                while true {
                    let key = try keyAndColon()
                    switch (key, try value(depth: 3)) {
                    case ("path", .string(let text)) where path == nil: path = text
                    case ("sha256", .string(let text)) where sha == nil: sha = text
                    case ("size", .int(let number)) where size == nil: size = number
                    default: throw failure("a file entry holds '\(key)' twice or of the wrong kind, or an unknown key", ko: "파일 항목에 '\(key)' 키가 두 번 있거나, 종류가 잘못되었거나, 알 수 없는 키입니다")
                    }
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("unexpected end", ko: "예상보다 일찍 끝납니다") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: ",") { continue }
                    guard bytes[index - 1] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'", ko: "',' 또는 '}' 기호가 있어야 합니다") }
                    break
                }
                guard let path, let sha, let size else { throw failure("a file entry lacks path, sha256 or size", ko: "파일 항목에 path, sha256, size 중 빠진 것이 있습니다") }
                list.append(ListingFile(path: path, sha256: sha, size: size))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end", ko: "예상보다 일찍 끝납니다") }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return list
                default: throw failure("expected ',' or ']'", ko: "',' 또는 ']' 기호가 있어야 합니다")
                }
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                word.withUTF8Buffer({ Array($0) }) == Array(bytes[index..<(index + count)])
            else { throw failure("unexpected character", ko: "예상하지 못한 문자가 있습니다") }
            index += count
        }

        mutating func number() throws -> JSON {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let whole = index
            guard digits() > 0 else { throw failure("expected digits", ko: "숫자가 있어야 합니다") }
            guard bytes[whole] != UInt8(ascii: "0") || index - whole == 1 else { throw failure("leading zero", ko: "숫자가 0으로 시작합니다") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw failure("expected digits after '.'", ko: "'.' 뒤에 숫자가 있어야 합니다") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw failure("expected exponent digits", ko: "지수 숫자가 있어야 합니다") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            return Int(text).map(JSON.int) ?? .number(text)
        }

        mutating func string() throws -> String {
            index += 1
            // Most strings (paths, hashes, ids) hold no escape: take them whole.
            var end = index
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: bytes[index..<end], as: UTF8.self)
                    index = end + 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                end += 1
            }
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw failure("unterminated string", ko: "문자열이 닫히지 않았습니다") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case 0x00..<0x20: throw failure("control character in a string", ko: "문자열 안에 제어 문자가 있습니다")
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw failure("unterminated escape", ko: "이스케이프가 끝나지 않았습니다") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw failure("unpaired surrogate", ko: "짝이 없는 서로게이트 문자가 있습니다")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate", ko: "짝이 없는 서로게이트 문자가 있습니다") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let value = Unicode.Scalar(scalar) else { throw failure("unpaired surrogate", ko: "짝이 없는 서로게이트 문자가 있습니다") }
                        out.append(contentsOf: Array(String(Character(value)).utf8))
                    default: throw failure("unknown escape", ko: "알 수 없는 이스케이프입니다")
                    }
                default: out.append(byte)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("short \\u escape", ko: "\\u 이스케이프가 짧습니다") }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                guard let digit = Int(String(UnicodeScalar(byte)), radix: 16) else { throw failure("bad \\u escape", ko: "\\u 이스케이프가 잘못되었습니다") }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
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
