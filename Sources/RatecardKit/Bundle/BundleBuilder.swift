/// Renders validated content into a bundle: every file's bytes, in memory, plus the manifest.
public struct BundleBuilder {
    public static let generator = "ratecard 0.1.0"

    public var asOf: Day
    public var sourceCommit: ObjectID?
    public var sourceDirty: Bool

    public init(asOf: Day, sourceCommit: ObjectID?, sourceDirty: Bool) {
        self.asOf = asOf
        self.sourceCommit = sourceCommit
        self.sourceDirty = sourceDirty
    }

    /// A rendered bundle: relative path -> bytes (the manifest included).
    public struct Output: Sendable {
        public var files: [String: [UInt8]]
        public var manifest: BundleManifest
    }

    /// Renders `content`; `readAsset` supplies the bytes of a content-relative asset path.
    public func build(_ content: Content, readAsset: (String) throws -> [UInt8]) throws -> Output {
        let documents = DataDocuments(content: content, asOf: asOf)
        var data: [String: [UInt8]] = [
            "service.json": json(documents.service()),
            "partners.json": json(documents.partners()),
            "products.json": json(documents.products()),
            "terms.json": json(documents.terms()),
            "limits.json": json(documents.limits()),
            "phrases.json": json(documents.phrases()),
        ]
        for product in documents.orderedProducts {
            data["products/\(product.key).json"] = json(documents.product(product))
        }
        for asset in content.assets.sorted() {
            data[asset] = try readAsset(asset)
        }
        var hashes: [String: String] = [:]
        var listing = ""
        for path in data.keys.sorted() {
            let hash = SHA256.hex(data[path]!)
            hashes[path] = hash
            listing += "\(hash) \(data[path]!.count) \(path)\n"
        }
        let bundleID = String(SHA256.hex(listing).prefix(16))
        let folder = BundleLayout.dataFolder(bundleID)

        var files: [String: [UInt8]] = [:]
        for (path, bytes) in data { files[folder + path] = bytes }
        let pages = StaticPages(documents: documents, bundleID: bundleID)
        for version in content.terms {
            files[BundleLayout.termsPage(version.documentID, version.fileVersion)] = Array(pages.termsPage(version).utf8)
        }
        files["rates.html"] = Array(pages.ratesPage().utf8)
        files["partners.html"] = Array(pages.partnersPage().utf8)

        let listed = files.keys.sorted().map { path in
            BundleManifest.File(path: path, sha256: hashes[String(path.dropFirst(folder.count))].flatMap { path.hasPrefix(folder) ? $0 : nil } ?? SHA256.hex(files[path]!), size: files[path]!.count)
        }
        let manifest = BundleManifest(
            bundleID: bundleID, sourceCommit: sourceCommit, sourceDirty: sourceDirty, asOf: asOf,
            generator: BundleBuilder.generator, files: listed)
        files[BundleLayout.manifest] = json(manifest.json())
        return Output(files: files, manifest: manifest)
    }

    private func json(_ value: JSON) -> [UInt8] { Array((value.serialized() + "\n").utf8) }
}
