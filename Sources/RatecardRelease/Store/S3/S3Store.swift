import RatecardCore
import RatecardSupport

/// S3-compatible object storage as a release store, with the promises `ReleaseStore` makes:
///
/// ```
/// <prefix>o/<sha256>.<ext>      immutable objects, created with If-None-Match: *
/// <prefix>r/<id>/<path>         the release's entry files (copies of its objects, made in the bucket)
/// <prefix>releases/<id>.json    release manifests (version.json), put after their objects and entries
/// <prefix>current               the pointer: the live release id, flipped with If-Match
/// ```
/// Objects keep the names the nginx layout serves them under (`/o/<name>`), so a page's object
/// URLs are the same behind a CDN. An object is put only when its bytes hash to its name; one
/// already there is checked (its listed size and ETag, else its bytes), never overwritten.
/// The pointer is written last, and only over the ETag read when the flip began, so two
/// publishers cannot both win. Cache-Control is what the nginx configuration sends: a year of
/// `immutable` for objects and a bundle's data folder, `no-cache` for everything that changes.
struct S3Store: Sendable {
    let client: S3Client
    let pool: S3Pool
    let stats: S3Stats?

    static let pointerKey = "current"
    static let objectsPrefix = "o/"
    static let releasesPrefix = "releases/"
    static let entriesPrefix = "r/"

    static func key(_ key: StoreKey) -> String {
        switch key {
        case .object(let name): return objectsPrefix + name
        case .release(let id): return releasesPrefix + id + ".json"
        case .entry(let release, let path): return entryKey(release: release, path: path)
        case .pointer: return pointerKey
        case .state(let name): return name
        }
    }

    /// Where an entry file of a release is served from: `r/<id>/<path>`.
    static func entryKey(release: String, path: String) -> String { entriesPrefix + release + "/" + path }

    /// Whether a file of a release is in its entry folder `r/<id>/` (`ObjectLayout`).
    static func inEntryFolder(_ path: String, format: Int) -> Bool { ObjectLayout.inBucketEntryFolder(path, format: format) }

    static let immutable = "public, max-age=31536000, immutable"
    /// Up to this many objects are put without a listing first.
    static let fewObjects = 200

    // MARK: put

    /// What the caller read under the lock, so that putting a release does not ask again: the
    /// complete releases and the keys of each entry folder (`listEntriesAndReleases`, kept
    /// current with the command's own writes). Nobody else writes them while the lock is held.
    struct Known: Sendable {
        var releases: Set<String>
        var entries: [String: [String]]
    }

    @discardableResult
    func put(_ items: [StoreItem], known: Known? = nil) throws -> Int {
        let (objects, releases) = try StoreItem.partition(items)
        var written = try putObjects(objects)
        for release in releases { written += try putRelease(release, known: known) }
        return written
    }

    /// What the store knows of an object before writing: absent, present and vouched for by
    /// its listing, or present and to be read to be sure.
    private enum Presence: Sendable { case absent, intact, unsure }

    private func putObjects(_ items: [StoreItem]) throws -> Int {
        guard !items.isEmpty else { return 0 }
        var seen: Set<String> = []
        let unique = items.filter {
            if case .object(let name) = $0.key { return seen.insert(name).inserted }
            return false
        }
        for item in unique {
            guard case .object(let name) = item.key, ObjectLayout.isObjectName(name) else {
                throw OperationalError("'\(Self.key(item.key))' is not an object name", ko: "'\(Self.key(item.key))'은(는) 오브젝트 이름이 아닙니다")
            }
            if let bytes = item.bytes, bytes.count != item.size || SHA256.hex(bytes) != item.sha256 {
                throw OperationalError(
                    "the bytes given for \(Self.key(item.key)) do not hash to \(item.sha256); nothing was written", ko: "\(Self.key(item.key))에 주어진 바이트의 해시가 \(item.sha256)이(가) 아닙니다; 아무것도 쓰지 않았습니다")
            }
        }
        // A few objects (the everyday publish: the live release's objects are not asked for) are
        // created one by one with If-None-Match, and one already there is read and checked: as
        // many requests as objects, whatever the bucket holds. Many are looked up by one listing
        // first (a request per 1,000 keys) and what is there is never sent again: a single PUT's
        // ETag is the MD5 of its bytes, which vouches for them without a download; any other ETag
        // (multipart, SSE-KMS) or a size that differs is read and hashed.
        if unique.count <= Self.fewObjects, unique.allSatisfy({ $0.bytes != nil }) {
            let sizes = try pool.map(unique) { client, item -> Int in
                let key = Self.key(item.key)
                guard case .written = try client.put(key, item.bytes!, contentType: MediaType.of(key), cacheControl: Self.immutable, condition: .absent) else {
                    try Self.check(client, item)
                    return 0
                }
                return item.size
            }
            CrashPoint.hit("objects-written")
            Trace.mark("s3: \(unique.count) objects created if absent")
            return sizes.reduce(0, +)
        }
        let listed = Dictionary(try client.listObjects(prefix: Self.objectsPrefix).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let presence = unique.map { item -> Presence in
            guard let found = listed[Self.key(item.key)] else { return .absent }
            guard found.size == item.size else { return .unsure }
            guard let bytes = item.bytes else { return .intact }
            return found.etag.trimmingCharacters(in: "\"") == MD5.hex(bytes) ? .intact : .unsure
        }
        let unsure = zip(unique, presence).filter { $0.1 == .unsure }.map(\.0)
        try pool.each(unsure) { client, item in try Self.check(client, item) }
        let absent = zip(unique, presence).filter { $0.1 == .absent }.map(\.0)
        Trace.mark("s3: \(unique.count) objects listed, \(unique.count - absent.count) present and checked")
        for item in absent where item.bytes == nil {
            throw OperationalError("\(Self.key(item.key)) is missing from the bucket and no copy of it was given", ko: "버킷에 \(Self.key(item.key))이(가) 없고 사본도 주어지지 않았습니다")
        }
        let sizes = try pool.map(absent) { client, item -> Int in
            let key = Self.key(item.key)
            let outcome = try client.put(key, item.bytes!, contentType: MediaType.of(key), cacheControl: Self.immutable, condition: .absent)
            guard case .written = outcome else {
                // Another writer made it meanwhile: it must be these bytes.
                try Self.check(client, item)
                return 0
            }
            return item.size
        }
        CrashPoint.hit("objects-written")
        Trace.mark("s3: \(absent.count) objects written")
        return sizes.reduce(0, +)
    }

    /// Reads a present item and checks it hashes to its name.
    private static func check(_ client: S3Client, _ item: StoreItem) throws {
        let key = Self.key(item.key)
        guard let present = try client.get(key) else { throw OperationalError("\(key) was there and then was not; try again", ko: "\(key)이(가) 방금 있었는데 그 뒤에 사라졌습니다; 다시 시도하세요") }
        guard present.bytes.count == item.size, SHA256.hex(present.bytes) == item.sha256 else {
            throw OperationalError(
                "\(key) in the bucket does not match its hash (changed?); run 'ratecard verify', then remove it and publish again",
                ko: "버킷의 \(key)이(가) 자기 해시와 맞지 않습니다 (바뀌었나요?); 'ratecard verify'를 실행한 다음 그 파일을 지우고 다시 게시하세요")
        }
    }

    /// A release: its entry files copied from its objects inside the bucket (no bytes sent),
    /// then its manifest, created once. A manifest already there must be these bytes. With
    /// `known` (read under the lock), a release it does not list is known to be absent and its
    /// entry folder holds the keys it lists: neither is asked for again.
    private func putRelease(_ item: StoreItem, known: Known?) throws -> Int {
        guard case .release(let id) = item.key, let manifest = item.bytes else { throw OperationalError("a release is put with its manifest", ko: "릴리스는 매니페스트와 함께 올립니다") }
        guard manifest.count == item.size, SHA256.hex(manifest) == item.sha256 else { throw OperationalError("the manifest of \(id) does not match its hash", ko: "\(id)의 매니페스트가 자기 해시와 맞지 않습니다") }
        let key = Self.key(item.key)
        if known.map({ $0.releases.contains(id) }) ?? true, let existing = try client.get(key) {
            guard SHA256.hex(existing.bytes) == item.sha256 else {
                throw OperationalError("release \(id) already exists in the bucket (\(key)) with another version.json", ko: "릴리스 \(id)이(가) 이미 버킷(\(key))에 다른 version.json으로 있습니다")
            }
            return 0
        }
        let info = try item.info ?? ReleaseInfo.parse(manifest, source: key)
        let entries = info.files.filter { Self.inEntryFolder($0.path, format: info.format) }
        // A killed publish of the same id may have left files here: the folder must hold exactly
        // the manifest's entry files, so anything else in it goes first.
        let folder = Self.entriesPrefix + id + "/"
        let wanted = Set(entries.map { folder + $0.path })
        let strays = try (known.map { $0.entries[id] ?? [] } ?? client.list(prefix: folder)).filter { !wanted.contains($0) }
        try pool.each(strays) { client, key in try client.delete(key) }
        try pool.each(entries) { client, file in
            try client.copy(
                from: Self.objectsPrefix + ObjectLayout.objectName(file), to: Self.entryKey(release: id, path: file.path),
                contentType: MediaType.of(file.path), cacheControl: NginxConfig.cacheControl(entry: file.path))
        }
        CrashPoint.hit("files-written")
        Trace.mark("s3: \(entries.count) entry files copied")
        switch try client.put(key, manifest, contentType: "application/json", cacheControl: "no-cache", condition: .absent) {
        case .written: break
        case .preconditionFailed:
            guard let existing = try client.get(key), SHA256.hex(existing.bytes) == item.sha256 else {
                throw OperationalError("release \(id) was created in the bucket by someone else meanwhile, with another version.json", ko: "그 사이에 다른 누군가가 버킷에 릴리스 \(id)을(를) 다른 version.json으로 만들었습니다")
            }
        }
        CrashPoint.hit("version-written")
        return manifest.count
    }

    // MARK: list, delete

    func list(_ kind: StoreKind) throws -> [StoreListing] {
        switch kind {
        case .objects:
            return try client.listObjects(prefix: Self.objectsPrefix).compactMap { listed in
                let name = String(listed.key.dropFirst(Self.objectsPrefix.count))
                return ObjectLayout.isObjectName(name) ? StoreListing(name: name, size: listed.size) : nil
            }.sorted { $0.name < $1.name }
        case .releases:
            return try client.list(prefix: Self.releasesPrefix).compactMap { key in Self.releaseID(manifestKey: key).map { StoreListing(name: $0, size: -1) } }
                .sorted { $0.name < $1.name }
        }
    }

    /// Deleting a release removes its manifest first (it is no longer a release), then its
    /// entry files; a crash in between leaves entry files that `sweepEntries` removes.
    func delete(_ keys: [StoreKey]) throws {
        var objects: [String] = []
        for key in keys {
            switch key {
            case .pointer: throw OperationalError("the pointer is never deleted", ko: "포인터는 지우지 않습니다")
            case .object: objects.append(Self.key(key))
            case .entry, .state: try client.delete(Self.key(key))
            case .release(let id):
                try client.delete(Self.key(key))
                try deleteEntries(of: id)
            }
        }
        try pool.each(objects) { client, key in
            try client.delete(key)
            CrashPoint.hit("prune-object-removed")
        }
    }

    func deleteEntries(of id: String) throws {
        let keys = try client.list(prefix: Self.entriesPrefix + id + "/")
        try pool.each(keys) { client, key in try client.delete(key) }
    }

    /// The entry folders' keys and the complete releases, in one listing: below the prefix only
    /// `r/` and `releases/` begin with `r`, and a listing returns its keys in order, `r/` before
    /// `releases/` (`/` sorts before `e`), so every manifest in it was read no earlier than every
    /// entry key (as when the two are listed one after the other). A request per 1,000 keys of both.
    func listEntriesAndReleases() throws -> (entries: [S3Client.Listed], releases: [StoreListing], listedAt: Int?) {
        let listed = try client.listObjects(prefix: "r")
        let now = client.listedAt
        var entries: [S3Client.Listed] = []
        var releases: [StoreListing] = []
        for item in listed {
            if item.key.hasPrefix(Self.entriesPrefix) {
                entries.append(item)
            } else if let id = Self.releaseID(manifestKey: item.key) {
                releases.append(StoreListing(name: id, size: -1))
            }
        }
        return (entries, releases.sorted { $0.name < $1.name }, now)
    }

    /// The release a key of `releases/` is the manifest of (nil: not a manifest).
    static func releaseID(manifestKey key: String) -> String? {
        guard key.hasPrefix(releasesPrefix), key.hasSuffix(".json") else { return nil }
        let id = key.dropFirst(releasesPrefix.count).dropLast(".json".count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    /// Removes the entry files of releases that have no manifest (a publish killed before its
    /// manifest, a prune killed after one); runs under the lock. The entry folders and the
    /// manifests are read by one listing (`listEntriesAndReleases`: the manifests after the
    /// entry keys), so a release made by anyone meanwhile counts as one; a folder with a key
    /// younger than `minimumAge` seconds (by the storage's clock: its Last-Modified against the
    /// listing's Date) is left alone, as a writer that is still alive may own it (a later command
    /// removes it). `fence` is called before anything is deleted and throws when the lock was
    /// lost. The entry folders are read from their keys (SeaweedFS lists a folder after its last
    /// key is gone). Returns the ids swept, the releases listed and the keys of the entry folders
    /// left.
    @discardableResult
    func sweepEntries(minimumAge: Int, fence: () throws -> Void) throws -> (swept: [String], releases: [StoreListing], entries: [String: [String]]) {
        var folders: [String: [String]] = [:]
        var young: Set<String> = []
        let (listed, releases, now) = try listEntriesAndReleases()
        for entry in listed {
            let rest = entry.key.dropFirst(Self.entriesPrefix.count)
            guard let slash = rest.firstIndex(of: "/") else { continue }
            let id = String(rest[..<slash])
            folders[id, default: []].append(entry.key)
            // A key whose age is not known is taken as young.
            let age = now.flatMap { now in entry.lastModified.map { now - $0 } }
            if (age ?? 0) <= minimumAge { young.insert(id) }
        }
        let manifests = Set(releases.map(\.name))
        let orphans = folders.filter { !manifests.contains($0.key) && !young.contains($0.key) }
        guard !orphans.isEmpty else { return ([], releases, folders) }
        try fence()
        try pool.each(orphans.values.flatMap { $0 }) { client, key in try client.delete(key) }
        return (orphans.keys.sorted(), releases, folders.filter { orphans[$0.key] == nil })
    }

    /// Compare-and-swap on the pointer: it must name `expected` now, and the write is
    /// conditional on the ETag read, so a flip by anyone in between makes this one fail.
    /// `read`: the pointer's bytes and ETag as read under the lock (not read again).
    func flip(expected: String?, to release: String, read: (bytes: [UInt8], etag: String)? = nil) throws {
        let current = try read ?? client.get(Self.pointerKey)
        let live = current.map { String(decoding: $0.bytes, as: UTF8.self) }
        guard live == expected else {
            throw ConflictError(
                "live is \(live ?? "none"), not \(expected ?? "none") as expected; nothing was changed", ko: "라이브 릴리스가 예상한 \(expected ?? "없음")이(가) 아니라 \(live ?? "없음")입니다; 아무것도 바꾸지 않았습니다")
        }
        let condition: S3Client.Condition = current.map { .matches($0.etag) } ?? .absent
        stats?.countPointerWrite()
        switch try client.put(Self.pointerKey, Array(release.utf8), contentType: "text/plain; charset=utf-8", cacheControl: "no-cache", condition: condition) {
        case .written: CrashPoint.hit("swapped")
        case .preconditionFailed:
            // A first flip (If-None-Match) whose answer was lost is retried and then finds itself.
            if case .absent = condition, try client.get(Self.pointerKey)?.bytes == Array(release.utf8) {
                CrashPoint.hit("swapped")
                return
            }
            throw ConflictError("the pointer changed while this flip was in flight (another publisher won); nothing was changed", ko: "포인터를 바꾸는 도중에 포인터가 바뀌었습니다 (다른 게시가 먼저 끝났습니다); 아무것도 바꾸지 않았습니다")
        }
    }
}
