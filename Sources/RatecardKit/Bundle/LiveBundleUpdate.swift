import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

extension LiveBundle {
    /// This bundle with the products `products` (the content's products of the rate tables
    /// `keys`, edited in place) rendered anew from `content`, which holds their partners whole:
    /// their data documents, the comparison shards and document lists of their partners, their
    /// partners' rates pages and lines of `rates.html`, and `partners.html` through the new
    /// bundle id in its logo paths; every other file is this bundle's, reused by hash. Nil when
    /// the bundle does not have the shape a full build would give (the caller builds in full).
    /// `IncrementalBundle` decides when this applies and checks the content first. `objects`:
    /// where the release to be published serves its objects (`BundleManifest.objects`), so that
    /// the manifest and the entry document are written once, as the release has them.
    package func updating(
        _ products: [Product], of content: Content, keys: Set<String>, asOf: Day, commit: ObjectID, sourceRoot: String?, objects: String? = nil
    ) throws -> BundleBuilder.Output? {
        let documents = DataDocuments(content: content, asOf: asOf)
        let pages = StaticPages(documents: documents, bundleID: "", cache: nil)
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
        let shardNames = self.files.compactMap { file -> String? in
            let path = file.path.dropFirst(dataFolder.count)
            guard file.path.hasPrefix(dataFolder), path.hasPrefix("compare/"), path.hasSuffix(".json") else { return nil }
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
            var shard = try CompareIndex.Shard(decoding: try read(CompareIndex.Shard.path(name), inData: true))
            guard partners.isSubset(of: shard.partners.map(\.id)) else { return nil }
            shard.items = (shard.items.filter { !partners.contains($0.partner) } + partners.flatMap { items[$0] ?? [] })
                .sorted { ($0.partner, $0.id) < ($1.partner, $1.id) }
            data[CompareIndex.Shard.path(name)] = shard.bytes()
            var list = try DocumentLists.read(try read(DocumentLists.path(name), inData: true))
            for key in keys where partners.contains(String(key.prefix { $0 != "/" })) {
                guard list[key] != nil else { return nil }
                list[key] = documentHashes[key]
            }
            let bytes = DocumentLists.list(list.map { ($0.key, $0.value) })
            data[DocumentLists.path(name)] = bytes
            listHashes[name] = SHA256.hex(bytes)
        }
        var lists = try DocumentLists.readIndex(try read(DocumentLists.index, inData: true))
        for (name, hash) in listHashes {
            guard lists[name] != nil else { return nil }
            lists[name] = hash
        }
        data[DocumentLists.index] = DocumentLists.index(lists.map { ($0.key, $0.value) })
        var rates = try read("rates.html")
        var partnerPages: [String: [UInt8]] = [:]
        for partner in changedPartners.sorted() {
            guard let model = content.partner(partner), model.status.value == .active else { continue }
            let comparable = content.products.filter { $0.folderPartner == partner }.compactMap { product in pages.comparableTable(of: product).map { (product, $0) } }
            partnerPages[BundleLayout.ratesPage(partner)] = Array(pages.partnerRatesPage(model, products: comparable).utf8)
            let row = pages.ratesIndexRow(partner, nameKo: model.nameKo.value, items[partner] ?? [])
            guard let spliced = Self.replacingRow(partner, with: Array(row.markup.utf8), in: rates) else { return nil }
            rates = spliced
        }
        let livePartners = try read("partners.html")
        // Only files the live bundle has are rewritten: the bundle keeps its list of files.
        let livePaths = Set(self.files.map(\.path))
        guard data.keys.allSatisfy({ livePaths.contains(dataFolder + $0) }), partnerPages.keys.allSatisfy(livePaths.contains) else { return nil }

        Trace.mark("incremental: rendered and spliced")
        // The bundle id hashes the data folder's listing, as a full build does.
        var dataFiles: [BundleManifest.File] = []
        for file in self.files where file.path.hasPrefix(dataFolder) {
            let path = String(file.path.dropFirst(dataFolder.count))
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
            Array("src=\"\(dataFolder)".utf8), with: Array("src=\"\(folderName)".utf8), in: livePartners)
        var listed: [BundleManifest.File] = []
        var reused: [String: String] = [:]
        for file in dataFiles {
            let path = folderName + file.path
            listed.append(BundleManifest.File(path: path, sha256: file.sha256, size: file.size))
            if files[path] == nil { reused[path] = dataFolder + file.path }
        }
        for file in self.files where !file.path.hasPrefix(dataFolder) {
            if let bytes = files[file.path] {
                listed.append(BundleManifest.File(path: file.path, sha256: SHA256.hex(bytes), size: bytes.count))
            } else {
                listed.append(file)
                reused[file.path] = file.path
            }
        }
        listed.sort { $0.path < $1.path }
        // Reused files are carried on as they are: each must still be what the live manifest says.
        // In the object layout the store's put checks every object it is given without bytes
        // (and refuses a changed one), so only a live release of the folder layout is checked here.
        if release.format < ObjectLayout.objectsSince {
            let sources = reused.keys.sorted()
            let expected = Dictionary(listed.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            for path in sources {
                guard let file = expected[path], let bytes = try store.readFile(reused[path]!, of: release.id, info: release), bytes.count == file.size,
                    SHA256.hex(bytes) == file.sha256
                else { return nil }
            }
            Trace.mark("incremental: \(sources.count) reused files checked")
        }
        var manifest = BundleManifest(
            bundleID: bundleID, sourceCommit: commit, sourceDirty: false, asOf: asOf,
            generator: BundleBuilder.generator, files: listed, sourceRoot: sourceRoot)
        manifest.objects = objects
        files[BundleLayout.manifest] = manifest.bytes()
        files[BundleLayout.entry] = EntryDocument.bytes(manifest, objects: objects)
        Trace.mark("incremental: manifest")
        return BundleBuilder.Output(files: files, manifest: manifest, reused: reused)
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
