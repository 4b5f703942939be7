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
        guard String(validating: bytes, as: UTF8.self) != nil else { throw OperationalError("JSON is not valid UTF-8") }
        var reader = ByteReader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.index < bytes.count else { throw OperationalError("empty JSON document") }
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    /// A version.json or manifest: the document, with its top-level `files` list (thousands of
    /// `{"path", "sha256", "size"}` objects) read straight into `ListingFile`s instead
    /// of a dictionary each (`files` is `.null` in the document returned).
    package static func parseListingFiles(_ bytes: [UInt8]) throws -> (JSON, [ListingFile]) {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw OperationalError("JSON is not valid UTF-8") }
        var reader = ByteReader(bytes: bytes)
        reader.collectFiles = true
        reader.skipWhitespace()
        guard reader.index < bytes.count else { throw OperationalError("empty JSON document") }
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the JSON value") }
        return (value, reader.files)
    }

    private struct ByteReader {
        let bytes: [UInt8]
        var index = 0
        var collectFiles = false
        var files: [ListingFile] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func failure(_ message: String) -> OperationalError {
            OperationalError("malformed JSON at byte \(index): \(message)")
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
            guard depth < 512 else { throw failure("nested too deeply") }
            guard index < bytes.count else { throw failure("unexpected end") }
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
            default: throw failure("unexpected character")
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
                guard fields.updateValue(item, forKey: key) == nil else { throw failure("duplicate key '\(key)'") }
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end") }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(fields)
                default: throw failure("expected ',' or '}'")
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
                guard index < bytes.count else { throw failure("unexpected end") }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(items)
                default: throw failure("expected ',' or ']'")
                }
            }
        }

        /// An object's `"key":` and the whitespace around it, up to its value.
        mutating func keyAndColon() throws -> String {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            return key
        }

        /// `[{"path": "...", "sha256": "...", "size": N}, ...]`, those three keys exactly.
        mutating func fileList() throws -> [ListingFile] {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw failure("expected a list of files") }
            index += 1
            var list: [ListingFile] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return list
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw failure("expected a file") }
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
                    default: throw failure("a file entry holds '\(key)' twice or of the wrong kind, or an unknown key")
                    }
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("unexpected end") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: ",") { continue }
                    guard bytes[index - 1] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
                    break
                }
                guard let path, let sha, let size else { throw failure("a file entry lacks path, sha256 or size") }
                list.append(ListingFile(path: path, sha256: sha, size: size))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end") }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return list
                default: throw failure("expected ',' or ']'")
                }
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                word.withUTF8Buffer({ Array($0) }) == Array(bytes[index..<(index + count)])
            else { throw failure("unexpected character") }
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
            guard digits() > 0 else { throw failure("expected digits") }
            guard bytes[whole] != UInt8(ascii: "0") || index - whole == 1 else { throw failure("leading zero") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw failure("expected digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw failure("expected exponent digits") }
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
                guard index < bytes.count else { throw failure("unterminated string") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case 0x00..<0x20: throw failure("control character in a string")
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw failure("unterminated escape") }
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
                                throw failure("unpaired surrogate")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let value = Unicode.Scalar(scalar) else { throw failure("unpaired surrogate") }
                        out.append(contentsOf: Array(String(Character(value)).utf8))
                    default: throw failure("unknown escape")
                    }
                default: out.append(byte)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                guard let digit = Int(String(UnicodeScalar(byte)), radix: 16) else { throw failure("bad \\u escape") }
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
