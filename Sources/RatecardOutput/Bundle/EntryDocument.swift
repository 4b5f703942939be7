import RatecardSupport

/// `data/entry.json`, what the app reads first (docs/bundle-format.md): the bundle id and date,
/// where its data is, and the documents it starts from, each by path and sha256: the small index
/// documents and every shard of the comparison index. Made from the bundle manifest, so a
/// release's copy can add where its objects are served; like the manifest it is not listed in it.
///
/// It replaces the manifest as the app's entry point: the manifest lists every file of the bundle
/// (thousands), and the first screen needs a few dozen of them.
public enum EntryDocument {
    public static let format = 1
    /// The index documents named under `documents`, by name (`<name>.json` in the data folder).
    static let documents = ["service", "phrases", "limits", "partners", "terms", "documents"]

    public static func bytes(_ manifest: BundleManifest, objects: String?) -> [UInt8] {
        let folder = BundleLayout.dataFolder(manifest.bundleID)
        var named: [String: JSON] = [:]
        var shards: [JSON] = []
        // Matched on the paths' bytes, a String made only for a match: the manifest lists
        // thousands of files, a few dozen of which are named here.
        let wanted = documents.map { Array(($0 + ".json").utf8) }
        let (compare, json) = (Array("compare/".utf8), Array(".json".utf8))
        let prefix = Array(folder.utf8)
        for file in manifest.files {
            let utf8 = file.path.utf8
            guard utf8.starts(with: prefix) else { continue }
            let rest = utf8.dropFirst(prefix.count)
            if let name = wanted.first(where: { rest.elementsEqual($0) }) {
                let path = String(decoding: name, as: UTF8.self)
                named[String(path.dropLast(".json".count))] = DocumentLists.reference(path, file.sha256)
            } else if rest.starts(with: compare), rest.suffix(json.count).elementsEqual(json), !rest.dropFirst(compare.count).contains(UInt8(ascii: "/")) {
                shards.append(DocumentLists.reference(String(decoding: rest, as: UTF8.self), file.sha256))
            }
        }
        var fields: [String: JSON] = [
            "format": .int(format),
            "bundle_id": .string(manifest.bundleID),
            "as_of": .string(manifest.asOf.description),
            "data": .string(folder),
            "documents": .object(named),
            // Manifest order: by path, so by the first partner of each shard.
            "compare": .array(shards),
        ]
        if let objects { fields["objects"] = .string(objects) }
        return JSON.object(fields).bytes(terminator: "\n")
    }
}
