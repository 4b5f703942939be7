import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport

/// `releases/<id>/version.json`: what a release is, who made it, and every file with its hash.
public struct ReleaseInfo: Sendable, Equatable {
    public static let fileName = "version.json"

    public var id: String
    public var bundleID: String
    /// The commit the release was built from; nil for a build of an uncommitted work tree.
    public var sourceCommit: ObjectID?
    public var asOf: String
    public var publishedAt: String
    public var author: String
    public var user: String
    public var message: String
    /// Bundle ids of earlier releases whose `data/<id>/` folders are carried in this one.
    public var carried: [String]
    /// The first day this release is no longer current (something scheduled takes effect), if any.
    public var staleFrom: String? = nil
    /// What the web build needs from the app (`BridgeRequirement.json`), if it uses the bridge.
    public var bridge: JSON? = nil
    /// Every file of the release except version.json itself.
    public var files: [BundleManifest.File]
    /// 1: the release folder holds every file (releases published before the object store);
    /// 2: every file is an object and the folder holds the entry files (`ObjectLayout`).
    public var format: Int = 1
    /// The id of the release this one is a copy of, in the environment it was promoted from
    /// (a promoted release takes the target's next number).
    public var promotedFrom: String? = nil
    /// The last day of the compliance review of every product the release shows, by
    /// `<partner>/<product>` (`review_ends`): `status` lists those that end soon.
    public var reviewEnds: [String: String] = [:]

    public func json() -> JSON {
        var fields = fieldsWithoutFiles
        fields["files"] = .array(files.map { .object(["path": .string($0.path), "sha256": .string($0.sha256), "size": .int($0.size)]) })
        return .object(fields)
    }

    private var fieldsWithoutFiles: [String: JSON] {
        var fields: [String: JSON] = [
            "id": .string(id),
            "bundle_id": .string(bundleID),
            "source_commit": sourceCommit.map { .string($0.hex) } ?? .null,
            "as_of": .string(asOf),
            "published_at": .string(publishedAt),
            "author": .string(author),
            "user": .string(user),
            "message": .string(message),
            "carried_bundles": .array(carried.map(JSON.string)),
            "stale_from": staleFrom.map(JSON.string) ?? .null,
        ]
        if let bridge { fields["bridge"] = bridge }
        if format != 1 { fields["format"] = .int(format) }
        if let promotedFrom { fields["promoted_from"] = .string(promotedFrom) }
        if !reviewEnds.isEmpty { fields["review_ends"] = .object(reviewEnds.mapValues(JSON.string)) }
        return fields
    }

    /// The file's bytes: `json()` as written, with a final newline.
    public func bytes() -> [UInt8] {
        JSON.listingBytes(fieldsWithoutFiles, files: files)
    }

    public static func read(from folder: String) throws -> ReleaseInfo {
        let path = folder + "/" + fileName
        guard let bytes = try StateFiles.readRegular(path) else { throw FileSystem.failure("open", path, code: ENOENT) }
        return try parse(bytes, source: path)
    }

    /// Reads version.json's bytes; `source` names them in messages.
    public static func parse(_ bytes: [UInt8], source: String) throws -> ReleaseInfo {
        let (json, files): (JSON, [BundleManifest.File])
        do {
            (json, files) = try JSONReader.parseListingFiles(bytes)
        } catch let error as OperationalError {
            throw OperationalError("\(source) is malformed: \(error.description)", ko: "\(source)의 형식이 잘못되었습니다: \(error.message)")
        }
        guard let id = json["id"]?.stringValue, let bundle = json["bundle_id"]?.stringValue else {
            throw OperationalError("\(source) is malformed", ko: "\(source)의 형식이 잘못되었습니다")
        }
        var commit: ObjectID?
        if let text = json["source_commit"]?.stringValue {
            guard let id = ObjectID(validating: text) else {
                throw OperationalError("\(source) is malformed: source_commit '\(text)' is not a commit id", ko: "\(source)의 형식이 잘못되었습니다: source_commit '\(text)'은(는) 커밋 id가 아닙니다")
            }
            commit = id
        }
        let format = json["format"]?.intValue ?? 1
        guard (1...ObjectLayout.format).contains(format) else {
            throw OperationalError(
                "\(source) has format \(format), which this ratecard does not know; use a newer ratecard", ko: "\(source)의 형식 \(format)은(는) 이 ratecard가 모르는 형식입니다; 더 새로운 ratecard를 쓰세요")
        }
        var reviewEnds: [String: String] = [:]
        if case .object(let ends)? = json["review_ends"] { reviewEnds = ends.compactMapValues(\.stringValue) }
        return ReleaseInfo(
            id: id, bundleID: bundle, sourceCommit: commit,
            asOf: json["as_of"]?.stringValue ?? "", publishedAt: json["published_at"]?.stringValue ?? "",
            author: json["author"]?.stringValue ?? "", user: json["user"]?.stringValue ?? "",
            message: json["message"]?.stringValue ?? "",
            carried: (json["carried_bundles"]?.arrayValue ?? []).compactMap(\.stringValue), staleFrom: json["stale_from"]?.stringValue, bridge: json["bridge"], files: files, format: format,
            promotedFrom: json["promoted_from"]?.stringValue, reviewEnds: reviewEnds)
    }

    /// Whether the release serves exactly `files` (the same paths with the same hashes, in
    /// order), whoever published it and whenever: then publishing them again changes nothing.
    public func serves(_ files: [BundleManifest.File]) -> Bool {
        let own = carried.isEmpty ? self.files : self.files.filter { !isCarried($0.path) }
        return own.count == files.count && zip(own, files).allSatisfy { $0.path == $1.path && $0.sha256 == $1.sha256 }
    }

    /// The objects a format-2 release names (every file's), without repeats; empty for format 1.
    public var objectNames: Set<String> {
        guard format >= ObjectLayout.objectsSince else { return [] }
        var names = Set<String>(minimumCapacity: files.count)
        for file in files { names.insert(ObjectLayout.objectName(file)) }
        return names
    }

    /// Whether `path` is in the data folder of an earlier bundle this release carries.
    public func isCarried(_ path: String) -> Bool {
        carried.contains { path.hasPrefix(BundleLayout.dataFolder($0)) }
    }
}
