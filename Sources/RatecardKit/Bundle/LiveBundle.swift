import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// What an incremental build needs of the live release: its manifest and files, read from
/// wherever the release keeps them (its entry folder, or the object store).
package struct LiveBundle {
    package let store: any ReleaseStore
    package let release: ReleaseInfo
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
    package init(store: any ReleaseStore, release id: String, known: ReleaseInfo? = nil) throws {
        self.store = store
        release = try known.flatMap { $0.id == id ? $0 : nil } ?? store.info(of: id)
        guard let listed = release.files.first(where: { $0.path == BundleLayout.manifest }),
            let bytes = try store.readFile(BundleLayout.manifest, of: id, info: release), bytes.count == listed.size, SHA256.hex(bytes) == listed.sha256
        else {
            throw OperationalError("\(BundleLayout.manifest) of release \(id) is missing or does not match its version.json", ko: "릴리스 \(id)의 \(BundleLayout.manifest)이(가) 없거나 version.json과 맞지 않습니다")
        }
        let (json, files) = try JSONReader.parseListingFiles(bytes)
        guard let bundle = json["bundle_id"]?.stringValue, let asOf = json["as_of"]?.stringValue,
            let generator = json["generator"]?.stringValue, case .bool(let dirty)? = json["source_dirty"]
        else {
            throw OperationalError("\(BundleLayout.manifest) of release \(id) in \(store.displayName) is malformed", ko: "\(store.displayName)의 릴리스 \(id)의 \(BundleLayout.manifest) 형식이 잘못되었습니다")
        }
        bundleID = bundle
        dataFolder = BundleLayout.dataFolder(bundle)
        commit = json["source_commit"]?.stringValue.map { ObjectID(hex: $0) }
        self.asOf = asOf
        self.generator = generator
        build = json["build"]?.stringValue
        sourceRoot = json["source_root"]?.stringValue
        self.dirty = dirty
        self.files = files
    }

    /// A file of the bundle, refused unless it still has the hash the manifest lists (a file
    /// changed in the store must not be carried into the next release).
    func read(_ path: String, inData: Bool = false) throws -> [UInt8] {
        let relative = (inData ? dataFolder : "") + path
        guard let file = files.first(where: { $0.path == relative }) else {
            throw OperationalError("the live manifest does not list \(relative)", ko: "라이브 매니페스트에 \(relative)이(가) 없습니다")
        }
        guard let bytes = try store.readFile(relative, of: release.id, info: release), file.size == bytes.count, file.sha256 == SHA256.hex(bytes) else {
            throw OperationalError("\(relative) of release \(release.id) does not match the live manifest", ko: "릴리스 \(release.id)의 \(relative)이(가) 라이브 매니페스트와 맞지 않습니다")
        }
        return bytes
    }
}
