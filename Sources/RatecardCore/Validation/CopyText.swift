import Foundation
import RatecardSupport

/// User-facing text as the wording checks read it: Unicode NFKC (full-width and other
/// compatibility forms folded to their plain form), with whitespace and invisible characters
/// (zero-width spaces and joiners, soft hyphens, Hangul fillers and other format characters)
/// removed, so "무 조 건 승인", "무\u{200B}조건 승인" and "１００％ 승인" read as the plain words. Each
/// character of the normalized text keeps where it was written.
package struct CopyText: Sendable {
    /// The normalized text, made from `scalars` when asked for (most terms bodies are only
    /// read by the quick checks, which take the scalars).
    package var text: String { CopyText.string(scalars) }
    /// The normalized text as scalars.
    package var scalars: [Unicode.Scalar]
    /// For each Unicode scalar of `text`: the index of the scalar of the source (or rendered)
    /// text it came from.
    private var origins: [Int32]
    /// Where the text came from: one YAML value, or a Markdown body and its rendered text.
    private var source: Source

    private enum Source {
        case value(SourceMark, plain: [Unicode.Scalar])
        case markdown(body: String, firstLine: Int, rendered: CommonMark.RenderedText)
    }

    /// A YAML value: every finding points at the value.
    package init(plain: String, at mark: SourceMark) {
        let written = Array(plain.unicodeScalars)
        (scalars, origins) = CopyText.normalized(written)
        source = .value(mark, plain: written)
    }

    /// The rendered text of a Markdown body whose first line is `firstLine` of its file.
    package init(markdown body: String, firstLine: Int) {
        self.init(markdown: body, firstLine: firstLine, rendered: CommonMark.renderedText(body))
    }

    /// The same, from the body's rendered text (`CommonMark.read`).
    package init(markdown body: String, firstLine: Int, rendered: CommonMark.RenderedText) {
        (scalars, origins) = CopyText.normalized(rendered.scalars)
        source = .markdown(body: body, firstLine: firstLine, rendered: rendered)
    }

    /// Quotation marks: each opening mark and the mark that closes it.
    package static let quotationMarks: [Unicode.Scalar: Unicode.Scalar] = [
        "\"": "\"", "'": "'", "\u{FF02}": "\u{FF02}", "\u{FF07}": "\u{FF07}", "\u{201C}": "\u{201D}", "\u{2018}": "\u{2019}",
        "\u{300C}": "\u{300D}", "\u{300E}": "\u{300F}",
    ]

    /// The most characters (whitespace aside) a quotation in quotation marks holds: wording
    /// quoted to warn against it is a phrase, not a paragraph of copy.
    package static let longestQuotation = 40

    /// When the scalar at `offset` of `text` is quoted in a Markdown body, the text that says
    /// why it is quoted, normalized: for a block quote, the quote and the line before it; for
    /// wording in quotation marks (at most `longestQuotation` characters), what follows the
    /// closing mark to the end of its sentence. Nil when it is not quoted, and for a YAML
    /// value (a lender's own words).
    package func quotation(at offset: Int) -> String? {
        guard case .markdown(_, _, let rendered) = source, offset < origins.count else { return nil }
        let scalars = rendered.scalars
        let at = Int(origins[offset])
        var context: [Unicode.Scalar] = []
        if rendered.quoted[at] {
            var start = at
            while start > 0 && rendered.quoted[start - 1] { start -= 1 }
            var end = at
            while end + 1 < scalars.count && rendered.quoted[end + 1] { end += 1 }
            var lineEnd = start
            while lineEnd > 0 && scalars[lineEnd - 1] == "\n" { lineEnd -= 1 }
            var lineStart = lineEnd
            while lineStart > 0 && scalars[lineStart - 1] != "\n" { lineStart -= 1 }
            context = Array(scalars[lineStart..<lineEnd]) + Array(scalars[start...end])
        } else {
            var lineStart = at
            while lineStart > 0 && scalars[lineStart - 1] != "\n" { lineStart -= 1 }
            var lineEnd = at
            while lineEnd < scalars.count && scalars[lineEnd] != "\n" { lineEnd += 1 }
            var open: (mark: Unicode.Scalar, index: Int)?
            var pair: (opening: Int, closing: Int)?
            for index in lineStart..<lineEnd {
                let scalar = scalars[index]
                if let (mark, opened) = open {
                    guard scalar == Self.quotationMarks[mark] else { continue }
                    open = nil
                    if opened < at && at < index {
                        pair = (opened, index)
                        break
                    }
                } else if Self.quotationMarks[scalar] != nil {
                    open = (scalar, index)
                }
            }
            guard let (opening, closing) = pair,
                scalars[(opening + 1)..<closing].filter({ !$0.properties.isWhitespace }).count <= Self.longestQuotation
            else { return nil }
            var end = closing + 1
            while end < lineEnd && !".。!?".unicodeScalars.contains(scalars[end]) { end += 1 }
            context = Array(scalars[(closing + 1)..<end])
        }
        return Self.string(Self.normalized(context).scalars)
    }

    /// The words as the user wrote them for the scalars `range` of `text` (spaces, full-width
    /// forms and all): what a message quotes back, instead of the normalized text.
    package func original(_ range: Range<Int>) -> String {
        guard !range.isEmpty, range.upperBound <= origins.count else { return CopyText.string(Array(scalars[range.clamped(to: 0..<scalars.count)])) }
        let written: [Unicode.Scalar]
        switch source {
        case .value(_, let plain): written = plain
        case .markdown(_, _, let rendered): written = rendered.scalars
        }
        let (first, last) = (Int(origins[range.lowerBound]), Int(origins[range.upperBound - 1]))
        guard first <= last, last < written.count else { return CopyText.string(Array(scalars[range])) }
        return CopyText.string(Array(written[first...last]))
    }

    /// The source position of the scalar at `offset` in `text`. In Markdown, the line is the
    /// rendered block's, and the column is found by following the rendered characters of that
    /// line through the source line (markup such as `**` is skipped over).
    package func mark(at offset: Int) -> SourceMark {
        switch source {
        case .value(let mark, _): return mark
        case .markdown(let body, let firstLine, let rendered):
            guard !origins.isEmpty else { return SourceMark(line: firstLine, column: 1) }
            let origin = Int(origins[min(offset, origins.count - 1)])
            let line = rendered.lines[origin]
            var first = origin
            while first > 0 && rendered.lines[first - 1] == line && rendered.scalars[first - 1] != "\n" { first -= 1 }
            let sourceLine = body.split(separator: "\n", maxSplits: Int(line), omittingEmptySubsequences: false)
            let scalars = Int(line) - 1 < sourceLine.count ? Array(sourceLine[Int(line) - 1].unicodeScalars) : []
            var cursor = 0
            var column = 1
            for index in first...origin {
                var probe = cursor
                while probe < scalars.count && scalars[probe] != rendered.scalars[index] { probe += 1 }
                if probe < scalars.count {
                    column = probe + 1
                    cursor = probe + 1
                }
            }
            return SourceMark(line: firstLine + Int(line) - 1, column: column)
        }
    }

    /// The NFKC form of `scalars` without whitespace or invisible characters, and for each
    /// scalar of it the index of the one it came from. ASCII and precomposed Hangul (the usual
    /// case) are already normalized and are copied as they are; anything else is folded a
    /// cluster at a time through Foundation.
    package static func normalized(_ scalars: [Unicode.Scalar]) -> (scalars: [Unicode.Scalar], origins: [Int32]) {
        // Written straight into the storage of the two arrays (appending a scalar at a time to
        // each was most of the time of normalizing a terms body). Text mostly folds to at most
        // its own length; compatibility forms that expand past the room given (a ligature
        // folds to as many as 18 scalars) start it again with twice the room.
        var room = scalars.count + 64
        while true {
            if let made = normalized(scalars, room: room) { return made }
            room *= 2
        }
    }

    /// `normalized(_:)` within `room` scalars; nil when the text folds to more.
    private static func normalized(_ scalars: [Unicode.Scalar], room: Int) -> (scalars: [Unicode.Scalar], origins: [Int32])? {
        var written = 0
        var origins: [Int32] = []
        let output = [Unicode.Scalar](unsafeUninitializedCapacity: room) { output, outputCount in
            origins = [Int32](unsafeUninitializedCapacity: room) { origins, originsCount in
                written = scalars.withUnsafeBufferPointer { input in
                    var count = 0
                    var index = 0
                    while index < input.count {
                        let scalar = input[index]
                        var end = index + 1
                        while end < input.count {
                            // (Below U+0300, and a Hangul syllable, nothing extends: the usual case.)
                            let next = input[end].value
                            guard next >= 0x300, !(0xAC00...0xD7A3).contains(next), extendsCluster(input[end]) else { break }
                            end += 1
                        }
                        if end == index + 1 && isPlain(scalar) {
                            guard count < room else { return -1 }
                            output[count] = scalar
                            origins[count] = Int32(index)
                            count += 1
                        } else if end == index + 1 && (scalar.value < 0x80 || scalar.properties.isWhitespace) {
                            // ASCII space and control characters, and other whitespace: dropped.
                        } else {
                            var cluster = String.UnicodeScalarView()
                            cluster.append(contentsOf: input[index..<end])
                            for folded in String(cluster).precomposedStringWithCompatibilityMapping.unicodeScalars where !isInvisible(folded) {
                                guard count < room else { return -1 }
                                output[count] = folded
                                origins[count] = Int32(index)
                                count += 1
                            }
                        }
                        index = end
                    }
                    return count
                }
                originsCount = max(written, 0)
            }
            outputCount = max(written, 0)
        }
        return written < 0 ? nil : (output, origins)
    }

    /// A String of `scalars`, encoded once as UTF-8 into the string's own storage (appending to
    /// a String's scalar view one scalar at a time cost more than the normalisation itself).
    package static func string(_ scalars: [Unicode.Scalar]) -> String {
        String(unsafeUninitializedCapacity: scalars.count * 4) { bytes in
            var count = 0
            for scalar in scalars {
                let value = scalar.value
                if value < 0x80 {
                    bytes[count] = UInt8(value)
                    count += 1
                } else if value < 0x800 {
                    bytes[count] = UInt8(0xC0 | value >> 6)
                    bytes[count + 1] = UInt8(0x80 | value & 0x3F)
                    count += 2
                } else if value < 0x10000 {
                    bytes[count] = UInt8(0xE0 | value >> 12)
                    bytes[count + 1] = UInt8(0x80 | value >> 6 & 0x3F)
                    bytes[count + 2] = UInt8(0x80 | value & 0x3F)
                    count += 3
                } else {
                    bytes[count] = UInt8(0xF0 | value >> 18)
                    bytes[count + 1] = UInt8(0x80 | value >> 12 & 0x3F)
                    bytes[count + 2] = UInt8(0x80 | value >> 6 & 0x3F)
                    bytes[count + 3] = UInt8(0x80 | value & 0x3F)
                    count += 4
                }
            }
            return count
        }
    }

    /// ASCII letters, digits and punctuation, and precomposed Hangul syllables: NFKC leaves them
    /// as they are.
    package static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        (0x21...0x7E).contains(scalar.value) || (0xAC00...0xD7A3).contains(scalar.value)
    }

    /// A scalar that NFKC may fold into the one before it: combining marks, conjoining Hangul
    /// vowels and final consonants, joiners and variation selectors.
    package static func extendsCluster(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x300 || (0xAC00...0xD7A3).contains(scalar.value) { return false }
        switch scalar.value {
        case 0x1160...0x11FF, 0xD7B0...0xD7FF, 0x200C, 0x200D, 0xFE00...0xFE0F, 0x302E, 0x302F: return true
        default:
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }
    }

    /// Whitespace, format characters (zero-width space, joiners, soft hyphen, BOM) and the
    /// Hangul fillers, which render as nothing.
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isWhitespace { return true }
        switch scalar.value {
        case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x034F, 0x180E: return true
        default: return scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .control
        }
    }
}
