import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// `ratecard fetch`: the app's loader (RatecardLoader, the code `bridge generate` writes into
/// the app) run against `ratecard serve`, and every attack refused with the last good release kept.
@Suite struct LoaderFetchTests {
    /// Writes `bytes` over the file at `path` through its own inode (a serve root's entry file is
    /// a hard link to its object: both change), then puts the old bytes back the same way.
    static func withInPlace(_ path: String, changedTo bytes: [UInt8], _ body: () throws -> Void) throws {
        let original = try FileSystem.readFile(path)
        chmod(path, 0o644)
        func write(_ data: [UInt8]) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(data))
            try handle.close()
        }
        try write(bytes)
        defer { try? write(original) }
        try body()
    }

    /// An HTTP server that answers every GET with a 302 to the same path on the host it is given.
    static let redirector = """
        import http.server, sys
        class Redirect(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(302)
                self.send_header("Location", sys.argv[1] + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    @Test("fetch loads a signed release, refuses each attack naming why and keeps the last good release")
    func attacksAreRefused() throws {
        try withTemporaryDirectory { directory in
            let fixture = try LoaderFixture(in: directory)
            let (first, second) = (fixture.releases[0], fixture.releases[1])
            let trusted = try #require(Ed25519.generate())
            let stranger = try #require(Ed25519.generate())
            let rotated = try #require(Ed25519.generate())
            let keyFile = directory + "/production.pub"
            try FileSystem.writeFile(keyFile, Array((try #require(TrustedKey(raw: trusted.publicKey)).text + "\n").utf8))
            let rotatedKey = try #require(TrustedKey(raw: rotated.publicKey)).text
            let state = directory + "/state"
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(first, sequence: 1), signedBy: [trusted.privateKey]))
            let server = try ServeProcess(["--root", fixture.root], in: fixture.publish.repo)
            let base = "http://127.0.0.1:\(server.port)" + fixture.basePath

            func fetch(_ extra: [String] = [], trust: [String]? = nil, state folder: String? = nil, url: String? = nil) throws -> Execution {
                let keys = (trust ?? [keyFile]).flatMap { ["--trust", $0] }
                return try ratecard(["fetch", url ?? base, "--bridge", "1", "--state", folder ?? state, "--now", LoaderFixture.now] + keys + extra, in: directory)
            }
            func expectRefused(_ label: String, _ reason: String, keeps kept: String, _ result: Execution, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(result.status == 1, "\(label): \(result.out)\(result.err)", sourceLocation: sourceLocation)
                #expect(result.err.contains(reason), "\(label): \(result.err)", sourceLocation: sourceLocation)
                #expect(result.out.contains("keeps release \(kept) of production"), "\(label): \(result.out)", sourceLocation: sourceLocation)
            }

            // The first load: every file fetched and checked, the release kept.
            let loaded = try fetch()
            #expect(loaded.status == 0, "\(loaded.out)\(loaded.err)")
            #expect(loaded.out.contains("loads release \(first) of production (sequence 1"), "\(loaded.out)")
            #expect(loaded.out.contains("signed by \(try #require(TrustedKey(raw: trusted.publicKey)).text), expires \(LoaderFixture.expiresAt)"), "\(loaded.out)")

            // The second release, attacked on the way; each time the first stays. Each attack
            // starts from the state after the first load (a phone that has only the first
            // release): files checked before a refusal are kept by hash, and would not be fetched again.
            let afterFirst = directory + "/after-first"
            try FileSystem.copyTree(from: state, to: afterFirst)
            func fresh() throws {
                try FileSystem.removeTree(state)
                try FileSystem.copyTree(from: afterFirst, to: state)
            }
            let next = try LoaderFixture.envelope(try fixture.statement(second, sequence: 2), signedBy: [trusted.privateKey])
            try fixture.serve(next)
            let entry = ServeRoot(path: fixture.root).folder(of: second) + "/index.html"
            try Self.withInPlace(entry, changedTo: Array("<!DOCTYPE html><title>app 1</title><script>steal()</script>\n".utf8)) {
                try fresh()
                expectRefused("a changed entry file", "index.html (o/", keeps: first, try fetch())
            }
            let own = try fixture.fileOfItsOwn(second, excluding: ["index.html"])
            let object = try fixture.objectPath(own, of: second)
            var changed = try FileSystem.readFile(object)
            changed[changed.count / 2] ^= 0x20
            try LoaderFixture.with(object, changedTo: changed) {
                try fresh()
                expectRefused("a changed object", "\(own) (o/", keeps: first, try fetch())
            }
            try LoaderFixture.with(object, changedTo: Array(try FileSystem.readFile(object).dropLast(7))) {
                try fresh()
                expectRefused("a truncated file", "bytes, not", keeps: first, try fetch())
            }
            let list = ServeRoot(path: fixture.root).objectsFolder + "/" + (try #require(fixture.lists[second])).sha256 + ".json"
            let forged = String(decoding: try #require(fixture.lists[second]).bytes, as: UTF8.self).replacingOccurrences(of: "\"index.html\"", with: "\"index.htm\"")
            try LoaderFixture.with(list, changedTo: Array(forged.utf8)) {
                try fresh()
                expectRefused("a changed file list", "the file list of release \(second) hashes to", keeps: first, try fetch())
            }

            // Untouched, it loads; then older, expired, foreign and badly signed statements do not.
            let accepted = try fetch()
            #expect(accepted.status == 0 && accepted.out.contains("loads release \(second) of production (sequence 2"), "\(accepted.out)\(accepted.err)")
            // The state keeps the files of the release it loads, no others.
            let secondInfo = try ReleaseInfo.read(from: ServeRoot(path: fixture.root).folder(of: second))
            let keptFiles = Set(try FileSystem.listDirectory(state + "/cache/objects"))
            #expect(keptFiles == Set(secondInfo.files.map(\.sha256) + [try #require(fixture.lists[second]).sha256]))
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(second, sequence: 3), signedBy: [trusted.privateKey]))
            #expect(try fetch().status == 0)
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(first, sequence: 2), signedBy: [trusted.privateKey]))
            expectRefused("a replayed older statement", "sequence 2 is below 3", keeps: second, try fetch())
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(first, sequence: 4, expiresAt: "2026-12-05T08:59:59Z"), signedBy: [trusted.privateKey]))
            expectRefused("an expired statement", "expired at 2026-12-05T08:59:59Z", keeps: second, try fetch())
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(first, sequence: 4, environment: "staging"), signedBy: [trusted.privateKey]))
            expectRefused("another environment", "for environment 'staging', not 'production'", keeps: second, try fetch())
            let rollback = try fixture.statement(first, sequence: 4)
            try fixture.serve(try LoaderFixture.envelope(rollback, signedBy: []))
            expectRefused("a stripped signature", "carries no signature", keeps: second, try fetch())
            try fixture.serve(try LoaderFixture.envelope(rollback, signedBy: [stranger.privateKey]))
            expectRefused("an unknown key", "signed only by keys this app does not trust", keeps: second, try fetch())
            var envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try LoaderFixture.envelope(rollback, signedBy: [trusted.privateKey])))
            let stolen = envelope.signatures
            envelope = SignedLiveStatement(payload: Array(try JSONEncoder().encode(try fixture.statement(first, sequence: 400))), signatures: stolen)
            try fixture.serve(Array(try JSONEncoder().encode(envelope)))
            expectRefused("a changed statement", "does not verify", keeps: second, try fetch())
            let report = try JSONReader.parse(Array(try fetch(["--format", "json"]).out.utf8))
            #expect(report["outcome"]?.stringValue == "kept" && report["release"]?["release"]?.stringValue == second, "\(report)")
            #expect(report["refusal"]?["kind"]?.stringValue == "signature", "\(report)")
            let korean = try fetch(["--lang", "ko"])
            #expect(korean.err.contains("서명한 뒤에 live.json이 바뀌었습니다"), "\(korean.err)")

            // A release manager's rollback (a new statement naming the older release) loads.
            try fixture.serve(try LoaderFixture.envelope(rollback, signedBy: [trusted.privateKey]))
            let rolledBack = try fetch()
            #expect(rolledBack.status == 0 && rolledBack.out.contains("loads release \(first) of production (sequence 4"), "\(rolledBack.out)\(rolledBack.err)")

            // Key rotation: signed by the old and the new key, both apps load; then by the new
            // one only, an app that trusts only the old key refuses.
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(second, sequence: 5), signedBy: [trusted.privateKey, rotated.privateKey]))
            #expect(try fetch().status == 0)
            #expect(try fetch(trust: [rotatedKey], state: directory + "/new-app").status == 0)
            try fixture.serve(try LoaderFixture.envelope(try fixture.statement(second, sequence: 6), signedBy: [rotated.privateKey]))
            #expect(try fetch(trust: [keyFile, rotatedKey]).status == 0)
            expectRefused("the old key only", "does not trust", keeps: second, try fetch())

            // Without --trust: hashes only, said unsigned.
            let unsigned = try fetch(trust: [])
            #expect(unsigned.status == 0 && unsigned.err.contains("only hashes were checked"), "\(unsigned.out)\(unsigned.err)")
            // No line for the app's bridge version.
            let noLine = try ratecard(["fetch", base, "--bridge", "0", "--state", state, "--now", LoaderFixture.now, "--trust", rotatedKey], in: directory)
            #expect(noLine.status == 1 && noLine.err.contains("no line for bridge 0"), "\(noLine.err)")
            // No lines at all (no release calls the bridge): every app loads the live release.
            var bridgeless = try fixture.statement(second, sequence: 7)
            bridgeless.lines = [:]
            try fixture.serve(try LoaderFixture.envelope(bridgeless, signedBy: [rotated.privateKey]))
            let anyBridge = try ratecard(["fetch", base, "--bridge", "0", "--state", state, "--now", LoaderFixture.now, "--trust", rotatedKey], in: directory)
            #expect(anyBridge.status == 0 && anyBridge.out.contains("loads release \(second) of production (sequence 7"), "\(anyBridge.out)\(anyBridge.err)")

            // A redirect to another host (a CDN edge or a proxy sending the app elsewhere), from a
            // real HTTP server: refused without being followed.
            let redirector = Process()
            redirector.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            redirector.arguments = ["python3", "-c", Self.redirector, "http://127.0.0.2:\(server.port)"]
            let pipe = Pipe()
            redirector.standardOutput = pipe
            redirector.standardError = FileHandle.nullDevice
            try redirector.run()
            defer { redirector.terminate() }
            let port = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let redirected = try fetch(trust: [rotatedKey], url: "http://127.0.0.1:\(port)" + fixture.basePath)
            expectRefused("a redirect to another host", "live.json redirects to another host (http://127.0.0.2:\(server.port)\(fixture.basePath)/live.json)", keeps: second, redirected)

            // Offline: the last good release is what the app opens; with nothing kept, exit 4.
            _ = server.stop()
            let offline = try fetch(trust: [rotatedKey])
            #expect(offline.status == 4 && offline.err.contains("cannot reach") && offline.out.contains("keeps release \(second)"), "\(offline.out)\(offline.err)")
            let nothing = try fetch(trust: [rotatedKey], state: directory + "/fresh")
            #expect(nothing.status == 4 && nothing.err.contains("no release is kept"), "\(nothing.out)\(nothing.err)")
        }
    }
}
