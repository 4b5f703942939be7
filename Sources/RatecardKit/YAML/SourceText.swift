/// The checks every content file passes before it is parsed: size and UTF-8.
public enum SourceText {
    /// Files larger than this are refused (YML-06).
    public static let maxBytes = 1 << 20

    /// Decodes `bytes` as UTF-8, or says where the first invalid byte sits.
    public static func decode(_ bytes: [UInt8]) throws(YAMLError) -> String {
        if bytes.count > maxBytes {
            throw YAMLError(
                rule: "YML-06", mark: .start,
                message: "file is \(bytes.count) bytes, over the 1 MiB limit (\(maxBytes) bytes); split it up")
        }
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        let offset = firstInvalidOffset(bytes)
        let mark = markOf(byteOffset: offset, in: bytes)
        let byte = String(bytes[offset], radix: 16, uppercase: true)
        throw YAMLError(
            rule: "YML-05", mark: mark,
            message: "file is not valid UTF-8 (byte 0x\(byte)); save it as UTF-8")
    }

    /// The 1-based line and character column of a byte offset in (possibly invalid) UTF-8.
    public static func markOf(byteOffset: Int, in bytes: [UInt8]) -> SourceMark {
        var line = 1
        var column = 1
        var index = 0
        while index < byteOffset && index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return SourceMark(line: line, column: column)
    }

    private static func firstInvalidOffset(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            if index + length > bytes.count { return index }
            if length > 1 {
                if String(validating: bytes[index..<index + length], as: UTF8.self) == nil { return index }
            }
            index += length
        }
        return bytes.count
    }
}
