import RatecardSupport

/// The checks every content file passes before it is parsed: size, UTF-8 without a byte-order
/// mark, and LF (or CRLF) line endings.
public enum SourceText {
    /// Files larger than this are refused (YML-06).
    public static let maxBytes = 1 << 20

    /// Decodes `bytes` as UTF-8, or says where the first invalid byte sits.
    public static func decode(_ bytes: [UInt8]) throws(YAMLError) -> String {
        try checkSize(bytes)
        try checkTextForm(bytes)
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        throw invalid(bytes)
    }

    /// The checks of `decode` without making a String (a YAML file is parsed from its bytes):
    /// ASCII, the usual rate table, is valid UTF-8 and needs no decoding.
    public static func check(_ bytes: [UInt8]) throws(YAMLError) {
        try checkSize(bytes)
        try checkTextForm(bytes)
        if isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil { return }
        throw invalid(bytes)
    }

    private static func checkSize(_ bytes: [UInt8]) throws(YAMLError) {
        if bytes.count > maxBytes {
            throw YAMLError(
                rule: "YML-06", mark: .start,
                message: Message(
                    "file is \(bytes.count) bytes, over the 1 MiB limit (\(maxBytes) bytes); split it up",
                    ko: "파일 크기가 \(bytes.count)바이트로 한도 1 MiB(\(maxBytes)바이트)를 넘습니다; 여러 파일로 나누세요"))
        }
    }

    /// A byte-order mark or a bare carriage return is named as what it is: libyaml reads a BOM
    /// as a stray character and a CR-only file as one line, and every position after it is off.
    private static func checkTextForm(_ bytes: [UInt8]) throws(YAMLError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw YAMLError(
                rule: "YML-05", mark: .start,
                message: Message(
                    "file starts with a byte-order mark (BOM); save it as UTF-8 without BOM", ko: "파일이 바이트 순서 표시(BOM)로 시작합니다; BOM 없는 UTF-8로 저장하세요"))
        }
        guard let carriageReturn = bytes.firstIndex(of: 0x0D) else { return }
        var index = carriageReturn
        while index < bytes.count {
            if bytes[index] == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A) {
                throw YAMLError(
                    rule: "YML-05", mark: markOf(byteOffset: index, in: bytes),
                    message: Message(
                        "line ends with a bare carriage return (CR, old Mac line endings); save the file with LF line endings",
                        ko: "줄이 CR 문자 하나로 끝납니다 (옛 Mac 줄바꿈); 줄바꿈을 LF로 바꿔 저장하세요"))
            }
            index += 1
        }
    }

    /// Whether no byte has its high bit set, eight bytes at a time.
    package static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var index = 0
            var any: UInt64 = 0
            while index + 8 <= raw.count {
                any |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                any |= UInt64(raw[index])
                index += 1
            }
            return any & 0x8080_8080_8080_8080 == 0
        }
    }

    private static func invalid(_ bytes: [UInt8]) -> YAMLError {
        let offset = firstInvalidOffset(bytes)
        let mark = markOf(byteOffset: offset, in: bytes)
        let byte = String(bytes[offset], radix: 16, uppercase: true)
        return YAMLError(
            rule: "YML-05", mark: mark,
            message: Message("file is not valid UTF-8 (byte 0x\(byte)); save it as UTF-8", ko: "파일이 올바른 UTF-8이 아닙니다 (바이트 0x\(byte)); UTF-8로 저장하세요"))
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
