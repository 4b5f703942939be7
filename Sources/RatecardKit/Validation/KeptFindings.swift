import RatecardCore
import RatecardSupport

/// Checks again only what edits to rate tables and terms versions can change, from the findings
/// of the content before them (`preview --watch` after an edit, and a CLI check that finds the
/// findings of an earlier run in the build cache: `KeptFindings`).
///
/// An edited rate table can only change the findings on its product's files (`IncrementalRange`
/// says why); an edited terms version only those on its document's versions (every finding on a
/// terms file comes from that file, the other versions of its document, the shared files and the
/// partners; nothing reported elsewhere reads a terms file's contents).
package enum IncrementalCheck {
    /// `found`, the findings of the content before the edits, made those of `content`: the edits
    /// only replaced the rate tables of `products` and the terms versions of `documents` in place
    /// (each parsed before and after), and `base` is the same.
    package static func recheck(
        _ found: [Diagnostic], content: Content, base: Content?, products: Set<String>, documents: Set<String>, validator: Validator
    ) -> [Diagnostic] {
        var found = found
        if !products.isEmpty {
            var paths = Set(products.map { content.root.path("products/\($0)/product.yaml") })
            let wanted = FewKeys(products)
            // Fields read through buffer pointers: indexing the array would copy each table whole.
            for tables in [content.rateTables] + (base.map { [$0.rateTables] } ?? []) {
                tables.withUnsafeBufferPointer { tables in
                    for index in tables.indices where wanted.contains(tables[index].productKey) { paths.insert(tables[index].path) }
                }
            }
            let after = IncrementalRange.cut(content, to: products, paths: paths)
            let before = base.map { IncrementalRange.cut($0, to: products, paths: paths) }
            found = found.filter { !paths.contains($0.path) } + validator.check(after, base: before).filter { paths.contains($0.path) }
        }
        if !documents.isEmpty {
            let folders = documents.map { content.root.path("terms/\($0)/") }
            var documentPaths: Set<String> = []
            for path in content.termsText.keys where folders.contains(where: { path.hasPrefix($0) }) { documentPaths.insert(path) }
            for path in base?.termsText.keys ?? [:].keys where folders.contains(where: { path.hasPrefix($0) }) { documentPaths.insert(path) }
            let after = LiveBuild.cut(content, to: documents, paths: documentPaths)
            let before = base.map { LiveBuild.cut($0, to: documents, paths: documentPaths) }
            found = found.filter { !documentPaths.contains($0.path) } + validator.check(after, base: before).filter { documentPaths.contains($0.path) }
        }
        return IncrementalRange.unique(found)
    }
}

/// The findings of a check kept in the build cache, so that the next check of the same content
/// after an edit to a few rate tables or terms versions (a CLI `build` or `validate` after a
/// one-table change) checks again only what the edit can change (`IncrementalCheck`) instead
/// of running every rule over the whole content.
///
/// The entry's key names everything the findings depend on except the blobs of the rate tables
/// and terms versions that parsed: the rules' context (the as-of date, the change's day), the
/// content root, every other file's path and blob id, those files' paths, the problems found
/// reading files that have no blob id (work-tree assets, symlinks, missing files), and the whole
/// base the history rules compare with. The entry holds those tables' and versions' blob ids and
/// the findings. A content with the same key differs from the kept one only in such files, each
/// parsed before and after, which is what `IncrementalCheck` takes; anything else is another key,
/// checked in full. A kept entry that cannot be read back whole is never used.
package struct KeptFindings {
    package let validator: Validator
    package let cache: BuildCache

    /// Above this many edited files a full check is about as quick.
    package static let most = 64

    package init(validator: Validator, cache: BuildCache) {
        self.validator = validator
        self.cache = cache
    }

    /// What `validator.check(content, base: base)` gives, from the kept findings when they fit.
    package func check(_ content: Content, base: Content?) -> [Diagnostic] { checked(content, base: base).found }

    /// `check`, and how many edited files were checked again from kept findings (nil: none were
    /// used, every rule ran).
    package func checked(_ content: Content, base: Content?) -> (found: [Diagnostic], rechecked: Int?) {
        guard let shape = Self.shape(content, base: base, context: validator.context) else { return (validator.check(content, base: base), nil) }
        let kept = cache.read(shape.key).flatMap(State.init(decoding:))
        var found: [Diagnostic]?
        var rechecked: Int?
        if let kept, kept.units.count == shape.units.count {
            var products: Set<String> = []
            var documents: Set<String> = []
            var edits = 0
            var fits = true
            for (old, new) in zip(kept.units, shape.units) where old != new {
                guard old.path == new.path, edits < Self.most else {
                    fits = false
                    break
                }
                edits += 1
                if let key = shape.tables[new.path] { products.insert(key) } else if let document = shape.documents[new.path] { documents.insert(document) }
            }
            if fits {
                found =
                    edits == 0
                    ? kept.found
                    : IncrementalCheck.recheck(kept.found, content: content, base: base, products: products, documents: documents, validator: validator)
                rechecked = edits
                Trace.mark("check: kept findings, \(edits) files checked again")
            }
        }
        let result = found ?? validator.check(content, base: base)
        if kept?.units != shape.units || found == nil { cache.write(shape.key, State(units: shape.units, found: result).encoded()) }
        return (result, rechecked)
    }

    /// One rate table or terms version the key leaves out: its path and blob id.
    struct Unit: Equatable {
        var path: String
        var id: String
    }

    struct Shape {
        var key: BuildCache.Key
        /// The units, by path.
        var units: [Unit]
        /// Each unit table's product key, each unit version's document, by path.
        var tables: [String: String]
        var documents: [String: String]
    }

    /// The key of `content`'s findings and its units; nil when the content does not name every
    /// file's blob (then nothing is kept).
    static func shape(_ content: Content, base: Content?, context: ValidationContext) -> Shape? {
        guard content.identified, base?.identified ?? true else { return nil }
        var tables: [String: String] = [:]
        tables.reserveCapacity(content.rateTables.count)
        for index in content.rateTables.indices { tables[content.rateTables[index].path] = content.rateTables[index].productKey }
        var documents: [String: String] = [:]
        documents.reserveCapacity(content.terms.count)
        for index in content.terms.indices { documents[content.terms[index].path] = content.terms[index].documentID }
        var builder = BuildCache.Key.Builder("kept-findings")
        builder.append(context.asOf.description)
        builder.append(context.changeDay?.description ?? "-")
        builder.append(content.root.treePath)
        var units: [Unit] = []
        units.reserveCapacity(tables.count + documents.count)
        // Sorted as pairs: no lookup of each path's id afterwards.
        let files = content.fileIDs.sorted { $0.key < $1.key }
        for (path, id) in files {
            if tables[path] != nil || documents[path] != nil {
                builder.append("unit")
                builder.append(path)
                units.append(Unit(path: path, id: id.hex))
            } else {
                builder.append(file: path, id: id)
            }
        }
        // Only paths of files the content read: its assets, and what reading found wrong with
        // files that have no blob id here (a work-tree asset, a symlink, a missing file).
        for asset in content.assets.sorted() { builder.append("asset " + asset) }
        for diagnostic in content.fileDiagnostics where content.fileIDs[diagnostic.path] == nil { builder.append(diagnostic.key) }
        if let base {
            builder.append("base " + base.root.treePath)
            // A work tree's base (HEAD) mostly has the same paths (a new draft aside): taken in
            // the content's order when every one of them is among the content's (one lookup
            // each instead of sorting 11,600 paths again).
            var shared: [(key: String, value: ObjectID)] = []
            shared.reserveCapacity(base.fileIDs.count)
            for (path, _) in files { if let id = base.fileIDs[path] { shared.append((path, id)) } }
            for (path, id) in shared.count == base.fileIDs.count ? shared : base.fileIDs.sorted(by: { $0.key < $1.key }) { builder.append(file: path, id: id) }
            for asset in base.assets.sorted() { builder.append("asset " + asset) }
            for diagnostic in base.fileDiagnostics { builder.append(diagnostic.key) }
        } else {
            builder.append("no base")
        }
        return Shape(key: builder.key, units: units, tables: tables, documents: documents)
    }

    /// What an entry holds: the units' blob ids, and the findings.
    struct State {
        var units: [Unit]
        var found: [Diagnostic]

        init(units: [Unit], found: [Diagnostic]) {
            self.units = units
            self.found = found
        }

        private static let rules = Dictionary(Rule.all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })

        func encoded() -> [UInt8] {
            var record = CacheRecord()
            record.append(units.count)
            for unit in units {
                record.append(unit.path)
                record.append(unit.id)
            }
            record.append(found.count)
            for diagnostic in found {
                record.append(diagnostic.path)
                record.append(diagnostic.mark.line)
                record.append(diagnostic.mark.column)
                record.append(diagnostic.rule)
                record.append(diagnostic.severity.rawValue)
                record.append(diagnostic.message.english)
                record.append(diagnostic.message.korean)
            }
            return record.bytes
        }

        init?(decoding bytes: [UInt8]) {
            var reader = CacheRecord.Reader(bytes)
            guard let count = reader.int(), count >= 0, count <= bytes.count / 16 else { return nil }
            units = []
            units.reserveCapacity(count)
            for _ in 0..<count {
                guard let path = reader.string(), let id = reader.string() else { return nil }
                units.append(Unit(path: path, id: id))
            }
            guard let findings = reader.int(), findings >= 0, findings <= bytes.count / 56 else { return nil }
            found = []
            found.reserveCapacity(findings)
            for _ in 0..<findings {
                guard let path = reader.string(), let line = reader.int(), let column = reader.int(), let id = reader.string(), let rule = Self.rules[id],
                    let severity = reader.string().flatMap(Rule.Severity.init(rawValue:)), let english = reader.string(), let korean = reader.string()
                else { return nil }
                var diagnostic = Diagnostic(path: path, mark: SourceMark(line: line, column: column), rule: rule, message: .kept(english: english, korean: korean))
                diagnostic.severity = severity
                found.append(diagnostic)
            }
            guard reader.atEnd else { return nil }
        }
    }
}
