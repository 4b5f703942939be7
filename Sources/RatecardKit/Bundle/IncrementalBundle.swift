import Glibc
import RatecardCore
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
/// it in more than rate tables (so history rules could find errors), more than
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

    public init(location: ContentLocation, asOf: Day) {
        self.location = location
        self.asOf = asOf
    }

    /// The bundle of `commit` derived from the live release `release` of `root`, or nil (build in full).
    /// `known`: the live release's version.json, when the caller has read it already.
    public func build(commit: ObjectID, root: ServeRoot, live release: String, known: ReleaseInfo? = nil) -> Outcome? {
        try? derive(commit: commit, root: root, live: release, known: known)
    }

    private func derive(commit: ObjectID, root: ServeRoot, live release: String, known: ReleaseInfo?) throws -> Outcome? {
        let repository = try location.requireRepository()
        let live = try LiveBundle(root: root, release: release, known: known)
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
        // something if that step changed more than rate tables.
        guard let parent = try repository.commitInfo(commit).parents.first else { return nil }
        if parent != liveCommit {
            guard Self.editedRateTables(try diff.changes(from: parent, to: commit), prefix: source.contentRoot.displayPrefix) != nil else { return nil }
        }

        Trace.mark("incremental: \(keys.count) products changed since live")
        let content = try Self.load(keys, from: source)
        Trace.mark("incremental: loaded")
        // Every finding in the changed products' folders counts, a table that does not parse
        // (and so is not in the content) included.
        let folders = keys.map { "\(source.contentRoot.displayPrefix)products/\($0)/" }
        let found = Validator(context: ValidationContext(asOf: asOf)).check(content).filter { finding in
            folders.contains { finding.path.hasPrefix($0) }
        }
        if found.contains(where: { $0.severity == .error }) { return .invalid }
        let products = content.products.filter { keys.contains($0.key) }.sorted { $0.key < $1.key }
        guard Set(products.map(\.key)) == keys else { return nil }

        Trace.mark("incremental: checked")
        let documents = DataDocuments(content: content, asOf: asOf)
        let pages = StaticPages(documents: documents, bundleID: "")
        var data: [String: [UInt8]] = [:]
        var documentHashes: [String: String] = [:]
        for product in products {
            let bytes = documents.product(product).bytes(terminator: "\n")
            data["products/\(product.key).json"] = bytes
            documentHashes[product.key] = SHA256.hex(bytes)
        }
        // The shards are the live bundle's (a rate update moves no partner to another shard);
        // each changed partner's items, page and line of rates.html are rendered anew from its
        // products, all of which were read.
        let shardNames = live.files.compactMap { file -> String? in
            let path = file.path.dropFirst(live.dataFolder.count)
            guard file.path.hasPrefix(live.dataFolder), path.hasPrefix("compare/"), path.hasSuffix(".json") else { return nil }
            return String(path.dropFirst("compare/".count).dropLast(".json".count))
        }.sorted()
        let changedPartners = Set(keys.map { String($0.prefix { $0 != "/" }) })
        var partnersByShard: [String: Set<String>] = [:]
        for partner in changedPartners {
            guard let shard = CompareIndex.shard(of: partner, in: shardNames) else { return nil }
            partnersByShard[shard, default: []].insert(partner)
        }
        let items = Dictionary(grouping: content.products.filter { changedPartners.contains($0.folderPartner) }.compactMap(documents.compareItem), by: \.partner)
        var listHashes: [String: String] = [:]
        for (name, partners) in partnersByShard {
            var shard = try CompareIndex.Shard(decoding: try live.read(CompareIndex.Shard.path(name), inData: true))
            guard partners.isSubset(of: shard.partners.map(\.id)) else { return nil }
            shard.items = (shard.items.filter { !partners.contains($0.partner) } + partners.flatMap { items[$0] ?? [] })
                .sorted { ($0.partner, $0.id) < ($1.partner, $1.id) }
            data[CompareIndex.Shard.path(name)] = shard.bytes()
            var list = try DocumentLists.read(try live.read(DocumentLists.path(name), inData: true))
            for key in keys where partners.contains(String(key.prefix { $0 != "/" })) {
                guard list[key] != nil else { return nil }
                list[key] = documentHashes[key]
            }
            let bytes = DocumentLists.list(list.map { ($0.key, $0.value) })
            data[DocumentLists.path(name)] = bytes
            listHashes[name] = SHA256.hex(bytes)
        }
        var lists = try DocumentLists.readIndex(try live.read(DocumentLists.index, inData: true))
        for (name, hash) in listHashes {
            guard lists[name] != nil else { return nil }
            lists[name] = hash
        }
        data[DocumentLists.index] = DocumentLists.index(lists.map { ($0.key, $0.value) })
        var rates = try live.read("rates.html")
        var partnerPages: [String: [UInt8]] = [:]
        for partner in changedPartners.sorted() {
            guard let model = content.partner(partner), model.status.value == .active else { continue }
            let comparable = content.products.filter { $0.folderPartner == partner }.compactMap { product in pages.comparableTable(of: product).map { (product, $0) } }
            partnerPages[BundleLayout.ratesPage(partner)] = Array(pages.partnerRatesPage(model, products: comparable).utf8)
            let row = pages.ratesIndexRow(partner, nameKo: model.nameKo.value, items[partner] ?? [])
            guard let spliced = Self.replacingRow(partner, with: Array(row.markup.utf8), in: rates) else { return nil }
            rates = spliced
        }
        let livePartners = try live.read("partners.html")
        // Only files the live bundle has are rewritten: the bundle keeps its list of files.
        let livePaths = Set(live.files.map(\.path))
        guard data.keys.allSatisfy({ livePaths.contains(live.dataFolder + $0) }), partnerPages.keys.allSatisfy(livePaths.contains) else { return nil }

        Trace.mark("incremental: rendered and spliced")
        // The bundle id hashes the data folder's listing, as a full build does.
        var dataFiles: [BundleManifest.File] = []
        for file in live.files where file.path.hasPrefix(live.dataFolder) {
            let path = String(file.path.dropFirst(live.dataFolder.count))
            dataFiles.append(
                data[path].map { BundleManifest.File(path: path, sha256: SHA256.hex($0), size: $0.count) }
                    ?? BundleManifest.File(path: path, sha256: file.sha256, size: file.size))
        }
        dataFiles.sort { $0.path < $1.path }
        var listing: [UInt8] = []
        listing.reserveCapacity(dataFiles.count * 120)
        for file in dataFiles {
            listing.append(contentsOf: file.sha256.utf8)
            listing.append(0x20)
            listing.append(contentsOf: String(file.size).utf8)
            listing.append(0x20)
            listing.append(contentsOf: file.path.utf8)
            listing.append(0x0A)
        }
        let bundleID = String(SHA256.hex(listing).prefix(16))
        let folderName = BundleLayout.dataFolder(bundleID)

        var files: [String: [UInt8]] = [:]
        for (path, bytes) in data { files[folderName + path] = bytes }
        files["rates.html"] = rates
        for (path, page) in partnerPages { files[path] = page }
        files["partners.html"] = Self.replacing(
            Array("src=\"\(live.dataFolder)".utf8), with: Array("src=\"\(folderName)".utf8), in: livePartners)
        var listed: [BundleManifest.File] = []
        var reused: [String: String] = [:]
        for file in dataFiles {
            let path = folderName + file.path
            listed.append(BundleManifest.File(path: path, sha256: file.sha256, size: file.size))
            if files[path] == nil { reused[path] = live.location(of: BundleManifest.File(path: live.dataFolder + file.path, sha256: file.sha256, size: file.size)) }
        }
        for file in live.files where !file.path.hasPrefix(live.dataFolder) {
            if let bytes = files[file.path] {
                listed.append(BundleManifest.File(path: file.path, sha256: SHA256.hex(bytes), size: bytes.count))
            } else {
                listed.append(file)
                reused[file.path] = live.location(of: file)
            }
        }
        listed.sort { $0.path < $1.path }
        // Reused files are carried on as they are: each must still be what the live manifest says.
        // In the object layout the store's put checks every object it is given without bytes
        // (and refuses a changed one), so only a live release of the folder layout is checked here.
        if live.release.format != ObjectLayout.format {
            let sources = reused.sorted { $0.key < $1.key }
            let expected = Dictionary(listed.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            let verified = VerifiedFiles.load(root: root.path)
            let intact = ParallelMap.map(sources) { verified.matches($0.value, expected[$0.key]!) }
            guard intact.allSatisfy({ $0 }) else { return nil }
            Trace.mark("incremental: \(sources.count) reused files checked")
        }
        let manifest = BundleManifest(
            bundleID: bundleID, sourceCommit: commit, sourceDirty: false, asOf: asOf,
            generator: BundleBuilder.generator, files: listed, sourceRoot: source.contentRoot.treePath)
        files[BundleLayout.manifest] = manifest.bytes()
        files[BundleLayout.entry] = EntryDocument.bytes(manifest, objects: nil)
        Trace.mark("incremental: manifest")
        return .built(
            BundleBuilder.Output(files: files, manifest: manifest, reused: reused), products: products.map(\.key),
            scheduled: content.nextScheduledChange(after: asOf))
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
    static func load(_ keys: Set<String>, from source: CommitSource) throws -> Content {
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
            var content = try ContentLoader().load(SubsetSource(base: source, subset: subset))
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

    /// `rates.html` with the line `<li id="<partner>">…</li>` replaced by `row`; nil when it has
    /// no such line. A line holds no other list item, and its text is escaped, so the first
    /// `</li>` after its start closes it.
    static func replacingRow(_ partner: String, with row: [UInt8], in page: [UInt8]) -> [UInt8]? {
        let open = Array("<li id=\"\(HTML.escape(partner))\">".utf8)
        let close = Array("</li>".utf8)
        guard let start = Bytes.find(open, in: page, from: 0), let end = Bytes.find(close, in: page, from: start) else { return nil }
        return Array(page[..<start]) + row + Array(page[(end + close.count)...])
    }

    static func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var start = 0
        while let found = Bytes.find(pattern, in: bytes, from: start) {
            out += bytes[start..<found]
            out += replacement
            start = found + pattern.count
        }
        out += bytes[start...]
        return out
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
