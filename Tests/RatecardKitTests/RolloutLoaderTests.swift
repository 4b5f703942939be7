import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// The loader fails closed on a rollout it cannot follow: a rollout release whose file list is
/// missing, changed or not its hash, or whose file is not its sha256; a share outside 1...9999 or
/// not a whole number; a rollout on a line that names no release; an empty rollout id. In each
/// case the install loads the line's own release (or keeps the last good one), never the
/// rollout's files unchecked. In-process, the environment served from a real folder.
@Suite struct RolloutLoaderTests {
    static let digest = LibcryptoDigest()

    /// Serves the files of a folder, as a static host does: 404 for what is not there.
    struct FolderTransport: LoaderTransport {
        let folder: String

        func get(_ url: URL) throws -> LoaderResponse {
            let path = folder + url.path
            guard FileManager.default.fileExists(atPath: path) else { return LoaderResponse(status: 404, location: nil, body: []) }
            return LoaderResponse(status: 200, location: nil, body: try FileSystem.readFile(path))
        }
    }

    /// A served environment with two releases, `own` (live) and `rolled`, each one page.
    struct Served {
        let folder: String
        let directory: String
        /// The file list hashes of the two releases.
        var own = ""
        var rolled = ""
        var sequence = 0

        init(in directory: String) throws {
            self.directory = directory
            folder = directory + "/served"
            try FileSystem.makeDirectories(folder + "/o")
            own = try release("000001-aaaaaaaaaaaa", page: "own")
            rolled = try release("000002-bbbbbbbbbbbb", page: "rolled")
        }

        /// Writes a release of one page; the hash of its file list.
        func release(_ id: String, page: String) throws -> String {
            let bytes = Array("<!DOCTYPE html><title>\(page)</title>\n".utf8)
            let sha = RolloutLoaderTests.digest.sha256Hex(bytes)
            try FileSystem.writeFile(folder + "/o/\(sha).html", bytes)
            let list = ReleaseFileList(
                environment: "production", release: id, files: [ReleaseFileList.File(path: "index.html", sha256: sha, size: bytes.count, object: sha + ".html")])
            let listBytes = Array(try JSONEncoder().encode(list))
            let hash = RolloutLoaderTests.digest.sha256Hex(listBytes)
            try FileSystem.writeFile(folder + "/o/\(hash).json", listBytes)
            return hash
        }

        /// Serves an unsigned statement whose live line is `line` (JSON text), the next sequence.
        mutating func serve(line: String) throws {
            sequence += 1
            let payload = #"{"format":1,"environment":"production","sequence":\#(sequence),"signed_at":"2026-12-05T00:00:00Z","live":\#(line),"lines":{}}"#
            let envelope = SignedLiveStatement(payload: Array(payload.utf8), signatures: [])
            unlink(folder + "/live.json")
            try FileSystem.writeFile(folder + "/live.json", Array(try JSONEncoder().encode(envelope)))
        }

        /// The live line naming `own`, with a rollout of `rolled` given as JSON fields.
        func line(rollout: String?, release: String = "000001-aaaaaaaaaaaa", files: String? = nil) -> String {
            let base = #""release":"\#(release)","files":"\#(files ?? own)""#
            guard let rollout else { return "{" + base + "}" }
            return "{" + base + #","rollout":{"# + rollout + "}}"
        }

        /// A rollout of `rolled` with this id and share (JSON text for the share).
        func rollout(id: String = "000002-bbbbbbbbbbbb@2", share: String = "9999", files: String? = nil) -> String {
            #""id":"\#(id)","release":"000002-bbbbbbbbbbbb","files":"\#(files ?? rolled)","share_bp":\#(share)"#
        }

        /// A loader of a fresh install (nothing kept) with this install id.
        func loader(install: String, cache: String = "cache") -> ReleaseLoader {
            ReleaseLoader(
                configuration: .init(
                    base: URL(string: "https://cdn.example.com")!, environment: "production", bridgeVersion: 1, trustedKeys: [], waitsForReady: false,
                    installID: install),
                transport: FolderTransport(folder: folder), verifier: NoVerifier(), digest: RolloutLoaderTests.digest,
                sequences: FileSequenceStore(path: directory + "/\(cache)/sequences.json"), cache: ReleaseCache(folder: directory + "/\(cache)/releases"))
        }
    }

    struct NoVerifier: SignatureVerifier {
        func isValidSignature(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool { false }
    }

    /// An install inside a 99.99% share of rollout `id` (every install but one in 10,000).
    static func inside(_ id: String = "000002-bbbbbbbbbbbb@2") throws -> String {
        let rollout = LiveStatement.Rollout(id: id, release: "r", files: "", share: 9999)
        return try #require((0..<100).map { "install-\($0)" }.first { rollout.includes(installID: $0, digest: digest) })
    }

    /// The release the outcome loaded (nil when it kept or failed).
    static func loaded(_ outcome: ReleaseLoader.Outcome) -> String? {
        if case .loaded(let release, _) = outcome { return release.release }
        return nil
    }

    @Test("a well-formed rollout is followed: the control the other cases are measured against")
    func wellFormedRolloutLoads() throws {
        try withTemporaryDirectory { directory in
            var served = try Served(in: directory)
            try served.serve(line: served.line(rollout: served.rollout()))
            let outcome = served.loader(install: try Self.inside()).load(now: Date())
            #expect(Self.loaded(outcome) == "000002-bbbbbbbbbbbb", "\(outcome)")
            if case .loaded(let release, _) = outcome { #expect(release.rollout == "000002-bbbbbbbbbbbb@2") }
        }
    }

    @Test("the rollout release's file list missing, changed, or a file not its sha256: the line's own release loads")
    func brokenRolloutReleaseFallsBackToTheLine() throws {
        try withTemporaryDirectory { directory in
            var served = try Served(in: directory)
            let install = try Self.inside()
            try served.serve(line: served.line(rollout: served.rollout()))
            let listPath = served.folder + "/o/\(served.rolled).json"
            let list = try FileSystem.readFile(listPath)
            // Missing.
            unlink(listPath)
            var outcome = served.loader(install: install, cache: "missing").load(now: Date())
            #expect(Self.loaded(outcome) == "000001-aaaaaaaaaaaa", "missing file list: \(outcome)")
            if case .loaded(let release, _) = outcome { #expect(release.rollout == nil) }
            // Changed: not the hash the statement names.
            try FileSystem.writeFile(listPath, list + Array(" ".utf8))
            outcome = served.loader(install: install, cache: "changed").load(now: Date())
            #expect(Self.loaded(outcome) == "000001-aaaaaaaaaaaa", "changed file list: \(outcome)")
            // The statement names a hash the list does not have (another release's list).
            unlink(listPath)
            try FileSystem.writeFile(listPath, list)
            try served.serve(line: served.line(rollout: served.rollout(files: String(repeating: "c", count: 64))))
            outcome = served.loader(install: install, cache: "unmatched").load(now: Date())
            #expect(Self.loaded(outcome) == "000001-aaaaaaaaaaaa", "file list not its hash: \(outcome)")
            // A file of the rollout's release that is not its sha256.
            try served.serve(line: served.line(rollout: served.rollout()))
            let decoded = try JSONDecoder().decode(ReleaseFileList.self, from: Data(list))
            let object = served.folder + "/o/" + decoded.files[0].object
            unlink(object)
            try FileSystem.writeFile(object, Array("<!DOCTYPE html><title>swapped</title>\n".utf8))
            outcome = served.loader(install: install, cache: "file").load(now: Date())
            #expect(Self.loaded(outcome) == "000001-aaaaaaaaaaaa", "changed file: \(outcome)")
        }
    }

    @Test("a share outside 1...9999 or not a whole number, and an empty rollout id: the rollout is not followed")
    func malformedRolloutIsIgnored() throws {
        try withTemporaryDirectory { directory in
            var served = try Served(in: directory)
            // Every install hashes below 10,000: with a share of everyone it would load the rollout.
            let install = try Self.inside()
            for (index, share) in ["10000", "20000", "0", "-1", "12.5", "\"5000\"", "null"].enumerated() {
                try served.serve(line: served.line(rollout: served.rollout(share: share)))
                let outcome = served.loader(install: install, cache: "share-\(index)").load(now: Date())
                #expect(Self.loaded(outcome) == "000001-aaaaaaaaaaaa", "share_bp \(share): \(outcome)")
            }
            let emptyID = try #require(
                (0..<100).map { "install-\($0)" }.first { LiveStatement.Rollout.bucket(installID: $0, rolloutID: "", digest: Self.digest) < 9999 })
            try served.serve(line: served.line(rollout: served.rollout(id: "")))
            let outcome = served.loader(install: emptyID, cache: "empty-id").load(now: Date())
            #expect(Self.loaded(outcome) == "000001-aaaaaaaaaaaa", "empty rollout id: \(outcome)")
        }
    }

    @Test("a rollout on a line that names no release of its own: the last good release is kept, the rollout's files never loaded")
    func rolloutWithoutABaseKeepsTheLastGood() throws {
        try withTemporaryDirectory { directory in
            var served = try Served(in: directory)
            let install = try Self.inside()
            try served.serve(line: served.line(rollout: nil))
            let loader = served.loader(install: install)
            #expect(Self.loaded(loader.load(now: Date())) == "000001-aaaaaaaaaaaa")
            for (release, files) in [("", served.own), ("000001-aaaaaaaaaaaa", ""), ("", "")] {
                try served.serve(line: served.line(rollout: served.rollout(), release: release, files: files))
                let outcome = loader.load(now: Date())
                guard case .kept(let kept, _) = outcome else {
                    Issue.record("a line without its own release (\(release.isEmpty ? "no id" : "no file list")) loaded: \(outcome)")
                    continue
                }
                #expect(kept.release == "000001-aaaaaaaaaaaa")
            }
        }
    }
}
