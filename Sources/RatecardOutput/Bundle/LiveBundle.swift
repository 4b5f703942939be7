import RatecardCore
import RatecardSupport

/// What an incremental build needs of the live release: its manifest and files, read from
/// wherever the release keeps them (its entry folder, or the object store).
package struct LiveBundle {
    package let root: ServeRoot
    package let release: ReleaseInfo
    package let folder: String
    package let bundleID: String
    package let dataFolder: String
    package let commit: ObjectID?
    package let asOf: String
    package let generator: String
    package let build: String?
    package let sourceRoot: String?
    package let dirty: Bool
    /// The bundle's files (data/manifest.json aside), as its manifest lists them.
    package let files: [BundleManifest.File]

    /// `known`: the release's version.json, when the caller has read it already.
    package init(root: ServeRoot, release id: String, known: ReleaseInfo? = nil) throws {
        self.root = root
        folder = root.folder(of: id)
        release = try known.flatMap { $0.id == id ? $0 : nil } ?? ReleaseInfo.read(from: folder)
        let (json, files) = try JSONReader.parseListingFiles(try FileSystem.readFile(folder + "/" + BundleLayout.manifest))
        guard let id = json["bundle_id"]?.stringValue, let asOf = json["as_of"]?.stringValue,
            let generator = json["generator"]?.stringValue, case .bool(let dirty)? = json["source_dirty"]
        else {
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
        guard let file = files.first(where: { $0.path == relative }) else {
            throw OperationalError("the live manifest does not list \(relative)")
        }
        let bytes = try FileSystem.readFile(location(of: file))
        guard file.size == bytes.count, file.sha256 == SHA256.hex(bytes) else {
            throw OperationalError("\(folder)/\(relative) does not match the live manifest")
        }
        return bytes
    }

    /// Where the bytes of a file of the live bundle are on disk.
    func location(of file: BundleManifest.File) -> String {
        root.location(of: file, in: release)
    }
}
