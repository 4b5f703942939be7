import Glibc

/// `products.json` as the full build writes it: one element per product, sorted by key, each
/// starting on a line `    {` and ending on a line `    }` (deeper lines are indented more, and
/// JSON strings hold no raw newline), its key on the element's only line starting
/// `      "key": "`.
struct ProductList {
    let bytes: [UInt8]
    /// Each product's element: key -> byte range from `{` to `}`.
    let elements: [String: Range<Int>]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        self.elements = try bytes.withUnsafeBufferPointer { buffer in try Self.scan(buffer) }
    }

    /// `{"products": [...]}` as `JSON` writes it, from each product's document serialized
    /// nested two deep (`JSON.serialized(nestedAt: 2)`), in key order.
    static func document(elements: [String]) -> [UInt8] {
        guard !elements.isEmpty else { return Array("{\n  \"products\": []\n}\n".utf8) }
        return Array(("{\n  \"products\": [\n    " + elements.joined(separator: ",\n    ") + "\n  ]\n}\n").utf8)
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [String: Range<Int>] {
        var elements: [String: Range<Int>] = [:]
        var start: Int?
        var key: String?
        let keyLine = Array("      \"key\": \"".utf8)
        guard let base = bytes.baseAddress else { return [:] }
        var line = 0
        while line < bytes.count {
            let end = memchr(base + line, 0x0A, bytes.count - line).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
            let length = end - line
            // "    {" opens an element, "    }" or "    }," closes it: 4 spaces, then the brace.
            let indented = length >= 5 && (0..<4).allSatisfy { bytes[line + $0] == 0x20 }
            if indented && length == 5 && bytes[line + 4] == UInt8(ascii: "{") {
                start = line + 4
                key = nil
            } else if let first = start, indented, bytes[line + 4] == UInt8(ascii: "}"),
                      length == 5 || (length == 6 && bytes[line + 5] == UInt8(ascii: ",")) {
                guard let key, elements[key] == nil else { throw OperationalError("products.json: an element without a key, or a key twice") }
                elements[key] = first..<(line + 5)
                start = nil
            } else if start != nil, key == nil, length > keyLine.count,
                      memcmp(base + line, keyLine, keyLine.count) == 0 {
                let value = UnsafeBufferPointer(rebasing: bytes[(line + keyLine.count)..<end])
                guard let quote = value.firstIndex(of: 0x22), !value[..<quote].contains(0x5C) else {
                    throw OperationalError("products.json: a key this reader cannot take")
                }
                key = String(decoding: UnsafeBufferPointer(rebasing: value[..<quote]), as: UTF8.self)
            }
            line = end + 1
        }
        return elements
    }

    /// The document with the elements of `replacements` (key -> element text) replaced; nil
    /// when one of them is not in it.
    func replacing(_ replacements: [String: String]) -> [UInt8]? {
        var ranges: [(Range<Int>, String)] = []
        for (key, text) in replacements {
            guard let range = elements[key] else { return nil }
            ranges.append((range, text))
        }
        ranges.sort { $0.0.lowerBound < $1.0.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 4096)
        var start = 0
        for (range, text) in ranges {
            out += bytes[start..<range.lowerBound]
            out += Array(text.utf8)
            start = range.upperBound
        }
        out += bytes[start...]
        return out
    }

    /// Where an unchanged product stands on `rates.html`, read back from its element.
    func order(of key: String) -> RatesOrder? {
        guard let range = elements[key], let json = try? JSONReader.parse(Array(bytes[range])),
              let limit = json["limit"]?["max_krw"]?.intValue else { return nil }
        var low = Percent.zero
        var high = Percent.zero
        if let apr = json["apr"], apr != .null {
            guard let parsedLow = Self.percent(apr["min_pct"]), let parsedHigh = Self.percent(apr["max_pct"]) else { return nil }
            low = parsedLow
            high = parsedHigh
        }
        return RatesOrder(low: low, high: high, limitMax: limit, key: key)
    }

    private static func percent(_ value: JSON?) -> Percent? {
        switch value {
        case .number(let text)?: return Percent.parse(text)?.value
        case .int(let number)?: return Percent.parse(String(number))?.value
        default: return nil
        }
    }
}

/// `rates.html` as the full build writes it: a head, one `<section id="<key>">…</section>` per
/// comparable product in `RatesOrder`, back to back (no section nests another, and text is
/// escaped, so the next `</section>` closes each), and a tail.
struct RatesPage {
    let head: ArraySlice<UInt8>
    let tail: ArraySlice<UInt8>
    let sections: [(key: String, bytes: ArraySlice<UInt8>)]

    /// Nil when the page has no section to find the head and tail by.
    init?(_ bytes: [UInt8]) throws {
        let open = Array("<section id=\"".utf8)
        let close = Array("</section>".utf8)
        guard let first = Bytes.find(open, in: bytes, from: 0) else { return nil }
        var sections: [(String, ArraySlice<UInt8>)] = []
        var position = first
        while bytes[position...].starts(with: open) {
            guard let quote = bytes[(position + open.count)...].firstIndex(of: 0x22),
                  let end = Bytes.find(close, in: bytes, from: position) else {
                throw OperationalError("rates.html: a section that does not close")
            }
            sections.append((String(decoding: bytes[(position + open.count)..<quote], as: UTF8.self), bytes[position..<(end + close.count)]))
            position = end + close.count
        }
        head = bytes[..<first]
        tail = bytes[position...]
        self.sections = sections
    }

    /// The page with the sections of `changed` products removed and `sections` (key -> place
    /// and markup) put in their places; nil when an unchanged product's place cannot be read.
    func replacing(_ new: [String: (order: RatesOrder, html: String)], changed: Set<String>, orderKeys: some Sequence<String>, orderOf: (String) -> RatesOrder?) -> [UInt8]? {
        // Section ids are escaped keys (the same text for the keys that validate).
        let changedIDs = Set(changed.map(HTML.escape))
        let keys = Dictionary(orderKeys.map { (HTML.escape($0), $0) }, uniquingKeysWith: { first, _ in first })
        var kept: [(key: String, bytes: ArraySlice<UInt8>)] = []
        for section in sections where !changedIDs.contains(section.key) {
            guard let key = keys[section.key] else { return nil }
            kept.append((key, section.bytes))
        }
        var known: [String: RatesOrder] = [:]
        func order(_ key: String) -> RatesOrder? {
            if let order = known[key] ?? new[key]?.order { return order }
            let order = orderOf(key)
            known[key] = order
            return order
        }
        for key in new.keys.sorted() {
            let (place, html) = new[key]!
            // Binary search for the first kept section that sorts after the new one.
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                guard let other = order(kept[middle].key) else { return nil }
                if other < place { low = middle + 1 } else { high = middle }
            }
            kept.insert((key: key, bytes: ArraySlice(Array(html.utf8))), at: low)
        }
        var out = Array(head)
        for section in kept { out += section.bytes }
        out += tail
        return out
    }
}

/// Byte-string search.
enum Bytes {
    /// The first index at or after `start` where `pattern` occurs in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, start <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let first = needle.first else { return nil }
                var position = start
                // memchr to each candidate first byte, memcmp for the rest.
                while haystack.count - position >= needle.count,
                      let hit = memchr(base + position, Int32(first), haystack.count - position - needle.count + 1) {
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }
}
