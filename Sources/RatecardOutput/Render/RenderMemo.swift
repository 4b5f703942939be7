import RatecardCore
import RatecardSupport
import Synchronization

/// Rendered units kept in memory between the builds of one process (`preview --watch`), so a
/// rebuild after an edit renders and hashes only what the edit touched; every other unit
/// (product document, terms page, partner's rates page and its sections, `terms.json`,
/// `partners.json`) is the same bytes as before, found by a key of its inputs; comparison shards
/// and their document lists are reused when their inputs are equal. A builder uses one when it is given one (`BundleBuilder.memo`).
/// A CLI build is given one backed by the build cache (`store`): its pages and sections are then
/// kept between runs too, under the same keys.
///
/// Each key names every file its unit is rendered from (the unit's own files, the shared
/// `ratecard.yaml` and regulatory files) and what the as-of date decides for it, so a hit is the
/// bytes a fresh render would give. A build that finds no memo (every CLI command) renders
/// everything; `PreviewWatchTests` compares each rebuild with a cold build, byte for byte.
///
/// Hashes are remembered by the identity of the bytes: a unit served from the memo is the same
/// array as before, still held here, so its storage cannot have been freed, reused or changed
/// (a write to a shared array copies it first), and its sha256 is the one computed before.
public final class RenderMemo: Sendable {
    /// A kept unit and the generation of the last build that used it.
    private struct Entry<Value: Sendable>: Sendable {
        var value: Value
        var used: Int
    }

    /// One kind of unit, under its own lock (one lock for all kinds, reached through key
    /// paths, copied the whole state on every lookup).
    private final class Table<Key: Hashable & Sendable, Value: Sendable>: Sendable {
        private let entries = Mutex<[Key: Entry<Value>]>([:])

        /// The kept value when `matches` accepts it, marked used by `generation`.
        func hit(_ key: Key, generation: Int, matches: (Value) -> Bool) -> Value? {
            entries.withLock { entries -> Value? in
                guard let index = entries.index(forKey: key), matches(entries.values[index].value) else { return nil }
                entries.values[index].used = generation
                return entries.values[index].value
            }
        }

        func keep(_ key: Key, _ value: Value, generation: Int) {
            entries.withLock { $0[key] = Entry(value: value, used: generation) }
        }

        /// `hit` for many keys under one lock (nil: a miss, or no key).
        func hits(_ keys: [Key?], generation: Int) -> [Value?] {
            entries.withLock { entries in
                keys.map { key -> Value? in
                    guard let key, let index = entries.index(forKey: key) else { return nil }
                    entries.values[index].used = generation
                    return entries.values[index].value
                }
            }
        }

        /// `keep` for many under one lock.
        func keep(_ values: [(Key, Value)], generation: Int) {
            entries.withLock { entries in
                for (key, value) in values { entries[key] = Entry(value: value, used: generation) }
            }
        }

        /// Drops what `generation` did not use, once that is more than an eighth of the table.
        func compact(generation: Int) {
            entries.withLock { table in
                let stale = table.values.reduce(0) { $0 + ($1.used == generation ? 0 : 1) }
                if stale > 0, stale * 8 > table.count { table = table.filter { $0.value.used == generation } }
            }
        }
    }

    private let pages = Table<BuildCache.Key, [UInt8]>()
    private let sections = Table<BuildCache.Key, String>()
    private let items = Table<BuildCache.Key, CompareIndex.Item?>()
    private let shards = Table<String, (shard: CompareIndex.Shard, bytes: [UInt8])>()
    private let lists = Table<String, (keys: [String], hashes: [String], bytes: [UInt8])>()
    private let hashes = Table<Int, (bytes: [UInt8], hex: String)>()
    private let comparisons = Table<String, (key: BuildCache.Key, comparison: Comparison)>()
    /// The products the last build read, its day and the products it served (`Content.productsServed`).
    private let servedProducts = Mutex<(read: [Product], day: Day, served: [Product])?>(nil)
    /// The generation of the last build that took the comparison index whole: it asked for none
    /// of the entries, shards and lists it was made from, which are kept for the next.
    private let comparisonTakenIn = Atomic<Int>(-1)
    private let generation = Atomic<Int>(0)
    private let renderedCount = Atomic<Int>(0)
    private let itemsMadeCount = Atomic<Int>(0)

    /// Where pages and sections are also kept between runs (a CLI build's memo: the run's build
    /// cache), under the same keys; nil for a memo of one process (`preview --watch`).
    private let store: BuildCache?

    /// A memo; `store`: the build cache that also keeps its pages and sections between runs.
    public init(store: BuildCache? = nil) { self.store = store }

    /// Starts a build: what this build does not use is dropped when it ends.
    public func beginBuild() {
        generation.add(1, ordering: .sequentiallyConsistent)
        renderedCount.store(0, ordering: .sequentiallyConsistent)
        itemsMadeCount.store(0, ordering: .sequentiallyConsistent)
    }

    /// How many units the current build rendered (not found in the memo).
    public var rendered: Int { renderedCount.load(ordering: .sequentiallyConsistent) }

    /// How many comparison entries the current build made (not found in the memo).
    package var itemsMade: Int { itemsMadeCount.load(ordering: .sequentiallyConsistent) }

    /// Ends a build. Units it did not use are dropped once they are more than an eighth of a
    /// table (so the memo holds at most about one build and an eighth): rebuilding a table of
    /// thousands of entries after every edit, for the few an edit replaced, cost more than the
    /// edit's own rendering.
    public func endBuild() {
        let generation = generation.load(ordering: .sequentiallyConsistent)
        pages.compact(generation: generation)
        sections.compact(generation: generation)
        if comparisonTakenIn.load(ordering: .relaxed) != generation {
            items.compact(generation: generation)
            shards.compact(generation: generation)
            lists.compact(generation: generation)
        }
        hashes.compact(generation: generation)
        comparisons.compact(generation: generation)
    }

    /// What `table` keeps under `key`, when `matches` accepts it (it is then used by this build);
    /// else what `make` gives, kept (and counted as rendered when `counted`).
    private func reused<Key: Hashable, Value: Sendable>(
        _ table: Table<Key, Value>, _ key: Key, counted: Bool = true, matches: (Value) -> Bool = { _ in true }, make: () -> Value
    ) -> Value {
        let generation = generation.load(ordering: .relaxed)
        if let hit = table.hit(key, generation: generation, matches: matches) { return hit }
        let made = make()
        table.keep(key, made, generation: generation)
        if counted { renderedCount.add(1, ordering: .relaxed) }
        return made
    }

    /// `content` as served on `day` (`Content.served(on:)`): with the products the last build
    /// served when it read these very products (the same storage, kept alive here, so the same
    /// values) for the same day, as after an edit to a rate table or a terms version. Copying
    /// 3,000 products to withdraw the few whose review ended was a twentieth of such a rebuild.
    func served(_ content: Content, on day: Day) -> Content {
        let products = content.products
        if let last = servedProducts.withLock({ $0 }), last.day == day, Self.sameStorage(last.read, products) {
            return content.served(on: day, products: last.served)
        }
        let served = content.productsServed(on: day)
        servedProducts.withLock { $0 = (products, day, served) }
        return content.served(on: day, products: served)
    }

    private static func sameStorage(_ first: [Product], _ second: [Product]) -> Bool {
        first.count == second.count && first.withUnsafeBufferPointer { one in second.withUnsafeBufferPointer { other in one.baseAddress == other.baseAddress } }
    }

    /// A unit's bytes (a product's data document, a terms page, a partner's rates page,
    /// `terms.json`, `partners.json`), by the key of its inputs.
    func page(_ key: BuildCache.Key?, _ make: () -> [UInt8]) -> [UInt8] {
        guard let key else { return make() }
        return reused(pages, key) {
            guard let store else { return make() }
            if let (bytes, digest) = store.readChecked(key) {
                // Its sha256 was computed to check it: remembered, not computed again.
                if let address = Self.address(of: bytes) {
                    hashes.keep(address, (bytes, SHA256.hex(digest: digest)), generation: generation.load(ordering: .relaxed))
                }
                return bytes
            }
            let made = make()
            store.write(key, made)
            return made
        }
    }

    /// A product's section of its partner's rates page, by the key of its inputs.
    func section(_ key: BuildCache.Key?, _ make: () -> String) -> String {
        guard let key else { return make() }
        return reused(sections, key) {
            guard let store else { return make() }
            // The key is its product document's too: kept under a key of its own.
            var builder = BuildCache.Key.Builder("rates-section")
            builder.append(key: key)
            return String(decoding: store.value(builder.key) { Array(make().utf8) }, as: UTF8.self)
        }
    }

    /// Each product's entry in the comparison index (nil: left out), by the key of its product
    /// document (`keys`, by product position), whose inputs (the product, its partner, its
    /// tables, the as-of date) are the entry's too; not counted as rendered (the shard that
    /// holds it is). The kept entries are looked up under one lock, the others made on two
    /// threads (three thousand lookups, each taking the lock from two threads, were a twentieth
    /// of a watch rebuild).
    func compareItems(_ keys: [BuildCache.Key?], _ make: @Sendable (Int) -> CompareIndex.Item?) -> [CompareIndex.Item?] {
        let generation = generation.load(ordering: .relaxed)
        var found = items.hits(keys, generation: generation)
        let missing = found.indices.filter { found[$0] == nil }
        let made = ParallelMap.map(missing) { make($0) }
        itemsMadeCount.add(missing.count, ordering: .relaxed)
        var kept: [(BuildCache.Key, CompareIndex.Item?)] = []
        for (index, item) in zip(missing, made) {
            found[index] = .some(item)
            if let key = keys[index] { kept.append((key, item)) }
        }
        items.keep(kept, generation: generation)
        return found.map { $0! }
    }

    /// A comparison shard's bytes: the earlier build's when the shard is equal to its (the
    /// shard holds everything its bytes are written from), else written now.
    func shardBytes(_ shard: CompareIndex.Shard) -> [UInt8] {
        reused(shards, shard.name, matches: { $0.shard == shard }, make: { (shard, shard.bytes()) }).bytes
    }

    /// The comparison index's shards and the data files made from them (the shards, their
    /// document lists and the lists' index).
    package struct Comparison: Sendable {
        var shards: [CompareIndex.Shard]
        var files: [(path: String, bytes: [UInt8])]
    }

    /// The comparison index and its files: the last build's when `key`
    /// (`BundleBuilder.comparisonKey`) is the same, else made (its shards and lists through
    /// the memo, so an unchanged shard is still the same bytes).
    func comparison(_ key: BuildCache.Key?, _ make: () -> Comparison) -> Comparison {
        guard let key else { return make() }
        let generation = generation.load(ordering: .relaxed)
        if let hit = comparisons.hit("comparison", generation: generation, matches: { $0.key == key }) {
            comparisonTakenIn.store(generation, ordering: .relaxed)
            return hit.comparison
        }
        let made = make()
        comparisons.keep("comparison", (key, made), generation: generation)
        return made
    }

    /// A shard's list of product documents (`DocumentLists.list`): the earlier build's bytes
    /// when it names the same documents with the same hashes.
    func listBytes(_ name: String, keys: [String], hashes: [String]) -> [UInt8] {
        reused(lists, name, matches: { $0.keys == keys && $0.hashes == hashes }, make: { (keys, hashes, Self.list(keys, hashes)) }).bytes
    }

    static func list(_ keys: [String], _ hashes: [String]) -> [UInt8] {
        DocumentLists.list(zip(keys, hashes).map { (key: $0.0, sha256: $0.1) })
    }

    /// The sha256 of `bytes`, remembered by the identity of their storage.
    public func sha256(_ bytes: [UInt8]) -> String {
        guard let address = Self.address(of: bytes) else { return SHA256.hex(bytes) }
        return reused(hashes, address, counted: false, matches: { $0.bytes.count == bytes.count }, make: { (bytes, SHA256.hex(bytes)) }).hex
    }

    private static func address(of bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { $0.baseAddress.map { Int(bitPattern: $0) } }
    }
}

/// The same calls for a build with a memo (a watching process) and without one (every CLI
/// command): without one, each unit is made and hashed anew and no key is computed.
extension RenderMemo? {
    func page(_ key: @autoclosure () -> BuildCache.Key?, _ make: () -> [UInt8]) -> [UInt8] {
        guard let memo = self else { return make() }
        return memo.page(key(), make)
    }

    func section(_ key: @autoclosure () -> BuildCache.Key?, _ make: () -> String) -> String {
        guard let memo = self else { return make() }
        return memo.section(key(), make)
    }

    func shardBytes(_ shard: CompareIndex.Shard) -> [UInt8] { self?.shardBytes(shard) ?? shard.bytes() }

    func listBytes(_ name: String, keys: [String], hashes: [String]) -> [UInt8] {
        self?.listBytes(name, keys: keys, hashes: hashes) ?? RenderMemo.list(keys, hashes)
    }

    func sha256(_ bytes: [UInt8]) -> String { self?.sha256(bytes) ?? SHA256.hex(bytes) }

    func comparison(_ key: @autoclosure () -> BuildCache.Key?, _ make: () -> RenderMemo.Comparison) -> RenderMemo.Comparison {
        guard let memo = self else { return make() }
        return memo.comparison(key(), make)
    }
}

extension Content {
    /// A key builder for `kind` holding the files every unit of a build may read:
    /// ratecard.yaml and the regulatory files. Nil unless the content knows the id of every
    /// file it was read from (then a missing id means a missing file).
    func keyBuilder(_ kind: String) -> BuildCache.Key.Builder? {
        guard identified else { return nil }
        var builder = BuildCache.Key.Builder(kind)
        for relative in Self.sharedFiles {
            builder.append(relative)
            builder.append(fileIDs[root.path(relative)]?.hex ?? "-")
        }
        return builder
    }

    static let sharedFiles = ["ratecard.yaml", "regulatory/limits.yaml", "regulatory/phrases.yaml", "regulatory/signoffs.yaml"]

    /// Adds `path` and its blob id to `builder`; false when the id is not known.
    func append(_ path: String, to builder: inout BuildCache.Key.Builder) -> Bool {
        guard let id = fileIDs[path] else { return false }
        builder.append(file: path, id: id)
        return true
    }
}

extension DataDocuments {
    /// What `partners.json` is made of: every partner file, the products' keys (each partner
    /// lists its own), the logos' hashes and the shared files.
    func partnersIndexKey(logoHashes: [String: String]) -> BuildCache.Key? {
        guard var key = content.keyBuilder("partners-index") else { return nil }
        let partners = content.partners
        for index in partners.indices {
            let path = partners[index].path
            guard let id = fileIDs[path] else { return nil }
            key.append(file: path, id: id)
        }
        for name in productNames { key.append(name) }
        for (asset, hash) in logoHashes.sorted(by: { $0.key < $1.key }) {
            key.append(asset)
            key.append(hash)
        }
        return key.key
    }

    /// What one document's entry in `terms.json` is made of: its versions' fields it lists (not
    /// the bodies), the sha256 of each version's page, the as-of date (which decides the current
    /// version) and the shared files.
    func termsDocumentKey(_ document: String, pageHashes: [String: String]) -> BuildCache.Key? {
        guard var key = content.keyBuilder("terms-document") else { return nil }
        key.append(asOf.description)
        key.append(document)
        let terms = content.terms
        for index in versionsByDocument[document] ?? [] {
            key.append(terms[index].fileVersion)
            key.append(terms[index].title.value)
            key.append(terms[index].effectiveFrom.value.description)
            key.append(terms[index].consent.value.rawValue)
            key.append(terms[index].requiresReconsent.value ? "1" : "0")
            key.append(terms[index].summary.value)
            key.append(pageHashes[BundleLayout.termsPage(document, terms[index].fileVersion)] ?? "-")
        }
        return key.key
    }

    /// What a product's data document is rendered from: its product file, its partner's, every
    /// rate table of the product (the as-of date picks the current and next one), the shared
    /// files and the as-of date. `shared`: `content.keyBuilder("product-document")`, when the
    /// caller made it once for many products.
    func productKey(_ product: Product, shared: BuildCache.Key.Builder? = nil) -> BuildCache.Key? {
        productKey(path: product.path, partner: product.partner.value, key: product.key, shared: shared)
    }

    /// `productKey(_:shared:)` of the product at `index` in the content, reading its stored
    /// fields only (a `Product` is a large value: 3,000 copies of it cost more than their keys).
    func productKey(at index: Int, shared: BuildCache.Key.Builder?) -> BuildCache.Key? {
        productKey(path: productPaths[index], partner: productPartnerIDs[index], key: productNames[index], shared: shared)
    }

    private func productKey(path: String, partner: String, key productKey: String, shared: BuildCache.Key.Builder?) -> BuildCache.Key? {
        // Read through `fileIDs` and the tables' paths, taken once: calling a method of `Content`
        // (or a nested function that captures this value) for each file would pass the whole
        // value along, retaining each of its fields.
        guard var key = shared ?? content.keyBuilder("product-document"), let id = fileIDs[path] else { return nil }
        key.append(file: path, id: id)
        key.append(asOfText)
        if let partnerPath = partnerPaths[partner] {
            guard let id = fileIDs[partnerPath] else { return nil }
            key.append(file: partnerPath, id: id)
        } else {
            key.append("no partner")
        }
        for position in tablesByProduct[productKey] ?? [] {
            let tablePath = tablePaths[position]
            guard let id = fileIDs[tablePath] else { return nil }
            key.append(file: tablePath, id: id)
        }
        return key.key
    }
}
