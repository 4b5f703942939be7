/// One entry of a listing (a bundle's `data/manifest.json`, a release's `version.json`): a file
/// by its path, with its sha256 and size. `BundleManifest.File` is this type; it lives here so
/// that the listing fast path of `JSON` and `JSONReader` needs nothing above Support.
public struct ListingFile: Sendable, Equatable {
    public var path: String
    public var sha256: String
    public var size: Int

    public init(path: String, sha256: String, size: Int) {
        self.path = path
        self.sha256 = sha256
        self.size = size
    }
}
