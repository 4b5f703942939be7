/// A JSON value with a deterministic writer: sorted keys, fixed number forms, minimal escaping.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    /// A decimal written exactly as given (rates: `12.45`).
    case number(String)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Compact or two-space indented text, keys sorted, ending without a newline.
    public func serialized(pretty: Bool = true) -> String {
        String(decoding: bytes(pretty: pretty), as: UTF8.self)
    }

    /// The pretty form of this value as it is written nested `indent` levels deep (its first
    /// line not indented): a part of a larger document made on its own and kept.
    package func bytes(indent: Int) -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, indent: indent)
        return out
    }

    /// `serialized(pretty:)` as UTF-8 bytes, with `terminator` appended (files end in "\n").
    public func bytes(pretty: Bool = true, terminator: String = "") -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, indent: pretty ? 0 : nil)
        out.append(contentsOf: terminator.utf8)
        return out
    }

    /// Appends `files` as `listingBytes` lists them, each entry after a comma but the list's first.
    private static func appendEntries(_ files: ArraySlice<ListingFile>, into out: inout [UInt8]) {
        // Each entry is a few copies of fixed byte runs (the indentation of `newline`
        // included) and its three values: a manifest lists thousands.
        let open = Array("\n    {\n      \"path\": ".utf8)
        let sha256 = Array(",\n      \"sha256\": \"".utf8)
        let size = Array("\",\n      \"size\": ".utf8)
        let close = Array("\n    }".utf8)
        for (position, file) in zip(files.indices, files) {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: open)
            escape(file.path, into: &out)
            if needsEscaping(file.sha256) {
                out.append(contentsOf: sha256.dropLast())
                escape(file.sha256, into: &out)
                out.append(contentsOf: size.dropFirst())
            } else {
                out.append(contentsOf: sha256)
                var hash = file.sha256
                hash.withUTF8 { out.append(contentsOf: $0) }
                out.append(contentsOf: size)
            }
            Bytes.appendDecimal(file.size, to: &out)
            out.append(contentsOf: close)
        }
    }

    /// What `JSON.object(fields + ["files": <the list as objects>]).bytes(terminator: "\n")`
    /// gives, with the file list (thousands of entries in a manifest or version.json) written
    /// straight from the structs instead of a dictionary each.
    package static func listingBytes(_ fields: [String: JSON], files: [ListingFile]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(200 + files.count * 160)
        out.append(UInt8(ascii: "{"))
        for (index, key) in Set(fields.keys).union(["files"]).sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, 1)
            escape(key, into: &out)
            out.append(contentsOf: ": ".utf8)
            guard key == "files" else {
                fields[key]!.write(into: &out, indent: 1)
                continue
            }
            if files.isEmpty {
                out.append(contentsOf: "[]".utf8)
                continue
            }
            out.append(UInt8(ascii: "["))
            // A manifest's thousands of entries in two halves, on two threads.
            if files.count >= 2048 {
                let half = files.count / 2
                let parts = ParallelMap.map([0..<half, half..<files.count], threshold: 2) { range -> [UInt8] in
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(range.count * 160)
                    appendEntries(files[range], into: &bytes)
                    return bytes
                }
                for part in parts { out += part }
            } else {
                appendEntries(files[...], into: &out)
            }
            newline(&out, 1)
            out.append(UInt8(ascii: "]"))
        }
        newline(&out, 0)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// Pretty text as it reads nested `level` deep in a larger document (its first line
    /// unindented, every following line indented as there): how an element of a list is
    /// spliced into a document that was written whole.
    package func serialized(nestedAt level: Int) -> String {
        var out: [UInt8] = []
        write(into: &out, indent: level)
        return String(decoding: out, as: UTF8.self)
    }

    // Written into bytes: the documents are large (a manifest lists every file of a bundle),
    // and appending to a byte array is several times cheaper than building a String.
    private func write(into out: inout [UInt8], indent: Int?) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): JSON.escape(text, into: &out)
        case .array(let items):
            if items.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent.map { $0 + 1 })
                item.write(into: &out, indent: indent.map { $0 + 1 })
            }
            JSON.newline(&out, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            if fields.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent.map { $0 + 1 })
                JSON.escape(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                fields[key]!.write(into: &out, indent: indent.map { $0 + 1 })
            }
            JSON.newline(&out, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        out.append(0x0A)
        for _ in 0..<(indent * 2) { out.append(0x20) }
    }

    /// Escapes for JSON; `<`, `>` and `&` too, so JSON placed inside HTML can never close a tag.
    package static func escape(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (Korean text, ids, dates, paths) have nothing to escape: appended whole,
        // from their contiguous UTF-8 (a manifest escapes thousands of them).
        var text = text
        let plain = text.withUTF8 { bytes in
            guard !needsEscaping(bytes) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: "\\\"".utf8)
            case "\\": out.append(contentsOf: "\\\\".utf8)
            case "\n": out.append(contentsOf: "\\n".utf8)
            case "\r": out.append(contentsOf: "\\r".utf8)
            case "\t": out.append(contentsOf: "\\t".utf8)
            case "<": out.append(contentsOf: "\\u003c".utf8)
            case ">": out.append(contentsOf: "\\u003e".utf8)
            case "&": out.append(contentsOf: "\\u0026".utf8)
            case "\u{2028}": out.append(contentsOf: "\\u2028".utf8)
            case "\u{2029}": out.append(contentsOf: "\\u2029".utf8)
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                } else {
                    out.append(contentsOf: String(scalar).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `escape` would change anything: a control character, `"`, `\\`, `<`, `>`, `&`,
    /// U+2028 or U+2029 (E2 80 A8 / E2 80 A9 in UTF-8).
    private static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(needsEscaping)
    }

    private static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var last: UInt8 = 0
        var beforeLast: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x3C || byte == 0x3E || byte == 0x26 { return true }
            if (byte == 0xA8 || byte == 0xA9) && beforeLast == 0xE2 && last == 0x80 { return true }
            beforeLast = last
            last = byte
        }
        return false
    }
}
