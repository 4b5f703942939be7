import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// Two releases published to a serve root (the second with another index.html, so each has
/// files of its own), and live.json statements about them written with the format types and
/// Ed25519, as a signed environment serves them: the ground of the loader's tests.
struct LoaderFixture {
    let publish: PublishFixture
    /// The releases, oldest first.
    let releases: [String]
    /// Each release's file list (its bytes, as the object `o/<sha256>.json` holds them) and its hash.
    let lists: [String: (bytes: [UInt8], sha256: String)]
    var root: String { publish.root }

    init(in directory: String) throws {
        publish = try PublishFixture(in: directory)
        var ids: [String] = []
        for (index, commit) in publish.commits.enumerated() {
            let page = "<!DOCTYPE html><title>app \(index)</title><script src=\"app/app.js\"></script>\n"
            unlink(publish.web + "/index.html")
            try FileSystem.writeFile(publish.web + "/index.html", Array(page.utf8))
            let result = try ratecard(publish.publishArguments(commit), in: publish.repo)
            try #require(result.status == 0, "\(result.out)\(result.err)")
            ids = try ServeRoot(path: publish.root).releaseIDs()
        }
        releases = ids
        var lists: [String: (bytes: [UInt8], sha256: String)] = [:]
        let serve = ServeRoot(path: publish.root)
        for id in ids {
            let info = try ReleaseInfo.read(from: serve.folder(of: id))
            let list = ReleaseFileList(
                environment: Self.environment, release: id,
                files: info.files.map { .init(path: $0.path, sha256: $0.sha256, size: $0.size, object: ObjectLayout.objectName($0)) })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let bytes = Array(try encoder.encode(list))
            let sha = SHA256.hex(bytes)
            try Self.replace(serve.objectsFolder + "/" + sha + ".json", bytes)
            lists[id] = (bytes, sha)
        }
        self.lists = lists
    }

    static let environment = "production"
    static let signedAt = "2026-12-04T18:00:00Z"
    static let expiresAt = "2026-12-11T18:00:00Z"
    /// A time inside every statement's validity.
    static let now = "2026-12-05T09:00:00Z"

    /// The statement naming `release` for bridge 1 and up (and as live).
    func statement(
        _ release: String, sequence: Int, environment: String = Self.environment, expiresAt: String? = Self.expiresAt, files: String? = nil
    ) throws -> LiveStatement {
        let listed = try #require(lists[release])
        let line = LiveStatement.Line(release: release, files: files ?? listed.sha256)
        return LiveStatement(environment: environment, sequence: sequence, signedAt: Self.signedAt, expiresAt: expiresAt, live: line, lines: ["1": line])
    }

    /// live.json's bytes: `statement` signed by each of `keys` (private keys).
    static func envelope(_ statement: LiveStatement, signedBy keys: [[UInt8]]) throws -> [UInt8] {
        let payload = Array(try JSONEncoder().encode(statement))
        return try envelope(payload: payload, signedBy: keys)
    }

    static func envelope(payload: [UInt8], signedBy keys: [[UInt8]]) throws -> [UInt8] {
        let signatures = try keys.map { key -> SignedLiveStatement.Signature in
            let signature = try #require(Ed25519.sign(SignedLiveStatement.signedBytes(payload: payload), privateKey: key))
            let raw = try #require(Ed25519.publicKey(ofPrivateKey: key))
            let publicKey = try #require(TrustedKey(raw: raw))
            return .init(key: publicKey.text, sig: Data(signature).base64EncodedString())
        }
        return Array(try JSONEncoder().encode(SignedLiveStatement(payload: payload, signatures: signatures)))
    }

    /// Where this fixture serves live.json: beside the objects' route of the serve root, at
    /// `/r/<release>/live.json` (a kept release's folder), so `<base>/live.json` and
    /// `<base>/o/<object>` are both served by `ratecard serve` and nginx's block.
    var liveFolder: String { ServeRoot(path: root).folder(of: releases[0]) }
    var basePath: String { "/r/" + releases[0] }

    func serve(_ bytes: [UInt8]) throws { try Self.replace(liveFolder + "/live.json", bytes) }

    /// The object file of `path` in `release`.
    func objectPath(_ path: String, of release: String) throws -> String {
        let info = try ReleaseInfo.read(from: ServeRoot(path: root).folder(of: release))
        let file = try #require(info.files.first { $0.path == path })
        return ServeRoot(path: root).objectsFolder + "/" + ObjectLayout.objectName(file)
    }

    /// A file of `release` that no other release has (its data or page of its own).
    func fileOfItsOwn(_ release: String, excluding: Set<String> = []) throws -> String {
        let serve = ServeRoot(path: root)
        let mine = try ReleaseInfo.read(from: serve.folder(of: release)).files
        let others = Set(try releases.filter { $0 != release }.flatMap { try ReleaseInfo.read(from: serve.folder(of: $0)).files.map(\.sha256) })
        return try #require(mine.first { !others.contains($0.sha256) && !excluding.contains($0.path) && $0.size > 16 }).path
    }

    /// Replaces the file at `path` (made writable first, its folder too), never through a link.
    static func replace(_ path: String, _ bytes: [UInt8]) throws {
        let folder = DurableFiles.parent(of: path)
        chmod(folder, 0o755)
        unlink(path)
        try FileSystem.writeFile(path, bytes)
    }

    /// Runs `body` with the file at `path` changed to `bytes`, then puts it back as it was.
    static func with(_ path: String, changedTo bytes: [UInt8], _ body: () throws -> Void) throws {
        let original = try FileSystem.readFile(path)
        try replace(path, bytes)
        defer { try? replace(path, original) }
        try body()
    }
}
