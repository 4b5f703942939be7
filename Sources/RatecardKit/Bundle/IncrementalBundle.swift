import Glibc

/// The bundle of a commit derived from the live release's bundle, when the commit differs from
/// the live release's commit only in rate tables edited in place (the everyday rate update).
///
/// Such a change can alter only the changed products' data documents, `products.json`,
/// `rates.html` and, through the new bundle id in its logo paths, `partners.html`; every other
/// file of the bundle keeps its bytes. So only the changed products and what their rules read
/// are parsed and checked (the argument written out in `IncrementalRange`: the rest of the
/// content was checked clean when the live release was published, for the same date), the
/// changed documents are rendered by the code a full build uses, the two lists are spliced
/// (each changed product's part replaced, in its place), and every other file is reused from
/// the live release by hash. The result is byte-for-byte what a full build gives;
/// `IncrementalPublishTests` compares the two.
///
/// Any other case returns nil and the caller builds in full: another kind of change (a file
/// added, deleted or moved, a partner, product or terms file edited), another as-of date,
/// content root or build (`BuildFingerprint`: another ratecard, cmark or libyaml) than the
/// live bundle's, a live release without a source commit, a commit whose parent differs from
/// it in more than rate tables (so history rules could find errors), more than
/// `maximumProducts` products changed, a live file to splice that no longer matches its hash,
/// or anything unexpected on the way (the full build then reports it).
public struct IncrementalBundle {
    public enum Outcome {
        /// The bundle, and the keys of the products re-rendered.
        case built(BundleBuilder.Output, products: [String])
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

    /// The bundle of `commit` derived from the live release in `folder`, or nil (build in full).
    public func build(commit: ObjectID, live folder: String) -> Outcome? {
        try? derive(commit: commit, live: folder)
    }

    private func derive(commit: ObjectID, live folder: String) throws -> Outcome? {
        let repository = try location.requireRepository()
        let live = try LiveBundle(folder: folder)
        guard live.asOf == asOf.description, live.generator == BundleBuilder.generator, live.build == BuildFingerprint.value,
              !live.dirty, let liveCommit = live.commit else { return nil }
        let source = try location.source(for: commit)
        guard live.sourceRoot == source.treePrefix else { return nil }
        let diff = try TreeDiff(gitDir: repository.gitDir)
        guard let keys = Self.editedRateTables(try diff.changes(from: liveCommit, to: commit), prefix: source.displayPrefix),
              keys.count <= Self.maximumProducts else { return nil }
        // The full check compares the commit with its parent: terms rules can only find
        // something if that step changed more than rate tables.
        guard let parent = try repository.commitInfo(commit).parents.first else { return nil }
        if parent != liveCommit {
            guard Self.editedRateTables(try diff.changes(from: parent, to: commit), prefix: source.displayPrefix) != nil else { return nil }
        }

        Trace.mark("incremental: \(keys.count) products changed since live")
        let content = try Self.load(keys, from: source)
        Trace.mark("incremental: loaded")
        // Every finding in the changed products' folders counts, a table that does not parse
        // (and so is not in the content) included.
        let folders = keys.map { "\(source.displayPrefix)products/\($0)/" }
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
        var elements: [String: String] = [:]
        var sections: [String: (order: RatesOrder, html: String)] = [:]
        for product in products {
            let document = documents.product(product)
            data["products/\(product.key).json"] = document.bytes(terminator: "\n")
            elements[product.key] = document.serialized(nestedAt: 2)
            if let table = pages.comparableTable(of: product) {
                sections[product.key] = (RatesOrder(product: product, table: table), pages.ratesSection(product, table).markup)
            }
        }
        let productList = try ProductList(try live.read("products.json", inData: true))
        let livePartners = try live.read("partners.html")
        let liveRates = try live.read("rates.html")
        guard let spliced = productList.replacing(elements) else { return nil }
        data["products.json"] = spliced
        guard let ratesPage = try RatesPage(liveRates),
              let rates = ratesPage.replacing(sections, changed: keys, orderKeys: productList.elements.keys, orderOf: productList.order) else { return nil }

        Trace.mark("incremental: rendered and spliced")
        // The bundle id hashes the data folder's listing, as a full build does.
        var dataFiles: [BundleManifest.File] = []
        for file in live.files where file.path.hasPrefix(live.dataFolder) {
            let path = String(file.path.dropFirst(live.dataFolder.count))
            dataFiles.append(data[path].map { BundleManifest.File(path: path, sha256: SHA256.hex($0), size: $0.count) }
                ?? BundleManifest.File(path: path, sha256: file.sha256, size: file.size))
        }
        dataFiles.sort { $0.path < $1.path }
        let bundleID = String(SHA256.hex(dataFiles.map { "\($0.sha256) \($0.size) \($0.path)\n" }.joined()).prefix(16))
        let folderName = BundleLayout.dataFolder(bundleID)

        var files: [String: [UInt8]] = [:]
        for (path, bytes) in data { files[folderName + path] = bytes }
        files["rates.html"] = rates
        files["partners.html"] = Self.replacing(
            Array("src=\"\(live.dataFolder)".utf8), with: Array("src=\"\(folderName)".utf8), in: livePartners)
        var listed: [BundleManifest.File] = []
        var reused: [String: String] = [:]
        for file in dataFiles {
            let path = folderName + file.path
            listed.append(BundleManifest.File(path: path, sha256: file.sha256, size: file.size))
            if files[path] == nil { reused[path] = live.folder + "/" + live.dataFolder + file.path }
        }
        for file in live.files where !file.path.hasPrefix(live.dataFolder) {
            if let bytes = files[file.path] {
                listed.append(BundleManifest.File(path: file.path, sha256: SHA256.hex(bytes), size: bytes.count))
            } else {
                listed.append(file)
                reused[file.path] = live.folder + "/" + file.path
            }
        }
        listed.sort { $0.path < $1.path }
        // Reused files are linked as they are: each must still be what the live manifest says.
        let sources = reused.sorted { $0.key < $1.key }
        let expected = Dictionary(listed.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let verified = VerifiedFiles.load(root: live.folder + "/../..")
        let intact = ParallelMap.map(sources) { verified.matches($0.value, expected[$0.key]!) }
        guard intact.allSatisfy({ $0 }) else { return nil }
        Trace.mark("incremental: \(sources.count) reused files checked")
        let manifest = BundleManifest(
            bundleID: bundleID, sourceCommit: commit, sourceDirty: false, asOf: asOf,
            generator: BundleBuilder.generator, files: listed, sourceRoot: source.treePrefix)
        files[BundleLayout.manifest] = manifest.bytes()
        Trace.mark("incremental: manifest")
        return .built(BundleBuilder.Output(files: files, manifest: manifest, reused: reused), products: products.map(\.key))
    }

    /// The `<partner>/<product>` keys of the rate tables changed, when every change is a rate
    /// table edited in place below the content root; nil for any other change.
    static func editedRateTables(_ changes: [TreeDiff.Change], prefix: String) -> Set<String>? {
        var keys: Set<String> = []
        for change in changes {
            guard change.status == .modified, change.bothFiles, change.path.hasPrefix(prefix) else { return nil }
            let relative = String(change.path.dropFirst(prefix.count))
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                  case .rateTable(let partner, let product, _) = FileRole(relative) else { return nil }
            keys.insert("\(partner)/\(product)")
        }
        return keys
    }

    /// The content cut down to the products `keys` (their product and rate table files, their
    /// partners, the shared files), with the file sets of the whole tree, as
    /// `IncrementalRange.cut` has it.
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
                case 2, 3: return changedPartners.contains(String(parts[1]))
                default: return keys.contains("\(parts[1])/\(parts[2])")
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
                case .product(let partner, let product), .rateTable(let partner, let product, _): return keys.contains("\(partner)/\(product)")
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

/// What an incremental build needs of the live release: its manifest and files.
struct LiveBundle {
    let folder: String
    let bundleID: String
    let dataFolder: String
    let commit: ObjectID?
    let asOf: String
    let generator: String
    let build: String?
    let sourceRoot: String?
    let dirty: Bool
    /// The bundle's files (data/manifest.json aside), as its manifest lists them.
    let files: [BundleManifest.File]

    init(folder: String) throws {
        self.folder = folder
        let (json, files) = try JSONReader.parseListingFiles(try FileSystem.readFile(folder + "/" + BundleLayout.manifest))
        guard let id = json["bundle_id"]?.stringValue, let asOf = json["as_of"]?.stringValue,
              let generator = json["generator"]?.stringValue, case .bool(let dirty)? = json["source_dirty"] else {
            throw OperationalError("\(folder)/\(BundleLayout.manifest) is malformed")
        }
        bundleID = id
        dataFolder = BundleLayout.dataFolder(id)
        commit = json["source_commit"]?.stringValue.map { ObjectID(hex: $0) }
        self.asOf = asOf
        self.generator = generator
        build = json["build"]?.stringValue
        sourceRoot = json["source_root"]?.stringValue
        self.dirty = dirty
        self.files = files
    }

    /// A file of the bundle, refused unless it still has the hash the manifest lists (a file
    /// changed on disk must not be carried into the next release).
    func read(_ path: String, inData: Bool = false) throws -> [UInt8] {
        let relative = (inData ? dataFolder : "") + path
        let bytes = try FileSystem.readFile(folder + "/" + relative)
        guard let file = files.first(where: { $0.path == relative }), file.size == bytes.count, file.sha256 == SHA256.hex(bytes) else {
            throw OperationalError("\(folder)/\(relative) does not match the live manifest")
        }
        return bytes
    }
}

/// `products.json` as the full build writes it: one element per product, sorted by key, each
/// starting on a line `    {` and ending on a line `    }` (deeper lines are indented more, and
/// JSON strings hold no raw newline), its key on the element's only line starting
/// `      "key": "`.
struct ProductList {
    let bytes: [UInt8]
    /// Each product's element: key -> byte range from `{` to `}`.
    let elements: [String: Range<Int>]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        self.elements = try bytes.withUnsafeBufferPointer { buffer in try Self.scan(buffer) }
    }

    /// `{"products": [...]}` as `JSON` writes it, from each product's document serialized
    /// nested two deep (`JSON.serialized(nestedAt: 2)`), in key order.
    static func document(elements: [String]) -> [UInt8] {
        guard !elements.isEmpty else { return Array("{\n  \"products\": []\n}\n".utf8) }
        return Array(("{\n  \"products\": [\n    " + elements.joined(separator: ",\n    ") + "\n  ]\n}\n").utf8)
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [String: Range<Int>] {
        var elements: [String: Range<Int>] = [:]
        var start: Int?
        var key: String?
        let keyLine = Array("      \"key\": \"".utf8)
        guard let base = bytes.baseAddress else { return [:] }
        var line = 0
        while line < bytes.count {
            let end = memchr(base + line, 0x0A, bytes.count - line).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
            let length = end - line
            // "    {" opens an element, "    }" or "    }," closes it: 4 spaces, then the brace.
            let indented = length >= 5 && (0..<4).allSatisfy { bytes[line + $0] == 0x20 }
            if indented && length == 5 && bytes[line + 4] == UInt8(ascii: "{") {
                start = line + 4
                key = nil
            } else if let first = start, indented, bytes[line + 4] == UInt8(ascii: "}"),
                      length == 5 || (length == 6 && bytes[line + 5] == UInt8(ascii: ",")) {
                guard let key, elements[key] == nil else { throw OperationalError("products.json: an element without a key, or a key twice") }
                elements[key] = first..<(line + 5)
                start = nil
            } else if start != nil, key == nil, length > keyLine.count,
                      memcmp(base + line, keyLine, keyLine.count) == 0 {
                let value = UnsafeBufferPointer(rebasing: bytes[(line + keyLine.count)..<end])
                guard let quote = value.firstIndex(of: 0x22), !value[..<quote].contains(0x5C) else {
                    throw OperationalError("products.json: a key this reader cannot take")
                }
                key = String(decoding: UnsafeBufferPointer(rebasing: value[..<quote]), as: UTF8.self)
            }
            line = end + 1
        }
        return elements
    }

    /// The document with the elements of `replacements` (key -> element text) replaced; nil
    /// when one of them is not in it.
    func replacing(_ replacements: [String: String]) -> [UInt8]? {
        var ranges: [(Range<Int>, String)] = []
        for (key, text) in replacements {
            guard let range = elements[key] else { return nil }
            ranges.append((range, text))
        }
        ranges.sort { $0.0.lowerBound < $1.0.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 4096)
        var start = 0
        for (range, text) in ranges {
            out += bytes[start..<range.lowerBound]
            out += Array(text.utf8)
            start = range.upperBound
        }
        out += bytes[start...]
        return out
    }

    /// Where an unchanged product stands on `rates.html`, read back from its element.
    func order(of key: String) -> RatesOrder? {
        guard let range = elements[key], let json = try? JSONReader.parse(Array(bytes[range])),
              let limit = json["limit"]?["max_krw"]?.intValue else { return nil }
        var low = Percent.zero
        var high = Percent.zero
        if let apr = json["apr"], apr != .null {
            guard let parsedLow = Self.percent(apr["min_pct"]), let parsedHigh = Self.percent(apr["max_pct"]) else { return nil }
            low = parsedLow
            high = parsedHigh
        }
        return RatesOrder(low: low, high: high, limitMax: limit, key: key)
    }

    private static func percent(_ value: JSON?) -> Percent? {
        switch value {
        case .number(let text)?: return Percent.parse(text)?.value
        case .int(let number)?: return Percent.parse(String(number))?.value
        default: return nil
        }
    }
}

/// `rates.html` as the full build writes it: a head, one `<section id="<key>">…</section>` per
/// comparable product in `RatesOrder`, back to back (no section nests another, and text is
/// escaped, so the next `</section>` closes each), and a tail.
struct RatesPage {
    let head: ArraySlice<UInt8>
    let tail: ArraySlice<UInt8>
    let sections: [(key: String, bytes: ArraySlice<UInt8>)]

    /// Nil when the page has no section to find the head and tail by.
    init?(_ bytes: [UInt8]) throws {
        let open = Array("<section id=\"".utf8)
        let close = Array("</section>".utf8)
        guard let first = Bytes.find(open, in: bytes, from: 0) else { return nil }
        var sections: [(String, ArraySlice<UInt8>)] = []
        var position = first
        while bytes[position...].starts(with: open) {
            guard let quote = bytes[(position + open.count)...].firstIndex(of: 0x22),
                  let end = Bytes.find(close, in: bytes, from: position) else {
                throw OperationalError("rates.html: a section that does not close")
            }
            sections.append((String(decoding: bytes[(position + open.count)..<quote], as: UTF8.self), bytes[position..<(end + close.count)]))
            position = end + close.count
        }
        head = bytes[..<first]
        tail = bytes[position...]
        self.sections = sections
    }

    /// The page with the sections of `changed` products removed and `sections` (key -> place
    /// and markup) put in their places; nil when an unchanged product's place cannot be read.
    func replacing(_ new: [String: (order: RatesOrder, html: String)], changed: Set<String>, orderKeys: some Sequence<String>, orderOf: (String) -> RatesOrder?) -> [UInt8]? {
        // Section ids are escaped keys (the same text for the keys that validate).
        let changedIDs = Set(changed.map(HTML.escape))
        let keys = Dictionary(orderKeys.map { (HTML.escape($0), $0) }, uniquingKeysWith: { first, _ in first })
        var kept: [(key: String, bytes: ArraySlice<UInt8>)] = []
        for section in sections where !changedIDs.contains(section.key) {
            guard let key = keys[section.key] else { return nil }
            kept.append((key, section.bytes))
        }
        var known: [String: RatesOrder] = [:]
        func order(_ key: String) -> RatesOrder? {
            if let order = known[key] ?? new[key]?.order { return order }
            let order = orderOf(key)
            known[key] = order
            return order
        }
        for key in new.keys.sorted() {
            let (place, html) = new[key]!
            // Binary search for the first kept section that sorts after the new one.
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                guard let other = order(kept[middle].key) else { return nil }
                if other < place { low = middle + 1 } else { high = middle }
            }
            kept.insert((key: key, bytes: ArraySlice(Array(html.utf8))), at: low)
        }
        var out = Array(head)
        for section in kept { out += section.bytes }
        out += tail
        return out
    }
}

/// Byte-string search.
enum Bytes {
    /// The first index at or after `start` where `pattern` occurs in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, start <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let first = needle.first else { return nil }
                var position = start
                // memchr to each candidate first byte, memcmp for the rest.
                while haystack.count - position >= needle.count,
                      let hit = memchr(base + position, Int32(first), haystack.count - position - needle.count + 1) {
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }
}

/// A commit's source restricted to some of its entries (the files an incremental check reads).
struct SubsetSource: ContentSource {
    let base: CommitSource
    let subset: [TreeEntry]

    var displayPrefix: String { base.displayPrefix }
    func entries() throws -> [TreeEntry] { subset }
    func read(_ entry: TreeEntry) throws -> [UInt8] { try base.read(entry) }
}
