import Glibc

/// Finds whole words in Markdown text line by line, as `line.range(of: word)` would, but over UTF-8
/// bytes wherever that gives the same answer (DSC-06 scans every terms body, about 16 MB in a
/// large repository).
///
/// Foundation's `range(of:)` compares by canonical equivalence on grapheme clusters. For a line
/// whose scalars are all ASCII (except CR), precomposed Hangul syllables or other characters that
/// neither decompose canonically nor join a neighbour into a cluster, that equivalence is plain
/// byte equality, so the byte search finds the same first match. Any other line (and any text
/// holding a CR, where `"\r\n"` is one Character and lines split differently) takes the original
/// Foundation path.
enum WordScan {
    struct Hit: Equatable {
        /// 0-based line index within the text.
        var line: Int
        /// 1-based column in Unicode scalars.
        var column: Int
        var word: String
    }

    /// The first occurrence of each word on each line, in line order, then word order.
    static func hits(of words: [String], in text: String) -> [Hit] {
        var text = text
        return text.withUTF8 { bytes -> [Hit]? in
            guard !bytes.containsCR else { return nil }
            let patterns = words.map { Array($0.utf8) }
            if !patterns.contains(where: \.isEmpty), isSimple(bytes) { return wholeTextHits(words, patterns, in: bytes) }
            let firsts = patterns.map { $0.first ?? 0 }
            var starts = [Bool](repeating: false, count: 256)
            for first in firsts { starts[Int(first)] = true }
            var hits: [Hit] = []
            var lineHits: [Hit?] = Array(repeating: nil, count: words.count)
            var start = 0
            var line = 0
            while start <= bytes.count {
                // One pass over the line: decode each scalar (to know the line is simple and to
                // count columns) and try the words that start with its first byte.
                var index = start
                var column = 1
                var simple = true
                var found = 0
                while index < bytes.count && bytes[index] != 0x0A {
                    let lead = bytes[index]
                    let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                    if length > 1 && simple {
                        var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                        for next in 1..<length where index + next < bytes.count { scalar = scalar << 6 | UInt32(bytes[index + next] & 0x3F) }
                        if !isSimple(scalar) { simple = false }
                    }
                    if starts[Int(lead)] {
                        for number in firsts.indices where firsts[number] == lead && lineHits[number] == nil {
                            let pattern = patterns[number]
                            guard index + pattern.count <= bytes.count else { continue }
                            var matched = true
                            for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                                matched = false
                                break
                            }
                            if matched {
                                lineHits[number] = Hit(line: line, column: column, word: words[number])
                                found += 1
                            }
                        }
                    }
                    index += length
                    column += 1
                }
                if !simple {
                    hits += foundationHits(of: words, in: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self), line: line)
                } else if found > 0 {
                    hits += lineHits.compactMap { $0 }
                }
                if found > 0 { lineHits = Array(repeating: nil, count: words.count) }
                line += 1
                start = index + 1
            }
            return hits
        } ?? slowHits(of: words, in: text)
    }

    /// Every scalar simple: then each word is found with `memmem` over the whole text and only
    /// its matches are placed on a line (the usual case: ~30 ms for 16 MB instead of ~100).
    private static func wholeTextHits(_ words: [String], _ patterns: [[UInt8]], in bytes: UnsafeBufferPointer<UInt8>) -> [Hit] {
        guard let base = bytes.baseAddress else { return [] }
        var found: [(offset: Int, word: Int)] = []
        for (number, pattern) in patterns.enumerated() {
            var start = 0
            while start < bytes.count {
                guard let offset = firstMatch(pattern, in: bytes, from: start, base: base) else { break }
                found.append((offset, number))
                // Only the first match on a line counts: go on from the next line.
                var next = offset
                while next < bytes.count && bytes[next] != 0x0A { next += 1 }
                start = next + 1
            }
        }
        guard !found.isEmpty else { return [] }
        var hits: [(line: Int, word: Int, hit: Hit)] = []
        for (offset, number) in found {
            var line = 0
            var lineStart = 0
            for index in 0..<offset where bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            var column = 1
            for index in lineStart..<offset where bytes[index] & 0xC0 != 0x80 { column += 1 }
            hits.append((line, number, Hit(line: line, column: column, word: words[number])))
        }
        return hits.sorted { ($0.line, $0.word) < ($1.line, $1.word) }.map(\.hit)
    }

    /// The first offset at or after `start` where `pattern` occurs: `memchr` for one byte of it
    /// (a continuation byte where there is one: far rarer in Korean text than lead bytes), then
    /// `memcmp` of the whole.
    private static func firstMatch(_ pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int, base: UnsafePointer<UInt8>) -> Int? {
        let anchor = pattern.count > 1 && pattern[1] & 0xC0 == 0x80 ? 1 : 0
        var position = start + anchor
        return pattern.withUnsafeBytes { needle -> Int? in
            while position < bytes.count {
                guard let hit = memchr(base + position, Int32(pattern[anchor]), bytes.count - position) else { return nil }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) - anchor
                if at + pattern.count <= bytes.count, memcmp(base + at, needle.baseAddress!, pattern.count) == 0 { return at }
                position = at + anchor + 1
            }
            return nil
        }
    }

    /// True when every scalar of the (valid UTF-8) text is simple. Runs of ASCII are skipped eight
    /// bytes at a time, and three-byte scalars (Hangul syllables, the bulk of a Korean text) are
    /// decoded inline; lead bytes EB and EC are always syllables.
    static func isSimple(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                while index + 8 <= bytes.count && raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                continue
            }
            if lead == 0xEB || lead == 0xEC {
                index += 3
                continue
            }
            if lead & 0xF0 == 0xE0 && index + 3 <= bytes.count {
                let scalar = UInt32(lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F)
                guard isSimple(scalar) else { return false }
                index += 3
                continue
            }
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard index + length <= bytes.count else { return false }
            var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for next in 1..<length { scalar = scalar << 6 | UInt32(bytes[index + next] & 0x3F) }
            guard isSimple(scalar) else { return false }
            index += length
        }
        return true
    }

    /// `text.contains(word)`, over bytes when that gives the same answer (see above).
    static func contains(_ word: String, in text: String) -> Bool {
        var copy = text
        let pattern = Array(word.utf8)
        let found = copy.withUTF8 { bytes -> Bool? in
            guard !pattern.isEmpty, !bytes.containsCR else { return nil }
            var index = 0
            var match = false
            while index < bytes.count {
                let lead = bytes[index]
                let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                if length > 1 {
                    var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                    for next in 1..<length where index + next < bytes.count { scalar = scalar << 6 | UInt32(bytes[index + next] & 0x3F) }
                    if !isSimple(scalar) { return nil }
                }
                if !match, lead == pattern[0], index + pattern.count <= bytes.count,
                   (1..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) {
                    match = true
                }
                index += length
            }
            return match
        }
        return found ?? text.contains(word)
    }

    /// The original line-by-line search (Foundation, canonical equivalence).
    static func slowHits(of words: [String], in text: String) -> [Hit] {
        var hits: [Hit] = []
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            hits += foundationHits(of: words, in: line, line: offset)
        }
        return hits
    }

    private static func foundationHits<S: StringProtocol>(of words: [String], in line: S, line offset: Int) -> [Hit] {
        var hits: [Hit] = []
        for word in words {
            guard let range = line.range(of: word) else { continue }
            let column = line.unicodeScalars.distance(from: line.unicodeScalars.startIndex, to: range.lowerBound) + 1
            hits.append(Hit(line: offset, column: column, word: word))
        }
        return hits
    }

    static func isSimple(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0xAC00...0xD7A3: return true // Hangul syllables (decompose only to conjoining jamo, which are not simple)
        case 0x00A0...0x00BF, 0x00D7, 0x00F7: return true // Latin-1 punctuation and signs
        case 0x2010...0x2027, 0x2030...0x205E: return true // general punctuation (no ZWJ, no format controls)
        case 0x2190...0x21FF, 0x2460...0x24FF, 0x2500...0x25FF: return true // arrows, circled numbers, box and shapes
        case 0x3000...0x3029, 0x3030...0x303F: return true // CJK punctuation (no Hangul tone marks 302A-302F)
        case 0x3131...0x318E: return true // Hangul compatibility jamo (never conjoin)
        case 0x4E00...0x9FFF: return true // CJK ideographs
        case 0xFF01...0xFF60: return true // fullwidth forms (compatibility, not canonical, decompositions)
        default: return false
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes hold a CR, found with `memchr` (the byte paths of `WordScan`,
    /// `FrontMatter` and `StaticPages` apply only to text without one).
    var containsCR: Bool {
        guard let base = baseAddress, count > 0 else { return false }
        return memchr(base, 0x0D, count) != nil
    }
}
