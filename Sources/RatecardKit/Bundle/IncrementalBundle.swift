import Glibc
import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// The bundle of a commit derived from the live release's bundle, when the commit differs from
/// the live release's commit only in rate tables edited in place (the everyday rate update).
///
/// Such a change can alter only the changed products' data documents, the comparison shards and
/// document lists of their partners (and `documents.json`, which names the lists), their
/// partners' rates pages and lines of `rates.html`, and, through the new bundle id in its logo
/// paths, `partners.html`; every other file of the bundle keeps its bytes. So only the changed
/// products' partners are read, only the changed products and what their rules read are checked
/// (the argument written out in `IncrementalRange`: the rest of the content was checked clean
/// when the live release was published, for the same date), those partners' documents, shards
/// and pages are rendered by the code a full build uses (the shards and lists from the live
/// ones, with those partners' parts replaced), and every other file is reused from the live
/// release by hash. The result is byte-for-byte what a full build gives;
/// `IncrementalPublishTests` compares the two.
///
/// Any other case returns nil and the caller builds in full: another kind of change (a file
/// added, deleted or moved, a partner, product or terms file edited), another as-of date,
/// content root or build (`BuildFingerprint`: another ratecard, cmark or libyaml) than the
/// live bundle's, a live release without a source commit, a commit whose parent differs from
/// it in more than rate tables (so history rules of other files could find errors), a parent
/// that cannot be read, more than
/// `maximumProducts` products changed, a live file to re-render from that no longer matches its hash,
/// or anything unexpected on the way (the full build then reports it).
public struct IncrementalBundle {
    public enum Outcome {
        /// The bundle, the keys of the products re-rendered, and the first day after the as-of
        /// date on which something in the re-read part of the content takes effect (the rest is
        /// the live release's: its `stale_from` still holds for it).
        case built(BundleBuilder.Output, products: [String], scheduled: Day?)
        /// A changed product has errors: build in full, which refuses with the complete report.
        case invalid
    }

    public static let maximumProducts = 64

    public var location: ContentLocation
    public var asOf: Day
    /// The run's caches (the changed files are parsed through them).
    public var caches: Caches

    public init(location: ContentLocation, asOf: Day, caches: Caches) {
        self.location = location
        self.asOf = asOf
        self.caches = caches
    }

    /// The bundle of `commit` derived from the live release `release` of `root`, or nil (build in full).
    /// `known`: the live release's version.json, when the caller has read it already.
    public func build(commit: ObjectID, root: any ReleaseStore, live release: String, known: ReleaseInfo? = nil) -> Outcome? {
        try? derive(commit: commit, root: root, live: release, known: known)
    }

    private func derive(commit: ObjectID, root: any ReleaseStore, live release: String, known: ReleaseInfo?) throws -> Outcome? {
        let repository = try location.requireRepository()
        let live = try LiveBundle(store: root, release: release, known: known)
        guard live.asOf == asOf.description, live.generator == BundleBuilder.generator, live.build == BuildFingerprint.value,
            !live.dirty, let liveCommit = live.commit
        else { return nil }
        let source = try location.source(for: commit)
        guard live.sourceRoot == source.contentRoot.treePath else { return nil }
        let diff = try TreeDiff(gitDir: repository.gitDir)
        guard let keys = Self.editedRateTables(try diff.changes(from: liveCommit, to: commit), prefix: source.contentRoot.displayPrefix),
            keys.count <= Self.maximumProducts
        else { return nil }
        // The full check compares the commit with its parent: terms rules can only find
        // something if that step changed more than rate tables, and the history rules of the
        // tables it changed (a table that took effect is a record, HIS-08) run here too.
        let info = try repository.commitInfo(commit)
        guard let parent = info.parents.first else { return nil }
        var stepKeys = keys
        if parent != liveCommit {
            guard let step = Self.editedRateTables(try diff.changes(from: parent, to: commit), prefix: source.contentRoot.displayPrefix) else { return nil }
            stepKeys = step
        }

        Trace.mark("incremental: \(keys.count) products changed since live")
        let content = try Self.load(keys, from: source, caches: caches)
        // What is checked: the products changed since live and those the commit changed, against
        // the parent's part, read the same way. A parent that cannot be read (the edge of a
        // shallow clone) sends the publish to the full build, which refuses it.
        let checkKeys = keys.union(stepKeys)
        let checked = checkKeys == keys ? content : try Self.load(checkKeys, from: source, caches: caches)
        let before = try Self.load(checkKeys, from: try location.source(for: parent), caches: caches)
        Trace.mark("incremental: loaded")
        // Every finding in the checked products' folders counts, a table that does not parse
        // (and so is not in the content) included.
        let folders = checkKeys.map { "\(source.contentRoot.displayPrefix)products/\($0)/" }
        let found = Validator(context: ValidationContext(asOf: asOf).forCommit(info)).check(checked, base: before).filter { finding in
            folders.contains { finding.path.hasPrefix($0) }
        }
        if found.contains(where: { $0.severity == .error }) { return .invalid }
        // Tables are records against what is live too, not only against the parent: a table the
        // live release's commit had that is past now and was edited sends the publish to the
        // full build, which refuses it.
        if parent != liveCommit {
            let atLive = try Self.load(keys, from: try location.source(for: liveCommit), caches: caches)
            let diagnostics = Diagnostics()
            HistoryRules.checkRecords(content, base: atLive, context: ValidationContext(asOf: asOf), into: diagnostics)
            if diagnostics.items.contains(where: { $0.rule == HistoryRules.pastTable.id && folders.contains(where: $0.path.hasPrefix) }) { return nil }
        }
        // Rendered as the full build shows them (a product whose review has ended as withdrawn).
        let shown = content.served(on: asOf)
        let products = shown.products.filter { keys.contains($0.key) }.sorted { $0.key < $1.key }
        guard Set(products.map(\.key)) == keys else { return nil }

        Trace.mark("incremental: checked")
        guard
            let output = try live.updating(
                products, of: shown, keys: keys, asOf: asOf, commit: commit, sourceRoot: source.contentRoot.treePath, objects: ObjectLayout.urlPrefix)
        else { return nil }
        return .built(output, products: products.map(\.key), scheduled: content.nextScheduledChange(after: asOf))
    }

    /// The `<partner>/<product>` keys of the rate tables changed, when every change is a rate
    /// table edited in place below the content root; nil for any other change.
    static func editedRateTables(_ changes: [TreeDiff.Change], prefix: String) -> Set<String>? {
        var keys: Set<String> = []
        for change in changes {
            guard change.status == .modified, change.bothFiles, change.path.hasPrefix(prefix) else { return nil }
            let relative = String(change.path.dropFirst(prefix.count))
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                case .rateTable(let partner, let product, _) = FileRole(relative)
            else { return nil }
            keys.insert("\(partner)/\(product)")
        }
        return keys
    }

    /// The content cut down to the partners of the products `keys` (their partner files, every
    /// product and rate table of theirs, the shared files), with the file sets of the whole tree,
    /// as `IncrementalRange.cut` has it (its checks are asked only about `keys`; the other
    /// products of those partners are read to render their rates pages and shards).
    static func load(_ keys: Set<String>, from source: CommitSource, caches: Caches) throws -> Content {
        // Listed: every partner and asset file (the file sets), and the changed partners'
        // product folders; not the terms, nor other partners' products. So `productFiles` holds
        // the changed partners' products only, which is all the rules ask of it here: the one
        // rule that reads it (REF, a rate table's product.yaml exists) asks about the cut's tables.
        let changedPartners = Set(keys.map { String($0.split(separator: "/")[0]) })
        let entries = try source.entries { folder in
            let parts = folder.split(separator: "/")
            switch parts.first {
            case "partners", "assets", "regulatory": return true
            case "products":
                switch parts.count {
                case 1: return true
                default: return changedPartners.contains(String(parts[1]))
                }
            default: return false
            }
        }
        var partners = Set(keys.map { String($0.split(separator: "/")[0]) })
        while true {
            let subset = entries.filter { entry in
                switch FileRole(entry.path) {
                case .config, .limits, .phrases: return true
                case .partner(let id): return partners.contains(id)
                case .product(let partner, _), .rateTable(let partner, _, _): return changedPartners.contains(partner)
                default: return false
                }
            }
            var content = try ContentLoader(caches: caches).load(SubsetSource(base: source, subset: subset))
            // A product may name a partner other than its folder's: read that one too.
            let named = Set(content.products.map(\.partner.value))
            if !named.isSubset(of: partners) {
                partners.formUnion(named)
                continue
            }
            for entry in entries where entry.kind == .file {
                switch FileRole(entry.path) {
                case .partner(let id): content.partnerFiles.insert(id)
                case .product(let partner, let product): content.productFiles.insert("\(partner)/\(product)")
                case .asset: content.assets.insert(entry.path)
                default: break
                }
            }
            return content
        }
    }
}

/// A commit's source restricted to some of its entries (the files an incremental check reads).
struct SubsetSource: ContentSource {
    let base: CommitSource
    let subset: [TreeEntry]

    var contentRoot: ContentRoot { base.contentRoot }
    func entries() throws -> [TreeEntry] { subset }
    func read(_ entry: TreeEntry) throws -> [UInt8] { try base.read(entry) }
    func size(_ entry: TreeEntry) throws -> Int { try base.size(entry) }
}
