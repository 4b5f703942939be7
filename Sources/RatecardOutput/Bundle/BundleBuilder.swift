import RatecardCore
import RatecardSupport

/// Renders validated content into a bundle: every file's bytes, in memory, plus the manifest.
public struct BundleBuilder {
    public static let generator = BuildFingerprint.generator

    public var asOf: Day
    public var sourceCommit: ObjectID?
    public var sourceDirty: Bool
    /// The content root inside the repository's tree, nil when the content is not in git.
    public var sourceRoot: String?
    /// Units rendered by an earlier build of this process, reused when their inputs are the
    /// same (`preview --watch`); nil renders everything.
    public var memo: RenderMemo?
    /// Terms pages kept between runs (the run's `Caches.build`); nil renders them.
    public var cache: BuildCache?
    /// The terms articles the load of this content rendered (the run's `Caches.articles`), if any.
    package var articles: PageArticles?
    /// Terms pages and product documents the build cache holds are named by their entry
    /// (`Output.cached`), not read: for a writer that finds most of them already on disk
    /// (`build --out`) and reads only those it writes.
    public var namesCachedPages = false

    public init(asOf: Day, sourceCommit: ObjectID?, sourceDirty: Bool, sourceRoot: String? = nil, cache: BuildCache?) {
        self.asOf = asOf
        self.sourceCommit = sourceCommit
        self.sourceDirty = sourceDirty
        self.sourceRoot = sourceRoot
        self.cache = cache
    }

    /// A rendered bundle: relative path -> bytes (the manifest included).
    public struct Output: Sendable {
        public var files: [String: [UInt8]]
        public var manifest: BundleManifest
        /// Files of the bundle whose bytes are not in `files` because the live release has an
        /// identical one (an incremental build reuses them): bundle path -> that file's path in
        /// the live release. Their hashes and sizes are in `manifest`.
        public var reused: [String: String] = [:]
        /// Files of the bundle whose bytes are not in `files` because the build cache holds
        /// them (`namesCachedPages`): bundle path -> the entry. Their hashes and sizes are in
        /// `manifest` too.
        public var cached: [String: CachedFile] = [:]

        package init(files: [String: [UInt8]], manifest: BundleManifest, reused: [String: String] = [:]) {
            self.files = files
            self.manifest = manifest
            self.reused = reused
        }

        /// How many files the bundle has, and their bytes.
        public var size: (files: Int, bytes: Int) {
            (files.count + cached.count, files.values.reduce(0) { $0 + $1.count } + cached.values.reduce(0) { $0 + $1.size })
        }
    }

    /// A file the build cache holds: its entry's key, and the sha256 (hex) and size its signed
    /// index gives.
    public struct CachedFile: Sendable {
        public var key: BuildCache.Key
        public var sha256: String
        public var size: Int

        /// The entry under `key`, as `cache`'s index names it (its bytes not read); nil when none.
        static func stored(_ key: BuildCache.Key, in cache: BuildCache) -> CachedFile? {
            cache.stored(key).map { CachedFile(key: key, sha256: SHA256.hex(digest: $0.sha256), size: $0.size) }
        }
    }

    /// Renders `content` as shown on the as-of date (a partner that goes live later is left out
    /// with its products and logo); `readAsset` supplies the bytes of a content-relative asset path.
    public func build(_ content: Content, readAsset: (String) throws -> [UInt8]) throws -> Output {
        let content = memo.map { $0.served(content, on: asOf) } ?? content.served(on: asOf)
        let documents = DataDocuments(content: content, asOf: asOf)
        Trace.mark("build: indexes")
        let memo = self.memo
        // Terms pages first (they name no bundle id): the terms index gives each page's hash.
        let termsPageMaker = StaticPages(documents: documents, bundleID: "", cache: cache, memo: memo, articles: articles)
        let namesCached = namesCachedPages && cache != nil
        let termsPages = ParallelMap.map(content.terms) { version -> (bytes: [UInt8]?, cached: CachedFile?) in
            if namesCached, let cached = termsPageMaker.storedTermsPage(version) { return (nil, cached) }
            return (termsPageMaker.termsPageBytes(version), nil)
        }
        let termsPaths = content.terms.map { BundleLayout.termsPage($0.documentID, $0.fileVersion) }
        let termsHashes = ParallelMap.map(termsPages) { $0.cached?.sha256 ?? memo.sha256($0.bytes!) }
        let pageHashes = Dictionary(zip(termsPaths, termsHashes), uniquingKeysWith: { first, _ in first })
        Trace.mark("build: terms pages")
        var data: [String: [UInt8]] = [
            "service.json": Self.json(documents.service()),
            // Each document's entry by the key of what it lists: a terms edit writes one again.
            "terms.json": DataDocuments.termsIndexBytes(
                ParallelMap.map(content.documentIDs) { document in
                    memo.page(documents.termsDocumentKey(document, pageHashes: pageHashes)) { documents.termsDocument(document, pageHashes: pageHashes).bytes(indent: 2) }
                }),
            "limits.json": Self.json(documents.limits()),
            "phrases.json": Self.json(documents.phrases()),
        ]
        Trace.mark("build: terms.json")
        var hashes: [String: String] = [:]
        for asset in content.assets.sorted() {
            data[asset] = try readAsset(asset)
            hashes[asset] = memo.sha256(data[asset]!)
        }
        let logoHashes = hashes
        data["partners.json"] = memo.page(documents.partnersIndexKey(logoHashes: logoHashes)) { Self.json(documents.partners(logoHashes: logoHashes)) }
        Trace.mark("build: data documents")
        // Products by key (`orderedProducts`' order), as positions in the content: a `Product` is
        // a large value, and copying 3,000 of them costs more than the rest of a watch rebuild.
        let all = content.products
        let names = documents.productNames
        let order = all.indices.sorted { names[$0] < names[$1] }
        Trace.mark("build: products ordered")
        // Each product's key is computed once, for its document, its rates section and its
        // partner's page (a watching process takes what an edit did not touch from its memo).
        var productKeys: [String: BuildCache.Key] = [:]
        if memo != nil, let shared = content.keyBuilder("product-document") {
            for (index, key) in zip(order, ParallelMap.map(order) { documents.productKey(at: $0, shared: shared) }) {
                if let key { productKeys[names[index]] = key }
            }
        }
        let keys = productKeys
        // Each product's document and its hash once, on two threads.
        // With `namesCachedPages`, a document the build cache holds is named by its entry.
        let store = namesCached ? cache : nil
        let rendered = ParallelMap.map(order) { index -> (bytes: [UInt8]?, cached: CachedFile?, hash: String) in
            if let store, let key = keys[names[index]], let cached = CachedFile.stored(key, in: store) { return (nil, cached, cached.sha256) }
            let bytes = memo.page(keys[names[index]]) { documents.product(all[index]).bytes(terminator: "\n") }
            return (bytes, nil, memo.sha256(bytes))
        }
        var documentHashes: [String: String] = [:]
        var cachedData: [String: CachedFile] = [:]
        for (index, made) in zip(order, rendered) {
            let path = "products/\(names[index]).json"
            if let bytes = made.bytes { data[path] = bytes } else { cachedData[path] = made.cached }
            hashes[path] = made.hash
            documentHashes[names[index]] = made.hash
        }
        Trace.mark("build: product documents")
        // The comparison index, and each shard's list of product documents: all of it the last
        // build's when every product's key, every logo and the as-of date are as they were (a
        // watching process's terms edit).
        let comparison = memo.comparison(memo == nil ? nil : Self.comparisonKey(order.map { names[$0] }, keys: keys, logoHashes: logoHashes)) {
            let items = memo.map { memo in memo.compareItems(all.indices.map { keys[names[$0]] }) { documents.compareItem(all[$0]) } }
            let shards = documents.compareShards(logoHashes: hashes, items: items)
            var files: [(path: String, bytes: [UInt8])] = []
            var lists: [(shard: String, sha256: String)] = []
            let keysByPartner = Dictionary(grouping: order.map { names[$0] }, by: { String($0.prefix { $0 != "/" }) })
            let hashesByKey = documentHashes
            // Each shard's bytes and its list, on two threads (a cold build writes all of them).
            let made = ParallelMap.map(shards, threshold: 4) { shard -> (bytes: [UInt8], list: [UInt8], listSHA256: String) in
                let keys = shard.partners.flatMap { keysByPartner[$0.id] ?? [] }
                let list = memo.listBytes(shard.name, keys: keys, hashes: keys.map { hashesByKey[$0]! })
                return (memo.shardBytes(shard), list, memo.sha256(list))
            }
            for (shard, made) in zip(shards, made) {
                files.append((CompareIndex.Shard.path(shard.name), made.bytes))
                files.append((DocumentLists.path(shard.name), made.list))
                lists.append((shard.name, made.listSHA256))
            }
            files.append((DocumentLists.index, DocumentLists.index(lists)))
            return RenderMemo.Comparison(shards: shards, files: files)
        }
        for (path, bytes) in comparison.files { data[path] = bytes }
        let shards = comparison.shards
        Trace.mark("build: comparison shards and document lists")
        // The bundle id hashes the data folder's listing: "<sha256> <size> <path>" per file, sorted.
        var listing: [UInt8] = []
        let dataPaths = (Array(data.keys) + Array(cachedData.keys)).sorted()
        listing.reserveCapacity(dataPaths.count * 120)
        let dataFiles = data
        let known = hashes
        let dataHashes = ParallelMap.map(dataPaths) { known[$0] ?? memo.sha256(dataFiles[$0]!) }
        let dataSize = { (path: String) in dataFiles[path]?.count ?? cachedData[path]!.size }
        for (path, hash) in zip(dataPaths, dataHashes) {
            listing.append(contentsOf: hash.utf8)
            listing.append(UInt8(ascii: " "))
            Bytes.appendDecimal(dataSize(path), to: &listing)
            listing.append(UInt8(ascii: " "))
            listing.append(contentsOf: path.utf8)
            listing.append(UInt8(ascii: "\n"))
        }
        let bundleID = String(SHA256.hex(listing).prefix(16))
        Trace.mark("build: data hashes and bundle id")
        let folder = BundleLayout.dataFolder(bundleID)

        var files: [String: [UInt8]] = [:]
        files.reserveCapacity(data.count + content.terms.count + content.partners.count + 8)
        for (path, bytes) in data { files[folder + path] = bytes }
        var cached: [String: CachedFile] = [:]
        for (path, file) in cachedData { cached[folder + path] = file }
        for (path, page) in zip(termsPaths, termsPages) {
            if let bytes = page.bytes { files[path] = bytes } else { cached[path] = page.cached }
        }
        let pages = StaticPages(documents: documents, bundleID: bundleID, cache: cache, memo: memo, productKeys: productKeys)
        files["rates.html"] = Array(pages.ratesIndex(items: Dictionary(grouping: shards.flatMap(\.items), by: \.partner)).utf8)
        Trace.mark("build: rates.html")
        for (path, page) in pages.partnerRatesPages() { files[path] = page }
        Trace.mark("build: partners' rates pages")
        files["partners.html"] = Array(pages.partnersPage().utf8)

        Trace.mark("build: rates and partners pages")
        // The listing: the data folder's files as hashed above (in their sorted order, under one
        // folder) merged with the pages, hashed now.
        let (pageFiles, cachedPages) = (files, cached)
        let pagePaths = (files.keys.filter { !$0.hasPrefix(folder) } + cached.keys.filter { !$0.hasPrefix(folder) }).sorted()
        let pageListing = ParallelMap.map(pagePaths) { path in
            if let page = cachedPages[path] { return BundleManifest.File(path: path, sha256: page.sha256, size: page.size) }
            return BundleManifest.File(path: path, sha256: memo.sha256(pageFiles[path]!), size: pageFiles[path]!.count)
        }
        Trace.mark("build: pages hashed")
        let dataListing = zip(dataPaths, dataHashes).map { path, hash in BundleManifest.File(path: folder + path, sha256: hash, size: dataSize(path)) }
        var listed: [BundleManifest.File] = []
        listed.reserveCapacity(pageListing.count + dataListing.count)
        var (page, dataFile) = (0, 0)
        while page < pageListing.count || dataFile < dataListing.count {
            if dataFile == dataListing.count || (page < pageListing.count && pageListing[page].path < dataListing[dataFile].path) {
                listed.append(pageListing[page])
                page += 1
            } else {
                listed.append(dataListing[dataFile])
                dataFile += 1
            }
        }
        let manifest = BundleManifest(
            bundleID: bundleID, sourceCommit: sourceCommit, sourceDirty: sourceDirty, asOf: asOf,
            generator: BundleBuilder.generator, files: listed, sourceRoot: sourceRoot)
        files[BundleLayout.manifest] = manifest.bytes()
        files[BundleLayout.entry] = EntryDocument.bytes(manifest, objects: nil)
        Trace.mark("build: manifest and entry document")
        var output = Output(files: files, manifest: manifest)
        output.cached = cached
        return output
    }

    private static func json(_ value: JSON) -> [UInt8] { value.bytes(terminator: "\n") }

    /// What the comparison index and its document lists are made from: each product's key (its
    /// files, its partner's, its tables and the as-of date) in the build's order, and the logos'
    /// hashes. Nil when a product has no key.
    static func comparisonKey(_ products: [String], keys: [String: BuildCache.Key], logoHashes: [String: String]) -> BuildCache.Key? {
        var builder = BuildCache.Key.Builder("comparison")
        for name in products {
            guard let key = keys[name] else { return nil }
            builder.append(name)
            builder.append(key: key)
        }
        for (path, hash) in logoHashes.sorted(by: { $0.key < $1.key }) {
            builder.append(path)
            builder.append(hash)
        }
        return builder.key
    }
}
