import RatecardCore
import RatecardSupport

/// `validate --range` in proportion to what each commit changed.
///
/// A commit that only edits existing rate tables (the everyday rate update) can only change the
/// findings on those tables and on their products' product.yaml: every rule that reads a rate
/// table reports on the table itself or on its product, and reads nothing besides that product,
/// its partner, its other rate tables, ratecard.yaml, the regulatory files and the sets of partner,
/// product and asset files. So the commit's findings are its parent's findings everywhere else,
/// plus a check of the content cut down to the changed products. Any other commit (a file added,
/// deleted, moved or of another kind, a table that does not parse before or after) takes the full
/// check. `LargeContentGeneratorTests` compares both ways on a history that breaks and fixes rules.
package struct IncrementalRange {
    package let validator: Validator
    package let loader: ContentLoader
    package let diff: TreeDiff

    package struct Step {
        package var content: Content
        /// Findings without the history rules (what the next step starts from).
        package var plain: [Diagnostic]
        /// Findings with the history rules against the parent (what `validate` reports).
        package var found: [Diagnostic]
    }

    /// The commit's content and findings derived from its parent's, or nil when the commit
    /// changed more than rate tables in place.
    package func step(parent: ObjectID, parentContent: Content, parentPlain: [Diagnostic], commit: ObjectID, source: CommitSource) throws -> Step? {
        guard let (content, keys) = try reread(parentContent, of: parent, as: commit, source: source) else { return nil }
        guard !keys.isEmpty else {
            // Nothing in the content changed: history rules find nothing between equal snapshots.
            return Step(content: content, plain: parentPlain, found: parentPlain)
        }
        var paths = Set(keys.map { content.root.path("products/\($0)/product.yaml") })
        // Indexing reads one field in place; iterating would copy every table (a dozen retains each).
        let wanted = FewKeys(keys)
        for index in content.rateTables.indices where wanted.contains(content.rateTables[index].productKey) {
            paths.insert(content.rateTables[index].path)
        }
        for index in parentContent.rateTables.indices where wanted.contains(parentContent.rateTables[index].productKey) {
            paths.insert(parentContent.rateTables[index].path)
        }
        let after = Self.cut(content, to: keys, paths: paths)
        let before = Self.cut(parentContent, to: keys, paths: paths)
        let elsewhere = parentPlain.filter { !paths.contains($0.path) }
        let plain = validator.check(after).filter { paths.contains($0.path) }
        let found = validator.check(after, base: before).filter { paths.contains($0.path) }
        return Step(content: content, plain: Self.unique(elsewhere + plain), found: Self.unique(elsewhere + found))
    }

    /// The content of commit `other` (read through `source`), derived from `content`, the
    /// content of `commit`, by re-reading the rate tables edited in place between the two; nil
    /// when anything else differs. Also the `<partner>/<product>` keys of the tables re-read.
    package func reread(_ content: Content, of commit: ObjectID, as other: ObjectID, source: CommitSource) throws -> (Content, Set<String>)? {
        guard content.root == source.contentRoot else { return nil }
        var content = content
        var keys: Set<String> = []
        for change in try diff.changes(from: commit, to: other) {
            guard change.status == .modified, change.bothFiles, let id = change.newID,
                let relative = source.contentRoot.relative(change.path)
            else { return nil }
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                case .rateTable(let partner, let product, _) = FileRole(relative),
                try loader.replaceRateTable(in: &content, with: TreeEntry(path: relative, kind: .file, id: id), from: source)
            else { return nil }
            keys.insert("\(partner)/\(product)")
        }
        return (content, keys)
    }

    /// `found` without what the history rules added (they report only HIS-* problems, which no
    /// other rule reports), for a commit that was checked in full.
    package static func withoutHistory(_ found: [Diagnostic], _ content: Content, base: Content?, context: ValidationContext) -> [Diagnostic] {
        guard let base else { return found }
        let history = Diagnostics()
        HistoryRules.check(content, base: base, context: context, into: history)
        let added = Set(history.items)
        return found.filter { !added.contains($0) }
    }

    /// The content reduced to the products `keys`: their product files, rate tables, partners and
    /// file problems, with every shared file and file set kept.
    package static func cut(_ content: Content, to keys: Set<String>, paths: Set<String>) -> Content {
        var cut = Content(root: content.root)
        cut.config = content.config
        cut.limits = content.limits
        cut.phrases = content.phrases
        cut.quotationWarnings = content.quotationWarnings
        cut.signoffs = content.signoffs
        let wanted = FewKeys(keys)
        // Fields read through buffer pointers: indexing the arrays would copy each value whole
        // to test it (3,000 products and 6,000 tables, twice for each edit a watch checks).
        cut.products = content.products.withUnsafeBufferPointer { products in
            products.indices.filter { wanted.contains(partner: products[$0].folderPartner, product: products[$0].folderID) }.map { products[$0] }
        }
        let partners = Set(cut.products.map(\.partner.value))
        cut.partners = content.partners.withUnsafeBufferPointer { all in all.indices.filter { partners.contains(all[$0].id.value) }.map { all[$0] } }
        cut.rateTables = content.rateTables.withUnsafeBufferPointer { tables in tables.indices.filter { wanted.contains(tables[$0].productKey) }.map { tables[$0] } }
        cut.assets = content.assets
        cut.partnerFiles = content.partnerFiles
        cut.productFiles = content.productFiles
        cut.fileDiagnostics = content.fileDiagnostics.filter { paths.contains($0.path) }
        return cut
    }

    /// As `Validator.check` returns them: each once, sorted.
    package static func unique(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        Array(Set(diagnostics)).sorted()
    }
}

/// Membership in the handful of product keys a commit changed, asked once per rate table and
/// product of the whole content for every commit of a range: comparing with a few strings
/// costs less than hashing each key for a set lookup.
package struct FewKeys {
    private let list: [String]
    private let set: Set<String>
    /// The keys split at their "/": a product's key is built from its two folder names, which
    /// are compared as they are stored (building the key would copy the product each time).
    private let pairs: Set<Pair>

    private struct Pair: Hashable {
        var partner: Substring
        var product: Substring
    }

    package init(_ keys: Set<String>) {
        set = keys
        list = keys.count <= 8 ? Array(keys) : []
        pairs = Set(
            keys.compactMap { key in
                guard let slash = key.firstIndex(of: "/") else { return nil }
                return Pair(partner: key[..<slash], product: key[key.index(after: slash)...])
            })
    }

    package func contains(_ key: String) -> Bool {
        set.count <= 8 ? list.contains(key) : set.contains(key)
    }

    package func contains(partner: String, product: String) -> Bool {
        if set.count <= 8 { return pairs.contains { $0.product == product && $0.partner == partner } }
        return set.contains("\(partner)/\(product)")
    }
}
