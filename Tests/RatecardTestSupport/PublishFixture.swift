import Foundation
import Glibc
import RatecardKit
import Testing

/// A small content repo with two commits whose bundles differ, and a tiny web build.
public struct PublishFixture {
    public let directory: String
    public let repo: String
    public let web: String
    public let root: String
    public let commits: [String]

    /// Whether the web build calls the native bridge (so releases record what they need of the
    /// app, and the root has `bridge-lines.json`).
    public let bridge: Bool

    /// `count` commits, each changing one rate, so every commit publishes a different release.
    /// With `bridge`, the web build has the example site's bridge schema and runtime and calls it.
    public init(in directory: String, commits count: Int = 2, bridge: Bool = false) throws {
        self.bridge = bridge
        self.directory = directory
        repo = directory + "/repo"
        web = directory + "/web"
        root = directory + "/root"
        try FileSystem.copyTree(from: Fixtures.root + "/base", to: repo)
        let repository = try Repository.create(at: repo)
        let author = Signature(name: "Rate Editor", email: "editor@example.com")
        let table = repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
        let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
        var ids: [String] = []
        for index in 0..<count {
            let text = original.replacingOccurrences(of: "apr_max_pct: 5.6", with: "apr_max_pct: 5.\(6 + index % 4)\(index / 4)")
            try FileSystem.writeFile(table, Array(text.utf8))
            ids.append(try repository.commitAll(message: "Rates \(index)", author: author).hex)
        }
        commits = ids
        try FileSystem.makeDirectories(web + "/app")
        try FileSystem.writeFile(web + "/index.html", Array("<!DOCTYPE html><title>app</title><script src=\"app/app.js\"></script>\n".utf8))
        try FileSystem.writeFile(web + "/app/app.js", Array("console.log('app');\n".utf8))
        if bridge {
            try FileSystem.writeFile(web + "/bridge.yaml", try FileSystem.readFile(projectSite + "/bridge.yaml"))
            for generated in ["bridge.js", "bridge.d.ts"] {
                try FileSystem.writeFile(web + "/app/" + generated, try FileSystem.readFile(projectSite + "/app/" + generated))
            }
            try FileSystem.writeFile(web + "/app/calls.js", Array(Self.call(needsShare: false).utf8))
        }
    }

    /// A script calling the bridge: `ready` (bridge 1) or `share` (bridge 2).
    public static func call(needsShare: Bool) -> String {
        needsShare ? "RatecardBridge.call(\"share\", { title: \"t\", url: \"https://example.com\" });\n" : "RatecardBridge.call(\"ready\", { bundle_id: \"b\" });\n"
    }

    /// Gives the web build a file no release has yet, so the next publish writes a new object
    /// (with the bridge, it also needs bridge 1 or 2 at random, so the bridge lines change).
    public func stampWeb() throws {
        let path = web + "/app/stamp.js"
        unlink(path)
        try FileSystem.writeFile(path, Array("// \(UInt64.random(in: 0...UInt64.max))\n".utf8))
        if bridge {
            unlink(web + "/app/calls.js")
            try FileSystem.writeFile(web + "/app/calls.js", Array(Self.call(needsShare: Bool.random()).utf8))
        }
    }

    /// `bridge-lines.json` says what the releases and the pointer say; after a kill it may not
    /// yet (`stale`), and then `status` must report it.
    public func linesAreConsistent(_ label: String, staleAllowed: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // live.json follows the pointer too (every root, bridge or not); a kill between the flip
        // and its write leaves it stale, which status reports and the next command repairs.
        let statement = try LiveStatements.staleness(root: ServeRoot(path: root))
        if !statement.isEmpty {
            if staleAllowed {
                let status = try ratecard(["status", "--root", root], in: repo)
                #expect(status.out.contains("stale: live.json"), "\(label): status does not report \(statement): \(status.out)", sourceLocation: sourceLocation)
            } else {
                Issue.record("\(label): \(statement)", sourceLocation: sourceLocation)
            }
        }
        guard bridge else { return }
        let stale = try BridgeLines.staleness(root: ServeRoot(path: root))
        guard !stale.isEmpty else { return }
        if staleAllowed {
            let status = try ratecard(["status", "--root", root], in: repo)
            #expect(status.out.contains("stale: bridge-lines.json"), "\(label): status does not report \(stale): \(status.out)", sourceLocation: sourceLocation)
        } else {
            Issue.record("\(label): \(stale)", sourceLocation: sourceLocation)
        }
    }

    public func publishArguments(_ commit: String, _ extra: [String] = []) -> [String] {
        ["publish", "--root", root, "--rev", commit, "--web", web, "--as-of", "2026-11-29", "-m", "test"] + extra
    }

    /// Publishes every commit in turn (one release each); the serve root's release ids, oldest first.
    @discardableResult
    public func publishEach(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        for commit in commits {
            let result = try ratecard(publishArguments(commit), in: repo)
            try #require(result.status == 0, "\(result.out)\(result.err)", sourceLocation: sourceLocation)
        }
        return try ServeRoot(path: root).releaseIDs()
    }

    /// Starts `ratecard` without waiting for it.
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = Bundle.main.bundleURL.appendingPathComponent("ratecard")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: repo)
        var env = testEnvironment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Names a crash leaves behind that the next run must clean.
    public func strays() throws -> [String] {
        let releases = try FileSystem.listDirectory(root + "/releases").filter { $0.hasPrefix(".") }
        let links = try FileSystem.listDirectory(root).filter { $0.hasPrefix(".current.tmp-") }
        let objects = FileSystem.isDirectory(root + "/objects") ? try FileSystem.listDirectory(root + "/objects").filter { $0.hasPrefix(".") } : []
        return releases + links + objects.map { "objects/" + $0 }
    }

    /// `current` names a complete release that verifies.
    public func liveIsComplete() throws -> String? {
        let serve = ServeRoot(path: root)
        guard let live = try serve.live() else { return nil }
        #expect(try serve.drift(of: live) == [], "live release \(live) does not verify")
        return live
    }

    /// Every release on disk verifies: its entry folder and every object it names.
    public func everyReleaseIsComplete(_ label: String) throws {
        let serve = ServeRoot(path: root)
        for id in try serve.releaseIDs() {
            let drift = try serve.drift(of: id)
            #expect(drift == [], "\(label): release \(id) does not verify: \(drift.prefix(3))")
        }
    }
}
