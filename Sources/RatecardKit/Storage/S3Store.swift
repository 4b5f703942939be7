/// S3-compatible object storage as a release store, with the promises `ReleaseStore` makes:
///
/// ```
/// <prefix>objects/<sha256>.<ext>   immutable objects, created with If-None-Match: *
/// <prefix>releases/<id>.json       release manifests (version.json), created after their objects
/// <prefix>current                  the pointer: the live release id, flipped with If-Match
/// ```
/// An object is put only when its bytes hash to its name; one already there is read back and
/// checked, never overwritten. The pointer is written last, and only over the ETag read when
/// the flip began, so two publishers cannot both win. Served through a CDN, objects carry a
/// year of `immutable` caching and the pointer and manifests `no-cache`, as the nginx
/// configuration serves them.
public struct S3Store: ReleaseStore {
    public let client: S3Client

    public init(client: S3Client) { self.client = client }

    static let pointerKey = "current"

    static func key(_ key: StoreKey) -> String {
        switch key {
        case .object(let name): return "objects/" + name
        case .release(let id): return "releases/\(id).json"
        case .pointer: return pointerKey
        }
    }

    /// The Content-Type a web server would give a file of this name.
    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "json": return "application/json"
        case "html": return "text/html; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        default: return "application/octet-stream"
        }
    }

    @discardableResult
    public func put(_ items: [StoreItem]) throws -> Int {
        var written = 0
        // Objects first, then the manifests that name them.
        let ordered = items.filter { if case .object = $0.key { return true } else { return false } }
            + items.filter { if case .release = $0.key { return true } else { return false } }
        guard ordered.count == items.count else { throw OperationalError("the pointer is changed with flip, not put") }
        for item in ordered {
            if case .object(let name) = item.key, !ObjectLayout.isObjectName(name) { throw OperationalError("'\(name)' is not an object name") }
            let key = Self.key(item.key)
            guard let bytes = item.bytes else {
                guard let present = try client.get(key) else {
                    throw OperationalError("\(key) is missing from the bucket and no copy of it was given")
                }
                try check(present.bytes, item, key)
                continue
            }
            guard bytes.count == item.size, SHA256.hex(bytes) == item.sha256 else {
                throw OperationalError("the bytes given for \(key) do not hash to \(item.sha256); nothing was written")
            }
            let isObject: Bool = { if case .object = item.key { return true } else { return false } }()
            let outcome = try client.put(
                key, bytes, contentType: isObject ? Self.contentType(key) : "application/json",
                cacheControl: isObject ? "public, max-age=31536000, immutable" : "no-cache", condition: .absent)
            switch outcome {
            case .written: written += bytes.count
            case .preconditionFailed:
                // Already there: it must be these bytes (a changed one is an error, never overwritten).
                guard let present = try client.get(key) else { throw OperationalError("\(key) exists and then does not; try again") }
                try check(present.bytes, item, key)
            }
        }
        return written
    }

    private func check(_ bytes: [UInt8], _ item: StoreItem, _ key: String) throws {
        guard bytes.count == item.size, SHA256.hex(bytes) == item.sha256 else {
            throw OperationalError("\(key) in the bucket does not match its hash (changed?); run 'ratecard verify', then remove it and publish again")
        }
    }

    public func read(_ key: StoreKey) throws -> [UInt8]? {
        try client.get(Self.key(key))?.bytes
    }

    public func list(_ kind: StoreKind) throws -> [String] {
        switch kind {
        case .objects:
            return try client.list(prefix: "objects/").map { String($0.dropFirst("objects/".count)) }.filter(ObjectLayout.isObjectName).sorted()
        case .releases:
            return try client.list(prefix: "releases/").compactMap { key -> String? in
                guard key.hasSuffix(".json") else { return nil }
                let id = key.dropFirst("releases/".count).dropLast(".json".count)
                return id.contains("/") ? nil : String(id)
            }.sorted()
        }
    }

    public func delete(_ key: StoreKey) throws {
        if case .pointer = key { throw OperationalError("the pointer is never deleted") }
        try client.delete(Self.key(key))
    }

    /// Compare-and-swap on the pointer: it must name `expected` now, and the write is
    /// conditional on the ETag read, so a flip by anyone in between makes this one fail.
    public func flip(expected: String?, to release: String) throws {
        let current = try client.get(Self.pointerKey)
        let live = current.map { String(decoding: $0.bytes, as: UTF8.self) }
        guard live == expected else {
            throw ConflictError("live is \(live ?? "none"), not \(expected ?? "none") as expected; nothing was changed")
        }
        let condition: S3Client.Condition = current.map { .matches($0.etag) } ?? .absent
        switch try client.put(Self.pointerKey, Array(release.utf8), contentType: "text/plain; charset=utf-8", cacheControl: "no-cache", condition: condition) {
        case .written: return
        case .preconditionFailed:
            throw ConflictError("the pointer changed while this flip was in flight (another publisher won); nothing was changed")
        }
    }
}
