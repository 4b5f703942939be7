import RatecardSupport

/// The advertising-wording scan of a terms body (DSC-06), kept in the build cache by the file's
/// blob id: rendering the body with cmark, normalizing it and running the wording expression is
/// the largest part of reading a terms file, and the result is a function of the file's bytes
/// alone (the body and the line it starts on come from them).
package enum TermsScan {
    /// The scan itself: the one implementation, cached or not.
    package static func scan(body: String, firstLine: Int) -> [AdWording.Hit] {
        AdWording.hits(in: CopyText(markdown: body, firstLine: firstLine))
    }

    /// The scan's hits, from `cache` when this blob was scanned before by this build.
    package static func prohibitedWording(body: String, firstLine: Int, blob: ObjectID?, cache: BuildCache?) -> [AdWording.Hit] {
        guard let blob, let cache else { return scan(body: body, firstLine: firstLine) }
        // "-4": hits carry their kind, their quotation (which must be followed by a warning word)
        // and their wording as written.
        let key = BuildCache.Key("terms-scan-4", [blob.hex])
        if let bytes = cache.read(key), let hits = decode(bytes) { return hits }
        let hits = scan(body: body, firstLine: firstLine)
        cache.write(key, encode(hits))
        return hits
    }

    package static func encode(_ hits: [AdWording.Hit]) -> [UInt8] {
        var record = CacheRecord()
        record.append(hits.count)
        for hit in hits {
            record.append(hit.wording)
            record.append(hit.kind)
            record.append(hit.mark.line)
            record.append(hit.mark.column)
            record.append(hit.quotation == nil ? 0 : 1)
            record.append(hit.quotation ?? "")
        }
        return record.bytes
    }

    /// The hits of a record, or nil when it is not one.
    package static func decode(_ bytes: [UInt8]) -> [AdWording.Hit]? {
        var reader = CacheRecord.Reader(bytes)
        guard let count = reader.int(), count >= 0, count <= bytes.count else { return nil }
        var hits: [AdWording.Hit] = []
        for _ in 0..<count {
            guard let wording = reader.string(), let kind = reader.int(), AdWording.prohibited.indices.contains(kind),
                let line = reader.int(), let column = reader.int(), let quoted = reader.int(), let quotation = reader.string()
            else { return nil }
            hits.append(
                AdWording.Hit(wording: wording, kind: kind, mark: SourceMark(line: line, column: column), quotation: quoted == 1 ? quotation : nil))
        }
        return reader.atEnd ? hits : nil
    }
}
