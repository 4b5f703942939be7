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

    @Test("fetch loads what a signed publish serves, refuses each attack naming why and keeps the last good release")
    func attacksAreRefused() throws {
        try withTemporaryDirectory { directory in
            let fixture = try LoaderFixture(in: directory)
            let first = try fixture.publish(0)
            let firstLive = try fixture.live()
            let firstSequence = try fixture.statement().sequence
            let keyFile = directory + "/keys/prod.pub"
            let state = directory + "/state"
            let server = try ServeProcess(["--root", fixture.root], in: fixture.publish.repo)
            let base = "http://127.0.0.1:\(server.port)"

            func fetch(_ extra: [String] = [], trust: [String]? = nil, state folder: String? = nil, url: String? = nil) throws -> Execution {
                let keys = (trust ?? [keyFile]).flatMap { ["--trust", $0] }
                return try ratecard(["fetch", url ?? base, "--bridge", "1", "--state", folder ?? state] + keys + extra, in: directory)
            }
            func expectRefused(_ label: String, _ reason: String, keeps kept: String, _ result: Execution, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(result.status == 1, "\(label): \(result.out)\(result.err)", sourceLocation: sourceLocation)
                #expect(result.err.contains(reason), "\(label): \(result.err)", sourceLocation: sourceLocation)
                #expect(result.out.contains("keeps release \(kept) of production"), "\(label): \(result.out)", sourceLocation: sourceLocation)
            }

            // The first load: every file fetched and checked, the release kept.
            let loaded = try fetch()
            #expect(loaded.status == 0, "\(loaded.out)\(loaded.err)")
            #expect(loaded.out.contains("loads release \(first) of production (sequence \(firstSequence)"), "\(loaded.out)")
            #expect(loaded.out.contains("signed by \(fixture.publicKey), expires \(try fixture.statement().expiresAt ?? "-")"), "\(loaded.out)")

            // The second release, attacked on the way; each time the first stays. Each attack
            // starts from the state after the first load (a phone that has only the first
            // release): files checked before a refusal are kept by hash, and would not be fetched again.
            let afterFirst = directory + "/after-first"
            try FileSystem.copyTree(from: state, to: afterFirst)
            func fresh() throws {
                try FileSystem.removeTree(state)
                try FileSystem.copyTree(from: afterFirst, to: state)
            }
            let second = try fixture.publish(1)
            let secondLive = try fixture.live()
            let secondStatement = try fixture.statement()
            let entry = ServeRoot(path: fixture.root).folder(of: second) + "/index.html"
            try Self.withInPlace(entry, changedTo: Array("<!DOCTYPE html><title>app 1</title><script>steal()</script>\n".utf8)) {
                try fresh()
                expectRefused("a changed entry file", "index.html (o/", keeps: first, try fetch())
            }
            let own = try fixture.fileOfItsOwn(second, notIn: first, excluding: ["index.html"])
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
            let line = try #require(secondStatement.line(forBridge: 1))
            let list = ServeRoot(path: fixture.root).objectsFolder + "/" + line.files + ".json"
            let forged = String(decoding: try FileSystem.readFile(list), as: UTF8.self).replacingOccurrences(of: "\"index.html\"", with: "\"index.htm\"")
            try LoaderFixture.with(list, changedTo: Array(forged.utf8)) {
                try fresh()
                expectRefused("a changed file list", "the file list of release \(second) hashes to", keeps: first, try fetch())
            }

            // Untouched, it loads; then older, expired, foreign and badly signed statements do not.
            let accepted = try fetch()
            #expect(accepted.status == 0 && accepted.out.contains("loads release \(second) of production (sequence \(secondStatement.sequence)"), "\(accepted.out)\(accepted.err)")
            // The state keeps the files of the release it loads, no others.
            let secondInfo = try ReleaseInfo.read(from: ServeRoot(path: fixture.root).folder(of: second))
            let keptFiles = Set(try FileSystem.listDirectory(state + "/cache/objects"))
            #expect(keptFiles == Set(secondInfo.files.map(\.sha256) + [line.files]))
            try fixture.serve(firstLive)
            expectRefused("a replayed older statement", "sequence \(firstSequence) is below \(secondStatement.sequence)", keeps: second, try fetch())
            try fixture.serve(secondLive)
            let expiry = try #require(secondStatement.expiresAt.flatMap(ReleaseLoader.parseTime))
            let late = ReleaseLoader.formatTime(expiry.addingTimeInterval(1))
            expectRefused("an expired statement", "expired at \(secondStatement.expiresAt ?? "") (now \(late))", keeps: second, try fetch(["--now", late]))
            try fixture.publish(0, to: "elsewhere")
            try fixture.serve(try FileSystem.readFile(directory + "/elsewhere/live.json"))
            expectRefused("another environment", "for environment 'elsewhere', not 'production'", keeps: second, try fetch())
            let payload = try #require(try JSONDecoder().decode(SignedLiveStatement.self, from: Data(secondLive)).payloadBytes)
            try fixture.serve(try LoaderFixture.envelope(payload: payload, signedBy: []))
            expectRefused("a stripped signature", "carries no signature", keeps: second, try fetch())
            let stranger = try #require(Ed25519.generate())
            try fixture.serve(try LoaderFixture.envelope(payload: payload, signedBy: [stranger.privateKey]))
            expectRefused("an unknown key", "signed only by keys this app does not trust", keeps: second, try fetch())
            var bumped = secondStatement
            bumped.sequence = 400
            let signatures = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(secondLive)).signatures
            try fixture.serve(Array(try JSONEncoder().encode(SignedLiveStatement(payload: Array(try JSONEncoder().encode(bumped)), signatures: signatures))))
            expectRefused("a changed statement", "does not verify", keeps: second, try fetch())
            let report = try JSONReader.parse(Array(try fetch(["--format", "json"]).out.utf8))
            #expect(report["outcome"]?.stringValue == "kept" && report["release"]?["release"]?.stringValue == second, "\(report)")
            #expect(report["refusal"]?["kind"]?.stringValue == "signature", "\(report)")
            let korean = try fetch(["--lang", "ko"])
            #expect(korean.err.contains("서명한 뒤에 live.json이 바뀌었습니다"), "\(korean.err)")
            // Statements signed with the environment's own key: no line for the app's bridge
            // version is a refusal; no lines at all (no release calls the bridge) loads live.
            let privateKey = try #require(Ed25519.privateKey(pem: try FileSystem.readFile(fixture.key)))
            var noLine = secondStatement
            noLine.sequence += 1
            noLine.lines = ["5": line]
            try fixture.serve(try LoaderFixture.envelope(payload: Array(try JSONEncoder().encode(noLine)), signedBy: [privateKey]))
            expectRefused("no line", "no line for bridge 1 (lines: 5)", keeps: second, try fetch())
            noLine.lines = [:]
            try fixture.serve(try LoaderFixture.envelope(payload: Array(try JSONEncoder().encode(noLine)), signedBy: [privateKey]))
            #expect(try fetch().out.contains("loads release \(second) of production (sequence \(noLine.sequence)"))
            try fixture.serve(secondLive)

            // A release manager's rollback (a new statement naming the older release) loads.
            let back = try ratecard(["rollback", "--env", "production", "-m", "back", "--signing-key", fixture.key], in: fixture.publish.repo)
            try #require(back.status == 0, "\(back.err)")
            let rolledBack = try fetch()
            let rollbackSequence = try fixture.statement().sequence
            #expect(rolledBack.status == 0 && rolledBack.out.contains("loads release \(first) of production (sequence \(rollbackSequence)"), "\(rolledBack.out)\(rolledBack.err)")

            // Key rotation: signed by the old and the new key, both apps load; then by the new
            // one only, an app that trusts only the old key refuses.
            #expect(try ratecard(["keys", "generate", "--out", directory + "/keys", "--name", "next"], in: directory).status == 0)
            let nextFile = directory + "/keys/next.pub"
            let next = String(decoding: try FileSystem.readFile(nextFile), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            try fixture.configure(keys: [fixture.publicKey, next])
            let both = try ratecard(["sign", "--env", "production", "--signing-key", fixture.key, "--signing-key", directory + "/keys/next.key"], in: fixture.publish.repo)
            try #require(both.status == 0, "\(both.err)")
            #expect(try fetch().status == 0)
            #expect(try fetch(trust: [nextFile], state: directory + "/new-app").status == 0)
            try fixture.configure(keys: [next])
            let newOnly = try ratecard(["sign", "--env", "production", "--signing-key", directory + "/keys/next.key"], in: fixture.publish.repo)
            try #require(newOnly.status == 0, "\(newOnly.err)")
            #expect(try fetch(trust: [keyFile, nextFile]).status == 0)
            expectRefused("the old key only", "does not trust", keeps: first, try fetch())

            // Without --trust: hashes only, said unsigned.
            let unsigned = try fetch(trust: [])
            #expect(unsigned.status == 0 && unsigned.err.contains("only hashes were checked"), "\(unsigned.out)\(unsigned.err)")

            // A redirect to another host (a CDN edge or a proxy sending the app elsewhere), from a
            // real HTTP server: refused without being followed.
            let redirector = Process()
            redirector.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            redirector.arguments = ["python3", "-c", Self.redirector, "http://127.0.0.2:\(server.port)"]
            let pipe = Pipe()
            redirector.standardOutput = pipe
            redirector.standardError = FileHandle.nullDevice
            try redirector.run()
            // SIGKILL: a child of Foundation's Process inherits a mask that blocks SIGTERM.
            defer {
                kill(redirector.processIdentifier, SIGKILL)
                redirector.waitUntilExit()
            }
            let port = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let redirected = try fetch(trust: [nextFile], url: "http://127.0.0.1:\(port)")
            expectRefused("a redirect to another host", "live.json redirects to another host (http://127.0.0.2:\(server.port)/live.json)", keeps: first, redirected)

            // Offline: the last good release is what the app opens; with nothing kept, exit 4.
            _ = server.stop()
            let offline = try fetch(trust: [nextFile])
            #expect(offline.status == 4 && offline.err.contains("cannot reach") && offline.out.contains("keeps release \(first)"), "\(offline.out)\(offline.err)")
            let nothing = try fetch(trust: [nextFile], state: directory + "/fresh")
            #expect(nothing.status == 4 && nothing.err.contains("no release is kept"), "\(nothing.out)\(nothing.err)")
        }
    }
}
