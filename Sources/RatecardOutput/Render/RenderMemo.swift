import RatecardCore
import Synchronization

/// Rendered units kept in memory between the builds of one process (`preview --watch`), so a
/// rebuild after an edit renders and hashes only what the edit touched; every other product
/// document, terms page and `rates.html` section is the same bytes as before, found by a key of
/// its inputs' blob ids. A builder uses one when it is given one (`BundleBuilder.memo`).
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
    private struct State {
        var generation = 0
        var pages: [BuildCache.Key: (bytes: [UInt8], used: Int)] = [:]
        var sections: [BuildCache.Key: (markup: String, used: Int)] = [:]
        var shards: [String: (shard: CompareIndex.Shard, bytes: [UInt8], used: Int)] = [:]
        var lists: [String: (keys: [String], hashes: [String], bytes: [UInt8], used: Int)] = [:]
        var hashes: [Int: (bytes: [UInt8], hex: String, used: Int)] = [:]
        var rendered = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Starts a build: what this build does not use is dropped when it ends.
    public func beginBuild() {
        state.withLock {
            $0.generation += 1
            $0.rendered = 0
        }
    }

    /// How many units the current build rendered (not found in the memo).
    public var rendered: Int { state.withLock { $0.rendered } }

    /// Ends a build, dropping every unit it did not use (the memo holds about one build).
    public func endBuild() {
        state.withLock { state in
            let generation = state.generation
            state.pages = state.pages.filter { $0.value.used == generation }
            state.sections = state.sections.filter { $0.value.used == generation }
            state.shards = state.shards.filter { $0.value.used == generation }
            state.lists = state.lists.filter { $0.value.used == generation }
            state.hashes = state.hashes.filter { $0.value.used == generation }
        }
    }

    /// A unit's bytes (a product's data document, a terms page), by the key of its inputs.
    func page(_ key: BuildCache.Key?, _ make: () -> [UInt8]) -> [UInt8] {
        guard let key else { return make() }
        if let hit = state.withLock({ state -> [UInt8]? in
            guard let entry = state.pages[key] else { return nil }
            state.pages[key]!.used = state.generation
            return entry.bytes
        }) {
            return hit
        }
        let made = make()
        state.withLock {
            $0.pages[key] = (made, $0.generation)
            $0.rendered += 1
        }
        return made
    }

    /// A comparison shard's bytes: the earlier build's when the shard is equal to its (the
    /// shard holds everything its bytes are written from), else written now.
    func shardBytes(_ shard: CompareIndex.Shard) -> [UInt8] {
        if let hit = state.withLock({ state -> [UInt8]? in
            guard let entry = state.shards[shard.name], entry.shard == shard else { return nil }
            state.shards[shard.name]!.used = state.generation
            return entry.bytes
        }) {
            return hit
        }
        let made = shard.bytes()
        state.withLock {
            $0.shards[shard.name] = (shard, made, $0.generation)
            $0.rendered += 1
        }
        return made
    }

    /// A shard's list of product documents (`DocumentLists.list`): the earlier build's bytes
    /// when it names the same documents with the same hashes.
    func listBytes(_ name: String, keys: [String], hashes: [String]) -> [UInt8] {
        if let hit = state.withLock({ state -> [UInt8]? in
            guard let entry = state.lists[name], entry.keys == keys, entry.hashes == hashes else { return nil }
            state.lists[name]!.used = state.generation
            return entry.bytes
        }) {
            return hit
        }
        let made = DocumentLists.list(Array(zip(keys, hashes)).map { (key: $0.0, sha256: $0.1) })
        state.withLock {
            $0.lists[name] = (keys, hashes, made, $0.generation)
            $0.rendered += 1
        }
        return made
    }

    func section(_ key: BuildCache.Key?, _ make: () -> String) -> String {
        guard let key else { return make() }
        if let hit = state.withLock({ state -> String? in
            guard let entry = state.sections[key] else { return nil }
            state.sections[key]!.used = state.generation
            return entry.markup
        }) {
            return hit
        }
        let made = make()
        state.withLock {
            $0.sections[key] = (made, $0.generation)
            $0.rendered += 1
        }
        return made
    }

    /// The sha256 of `bytes`, remembered by the identity of their storage.
    public func sha256(_ bytes: [UInt8]) -> String {
        guard let address = Self.address(of: bytes) else { return SHA256.hex(bytes) }
        if let hit = state.withLock({ state -> String? in
            guard let entry = state.hashes[address], entry.bytes.count == bytes.count else { return nil }
            state.hashes[address]!.used = state.generation
            return entry.hex
        }) {
            return hit
        }
        let hex = SHA256.hex(bytes)
        state.withLock { $0.hashes[address] = (bytes, hex, $0.generation) }
        return hex
    }

    private static func address(of bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { $0.baseAddress.map { Int(bitPattern: $0) } }
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
        for partner in content.partners {
            guard content.append(partner.path, to: &key) else { return nil }
        }
        for index in content.products.indices { key.append(content.products[index].key) }
        for (asset, hash) in logoHashes.sorted(by: { $0.key < $1.key }) {
            key.append(asset)
            key.append(hash)
        }
        return key.key
    }

    /// What `terms.json` is made of: every version's fields it lists (not the bodies), the
    /// as-of date (which decides the current versions) and the shared files. So an edit to a
    /// version's text, or to anything but terms, reuses it.
    func termsIndexKey() -> BuildCache.Key? {
        guard var key = content.keyBuilder("terms-index") else { return nil }
        key.append(asOf.description)
        for version in content.terms {
            for part in [
                version.documentID, version.fileVersion, version.title.value, version.effectiveFrom.value.description,
                version.consent.value.rawValue, version.requiresReconsent.value ? "1" : "0", version.summary.value,
            ] {
                key.append(part)
            }
        }
        return key.key
    }

    /// What a product's data document is rendered from: its product file, its partner's, every
    /// rate table of the product (the as-of date picks the current and next one), the shared
    /// files and the as-of date. `shared`: `content.keyBuilder("product-document")`, when the
    /// caller made it once for many products.
    func productKey(_ product: Product, shared: BuildCache.Key.Builder? = nil) -> BuildCache.Key? {
        guard var key = shared ?? content.keyBuilder("product-document"), content.append(product.path, to: &key) else { return nil }
        key.append(asOf.description)
        if let partner = partnersByID[product.partner.value] {
            guard content.append(partner.path, to: &key) else { return nil }
        } else {
            key.append("no partner")
        }
        for position in tablesByProduct[product.key] ?? [] {
            guard content.append(content.rateTables[position].path, to: &key) else { return nil }
        }
        return key.key
    }
}
