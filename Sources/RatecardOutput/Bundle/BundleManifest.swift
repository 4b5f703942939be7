import RatecardCore
import RatecardSupport

/// `data/manifest.json`: what a bundle is and every file in it, with sha256 and size.
public struct BundleManifest: Sendable, Equatable {
    /// A listed file: path, sha256 and size (`ListingFile`, which the JSON fast path reads
    /// and writes).
    public typealias File = ListingFile

    public var bundleID: String
    public var sourceCommit: ObjectID?
    public var sourceDirty: Bool
    public var asOf: Day
    public var generator: String
    public var files: [File]
    /// The content root inside the repository's tree (`content`, or empty for its root); nil
    /// for content that is not in git.
    public var sourceRoot: String? = nil
    /// `BuildFingerprint.value` of the ratecard that built it.
    public var build: String = BuildFingerprint.value
    /// Where a published release serves its files as objects (`o/`, relative to the site root):
    /// set by publish in the release's copy of the manifest, absent from `ratecard build`'s.
    public var objects: String? = nil

    public func json() -> JSON {
        var fields = fieldsWithoutFiles
        fields["files"] = .array(files.map { .object(["path": .string($0.path), "sha256": .string($0.sha256), "size": .int($0.size)]) })
        return .object(fields)
    }

    /// `data/manifest.json`'s bytes: `json()` as written, with a final newline.
    public func bytes() -> [UInt8] { JSON.listingBytes(fieldsWithoutFiles, files: files) }

    private var fieldsWithoutFiles: [String: JSON] {
        var fields: [String: JSON] = [
            "format": .int(1),
            "bundle_id": .string(bundleID),
            "data": .string(BundleLayout.dataFolder(bundleID)),
            "source_commit": sourceCommit.map { .string($0.hex) } ?? .null,
            "source_dirty": .bool(sourceDirty),
            "as_of": .string(asOf.description),
            "generator": .string(generator),
            "source_root": sourceRoot.map(JSON.string) ?? .null,
            "build": .string(build),
        ]
        if let objects { fields["objects"] = .string(objects) }
        return fields
    }

    /// Reads a manifest back (for publish, verify and status).
    public static func parse(_ bytes: [UInt8]) throws -> BundleManifest {
        let text = try SourceText.decode(bytes)
        guard let node = try YAMLParser.parse(Array(text.utf8)) else { throw OperationalError("manifest is empty", ko: "매니페스트가 비어 있습니다") }
        // JSON is YAML: read it with the strict reader and check the fields we need.
        let diagnostics = Diagnostics()
        guard let fields = MappingReader(node, path: BundleLayout.manifest, what: Message("a manifest", ko: "매니페스트"), diagnostics: diagnostics) else {
            throw OperationalError("manifest is not an object", ko: "매니페스트가 객체가 아닙니다")
        }
        let id = fields.string("bundle_id")
        let commit = fields.string("source_commit", required: false)
        let dirty = fields.bool("source_dirty")
        let asOf = fields.day("as_of")
        let generator = fields.string("generator")
        let root = fields.string("source_root", required: false)
        let build = fields.string("build", required: false)
        let objects = fields.string("objects", required: false)
        _ = fields.integer("format")
        _ = fields.string("data")
        var files: [File] = []
        for item in fields.list("files")?.value ?? [] {
            guard let entry = MappingReader(item, path: BundleLayout.manifest, what: Message("a file", ko: "파일 항목"), diagnostics: diagnostics) else { continue }
            if let path = entry.string("path"), let sha = entry.string("sha256"), let size = entry.integer("size") {
                files.append(File(path: path.value, sha256: sha.value, size: size.value))
            }
            entry.finish()
        }
        fields.finish()
        guard let id, let dirty, let asOf, let generator, !diagnostics.hasErrors else {
            let first = diagnostics.items.first.map { Message.verbatim("\($0.mark): ") + $0.message } ?? Message("missing fields", ko: "필드가 빠져 있습니다")
            throw OperationalError("manifest is malformed: \(first)", ko: "매니페스트 형식이 잘못되었습니다: \(first)")
        }
        return BundleManifest(
            bundleID: id.value, sourceCommit: commit.map { ObjectID(hex: $0.value) }, sourceDirty: dirty.value,
            asOf: asOf.value, generator: generator.value, files: files, sourceRoot: root?.value, build: build?.value ?? "", objects: objects?.value)
    }
}

extension BundleManifest {
    /// A manifest made above this target (a rate update spliced onto the live bundle, in Kit):
    /// the memberwise initializer is internal.
    package init(bundleID: String, sourceCommit: ObjectID?, sourceDirty: Bool, asOf: Day, generator: String, files: [File], sourceRoot: String?) {
        self.bundleID = bundleID
        self.sourceCommit = sourceCommit
        self.sourceDirty = sourceDirty
        self.asOf = asOf
        self.generator = generator
        self.files = files
        self.sourceRoot = sourceRoot
    }
}
