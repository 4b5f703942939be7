import RatecardSupport

/// The advertising-wording scan of a terms body (DSC-06), kept in the build cache by the file's
/// blob id: rendering the body with cmark, normalizing it and running the wording expression is
/// the largest part of reading a terms file, and the result is a function of the file's bytes
/// alone (the body and the line it starts on come from them).
package enum TermsScan {
    /// What a body's scan finds: its prohibited wording, and the markup its page drops (DSC-20),
    /// from one cmark parse.
    package struct Result: Sendable, Equatable {
        package var wording: [AdWording.Hit] = []
        package var dropped: [CommonMark.Dropped] = []

        package init(wording: [AdWording.Hit] = [], dropped: [CommonMark.Dropped] = []) {
            self.wording = wording
            self.dropped = dropped
        }
    }

    /// The scan itself: the one implementation, cached or not.
    package static func scan(body: String, firstLine: Int) -> Result {
        scan(body: body, firstLine: firstLine, article: nil).result
    }

    /// The scan, and the page's `article` from the same parse when one is asked for
    /// (`CommonMark.read`).
    package static func scan(body: String, firstLine: Int, article: CommonMark.Article?) -> (result: Result, article: String?) {
        let read = CommonMark.read(body, dropped: true, article: article)
        return (Result(wording: AdWording.hits(in: CopyText(markdown: body, firstLine: firstLine, rendered: read.text)), dropped: read.dropped), read.article)
    }

    /// The kind of the scan's cache keys. "-5": hits carry their kind, their quotation (which
    /// must be followed by a warning word) and their wording as written; the dropped markup
    /// follows them.
    package static let keyKind = "terms-scan-5"

    /// The scan's result, from `cache` when this blob was scanned before by this build; a scan
    /// made now gives the page's `article` too when one is asked for (a kept one does not).
    package static func scanned(body: String, firstLine: Int, blob: ObjectID?, cache: BuildCache?, article: CommonMark.Article? = nil) -> (result: Result, article: String?) {
        guard let blob, let cache else { return scan(body: body, firstLine: firstLine, article: article) }
        let key = BuildCache.Key(keyKind, [blob.hex])
        if let bytes = cache.read(key), let result = decode(bytes) { return (result, nil) }
        let scanned = scan(body: body, firstLine: firstLine, article: article)
        cache.write(key, encode(scanned.result))
        return scanned
    }

    package static func encode(_ result: Result) -> [UInt8] {
        var record = CacheRecord()
        record.append(result)
        return record.bytes
    }

    /// The result a record holds, or nil when it is not one.
    package static func decode(_ bytes: [UInt8]) -> Result? {
        var reader = CacheRecord.Reader(bytes)
        guard let result = reader.termsScan(), reader.atEnd else { return nil }
        return result
    }
}

extension CacheRecord {
    mutating func append(_ result: TermsScan.Result) {
        append(result.wording.count)
        for hit in result.wording {
            append(hit.wording)
            append(hit.kind)
            append(hit.mark.line)
            append(hit.mark.column)
            append(hit.quotation == nil ? 0 : 1)
            append(hit.quotation ?? "")
        }
        append(result.dropped.count)
        for dropped in result.dropped {
            switch dropped.kind {
            case .html:
                append(0)
            case .link(let url):
                append(1)
                append(url)
            case .image(let url):
                append(2)
                append(url)
            }
            append(dropped.line)
            append(dropped.column)
            append(dropped.text)
        }
    }
}

extension CacheRecord.Reader {
    mutating func termsScan() -> TermsScan.Result? {
        guard let hits = count() else { return nil }
        var result = TermsScan.Result()
        for _ in 0..<hits {
            guard let wording = string(), let kind = int(), AdWording.prohibited.indices.contains(kind),
                let line = int(), let column = int(), let quoted = int(), let quotation = string()
            else { return nil }
            result.wording.append(
                AdWording.Hit(wording: wording, kind: kind, mark: SourceMark(line: line, column: column), quotation: quoted == 1 ? quotation : nil))
        }
        guard let dropped = count() else { return nil }
        for _ in 0..<dropped {
            let kind: CommonMark.Dropped.Kind
            switch int() {
            case 0: kind = .html
            case 1:
                guard let url = string() else { return nil }
                kind = .link(url: url)
            case 2:
                guard let url = string() else { return nil }
                kind = .image(url: url)
            default: return nil
            }
            guard let line = int(), let column = int(), let text = string() else { return nil }
            result.dropped.append(CommonMark.Dropped(kind: kind, line: line, column: column, text: text))
        }
        return result
    }
}
