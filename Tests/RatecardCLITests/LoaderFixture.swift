import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// A signed environment (`production`, a serve root, `expires_after_days: 2`) with a key made by
/// `keys generate`, whose releases are real publishes signed with it (`--signing-key`): each
/// publish gives the web build another index.html, so each release has files of its own. A
/// second signed environment (`elsewhere`, same key) is there to take a statement from.
struct LoaderFixture {
    let publish: PublishFixture
    /// The private key file and the public key (`ed25519:<base64>`).
    let key: String
    let publicKey: String
    var root: String { publish.root }

    static let environment = "production"
    static let expiresAfterDays = 2

    init(in directory: String) throws {
        publish = try PublishFixture(in: directory)
        let made = try ratecard(["keys", "generate", "--out", directory + "/keys", "--name", "prod"], in: directory)
        try #require(made.status == 0, "\(made.err)")
        key = directory + "/keys/prod.key"
        publicKey = String(decoding: try FileSystem.readFile(directory + "/keys/prod.pub"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try configure(keys: [publicKey])
    }

    /// ratecard.yaml with production and elsewhere signed by `keys`.
    func configure(keys: [String]) throws {
        let path = publish.repo + "/ratecard.yaml"
        var text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
        if let start = text.range(of: "  production:\n") { text = String(text[..<start.lowerBound]) }
        let signing = "    signing:\n      keys: [\(keys.map { "\"\($0)\"" }.joined(separator: ", "))]\n      expires_after_days: \(Self.expiresAfterDays)\n"
        text += "  production:\n    root: ../root\n" + signing + "  elsewhere:\n    root: ../elsewhere\n" + signing
        try FileSystem.writeFile(path, Array(text.utf8))
    }

    /// Publishes commit `index` (with index.html saying `app <index>`) to `environment`; the release id.
    @discardableResult
    func publish(_ index: Int, to environment: String = Self.environment, keys: [String]? = nil) throws -> String {
        let page = "<!DOCTYPE html><title>app \(index)</title><script src=\"app/app.js\"></script>\n"
        unlink(publish.web + "/index.html")
        try FileSystem.writeFile(publish.web + "/index.html", Array(page.utf8))
        let arguments = ["publish", "--env", environment, "--rev", publish.commits[index], "--web", publish.web, "--as-of", "2026-11-29", "-m", "test"]
        let result = try ratecard(arguments + (keys ?? [key]).flatMap { ["--signing-key", $0] }, in: publish.repo)
        try #require(result.status == 0, "\(result.out)\(result.err)")
        return try #require(try ServeRoot(path: environment == Self.environment ? root : publish.directory + "/" + environment).live())
    }

    /// live.json as the root serves it.
    func live() throws -> [UInt8] { try FileSystem.readFile(root + "/live.json") }

    /// The statement in live.json.
    func statement() throws -> LiveStatement {
        let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try live()))
        return try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(envelope.payloadBytes)))
    }

    /// Serves `bytes` as live.json (an attacker who can write the root).
    func serve(_ bytes: [UInt8]) throws { try Self.replace(root + "/live.json", bytes) }

    /// The object file of `path` in `release`.
    func objectPath(_ path: String, of release: String) throws -> String {
        let info = try ReleaseInfo.read(from: ServeRoot(path: root).folder(of: release))
        let file = try #require(info.files.first { $0.path == path })
        return ServeRoot(path: root).objectsFolder + "/" + ObjectLayout.objectName(file)
    }

    /// A file of `release` that `other` does not have (its data or page of its own).
    func fileOfItsOwn(_ release: String, notIn other: String, excluding: Set<String> = []) throws -> String {
        let serve = ServeRoot(path: root)
        let mine = try ReleaseInfo.read(from: serve.folder(of: release)).files
        let others = Set(try ReleaseInfo.read(from: serve.folder(of: other)).files.map(\.sha256))
        return try #require(mine.first { !others.contains($0.sha256) && !excluding.contains($0.path) && $0.size > 16 }).path
    }

    /// Replaces the file at `path` (its folder made writable first), never through a link.
    static func replace(_ path: String, _ bytes: [UInt8]) throws {
        chmod(DurableFiles.parent(of: path), 0o755)
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

    /// live.json's bytes for `payload` signed by each of `keys` (raw private keys): what an
    /// attacker without the environment's key can make.
    static func envelope(payload: [UInt8], signedBy keys: [[UInt8]]) throws -> [UInt8] {
        let signatures = try keys.map { key -> SignedLiveStatement.Signature in
            let signature = try #require(Ed25519.sign(SignedLiveStatement.signedBytes(payload: payload), privateKey: key))
            let raw = try #require(Ed25519.publicKey(ofPrivateKey: key))
            let publicKey = try #require(TrustedKey(raw: raw))
            return .init(key: publicKey.text, sig: Data(signature).base64EncodedString())
        }
        return Array(try JSONEncoder().encode(SignedLiveStatement(payload: payload, signatures: signatures)))
    }
}
