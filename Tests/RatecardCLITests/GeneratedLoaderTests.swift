import Foundation
import RatecardKit
import RatecardLoader
import Testing

/// The loader `bridge generate` writes into the app: the very files the CLI compiles, and, compiled
/// with swiftc on its own (libcrypto standing in for CryptoKit), it loads from `ratecard serve`,
/// serves only checked bytes and rolls a release back when `ready` does not come.
@Suite struct GeneratedLoaderTests {
    static var sourceRoot: String { String(exampleContent.dropLast("content".count)) }

    /// Fails when Sources/RatecardLoader changed and `make loader-source` was not run.
    @Test("the loader bridge generate writes is Sources/RatecardLoader byte for byte")
    func embeddedSourceMatchesTheCompiledFiles() throws {
        let folder = Self.sourceRoot + "Sources/RatecardLoader"
        let names = try FileSystem.listDirectory(folder).filter { $0.hasSuffix(".swift") }.sorted()
        let embedded = LoaderSwiftGenerator.files
        #expect(embedded.keys.sorted() == names, "run 'make loader-source'")
        for name in names {
            let text = String(decoding: try FileSystem.readFile(folder + "/" + name), as: UTF8.self)
            #expect(embedded[name] == text, "\(name) differs from its embedded copy: run 'make loader-source'")
        }
        // The project's own app copy, beside native/RatecardBridge.swift.
        let copy = String(decoding: try FileSystem.readFile(Self.sourceRoot + "native/" + LoaderSwiftGenerator.fileName), as: UTF8.self)
        #expect(copy == LoaderSwiftGenerator.generate(), "native/RatecardLoader.swift is not what bridge generate writes: run 'make loader-source'")
    }

    /// The web view gets a page with the policy nginx sends it, so an inline script does not run
    /// there either; every other file gets the sandboxed data policy.
    @Test func theAppServesFilesWithTheNginxBlocksPolicies() {
        #expect(ReleaseLoader.pagePolicy == NginxConfig.pagePolicy)
        #expect(ReleaseLoader.dataPolicy == NginxConfig.dataPolicy)
        #expect(ReleaseLoader.contentSecurityPolicy(forPath: "/index.html") == NginxConfig.pagePolicy)
        #expect(ReleaseLoader.contentSecurityPolicy(forPath: "terms/loan/2026-11-01.html") == NginxConfig.pagePolicy)
        #expect(ReleaseLoader.contentSecurityPolicy(forPath: "o/" + String(repeating: "a", count: 64) + ".svg") == NginxConfig.dataPolicy)
        #expect(ReleaseLoader.contentSecurityPolicy(forPath: "app/app.js") == NginxConfig.dataPolicy)
        #expect(ReleaseLoader.mediaType(forPath: "app/app.js") == "text/javascript; charset=utf-8")
    }

    /// The harness: libcrypto for Ed25519 and SHA-256 (CCrypto's module map), URLSession for
    /// HTTP, and the loader driven as the WebKit adapter drives it.
    static let harness = #"""
        import CCrypto
        import Foundation
        #if canImport(FoundationNetworking)
            import FoundationNetworking
        #endif

        struct Verifier: SignatureVerifier {
            func isValidSignature(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool {
                guard signature.count == 64, publicKey.count == 32,
                    let key = publicKey.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) })
                else { return false }
                defer { EVP_PKEY_free(key) }
                guard let context = EVP_MD_CTX_new() else { return false }
                defer { EVP_MD_CTX_free(context) }
                guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
                return message.withUnsafeBufferPointer { m in signature.withUnsafeBufferPointer { EVP_DigestVerify(context, $0.baseAddress, 64, m.baseAddress, m.count) } } == 1
            }
        }

        struct Digest: ContentDigest {
            func sha256(_ bytes: [UInt8]) -> [UInt8] {
                var out = [UInt8](repeating: 0, count: 32)
                var length: UInt32 = 0
                _ = bytes.withUnsafeBufferPointer { input in out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) } }
                return out
            }
        }

        final class Box: @unchecked Sendable {
            var result: Result<LoaderResponse, any Error> = .failure(URLError(.unknown))
        }

        struct Transport: LoaderTransport {
            func get(_ url: URL) throws -> LoaderResponse {
                let box = Box()
                let done = DispatchSemaphore(value: 0)
                URLSession.shared.dataTask(with: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)) { data, response, error in
                    if let http = response as? HTTPURLResponse {
                        box.result = .success(LoaderResponse(status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"), body: Array(data ?? Data())))
                    } else {
                        box.result = .failure(error ?? URLError(.badServerResponse))
                    }
                    done.signal()
                }.resume()
                done.wait()
                return try box.result.get()
            }
        }

        func describe(_ outcome: ReleaseLoader.Outcome) -> String {
            switch outcome {
            case .loaded(let release, let isNew): return "loaded \(release.release) new=\(isNew)"
            case .kept(let release, let why): return "kept \(release.release) \(why.kind.rawValue): \(why.english)"
            case .failed(let why): return "failed \(why.kind.rawValue): \(why.english)"
            }
        }

        let arguments = CommandLine.arguments
        let (base, state, key, mode) = (arguments[1], arguments[2], arguments[3], arguments[4])
        let loader = ReleaseLoader(
            configuration: .init(base: URL(string: base)!, environment: "production", bridgeVersion: 1, trustedKeys: [TrustedKey(key)!], waitsForReady: true),
            transport: Transport(), verifier: Verifier(), digest: Digest(), sequences: FileSequenceStore(path: state + "/sequence.json"),
            cache: ReleaseCache(folder: state + "/cache"))
        let outcome = loader.load(now: Date())
        print(describe(outcome))
        if case .loaded(let release, _) = outcome {
            let page = loader.contents(of: "/index.html", in: release).map { String(decoding: $0, as: UTF8.self) } ?? "nil"
            print("index.html: \(page.split(separator: "\n").first ?? "")")
            print("by object: \(loader.contents(of: "/o/" + release.file(at: "index.html")!.object, in: release) != nil)")
            print("unlisted: \(loader.contents(of: "/version.json", in: release) == nil)")
            switch mode {
            case "ready":
                try loader.confirmReady(release)
                print("good \(loader.kept()?.release ?? "none")")
            case "timeout":
                print(describe(loader.rollBack(release, afterSeconds: 10)))
            default:
                break
            }
        }
        """#

    /// The generated loader and the harness, compiled with swiftc (Swift 6, warnings as errors);
    /// the binary's path.
    static func compileHarness(loader: String, in directory: String) throws -> String {
        try FileSystem.writeFile(directory + "/main.swift", Array(harness.utf8))
        let binary = directory + "/loader"
        let (compiled, output) = try runTool(
            "/usr/bin/env", ["swiftc", "-swift-version", "6", "-warnings-as-errors", "-I", sourceRoot + "Sources/CCrypto", loader, directory + "/main.swift", "-o", binary])
        try #require(compiled == 0, "\(output)")
        return binary
    }

    @Test("the generated loader compiles with swiftc and, against ratecard serve, loads, serves checked bytes and rolls back without ready")
    func generatedLoaderRunsAgainstServe() throws {
        try withTemporaryDirectory { directory in
            let fixture = try LoaderFixture(in: directory)
            let first = try fixture.publish(0)
            // Written by bridge generate, twice: the same bytes each time.
            try FileSystem.copyTree(from: projectSite, to: directory + "/site")
            var outputs: [[UInt8]] = []
            for run in 0..<2 {
                let generated = try ratecard(["bridge", "generate", "--web", directory + "/site", "--swift", directory + "/app\(run)/RatecardBridge.swift"], in: directory)
                try #require(generated.status == 0, "\(generated.err)")
                outputs.append(try FileSystem.readFile(directory + "/app\(run)/RatecardLoader.swift"))
            }
            #expect(outputs[0] == outputs[1])
            let loaderFile = String(decoding: outputs[0], as: UTF8.self)
            for (name, text) in LoaderSwiftGenerator.files { #expect(loaderFile.contains(text), "\(name) is not in the generated loader as it is") }

            let binary = try Self.compileHarness(loader: directory + "/app0/RatecardLoader.swift", in: directory)

            let key = fixture.publicKey
            let server = try ServeProcess(["--root", fixture.root], in: fixture.publish.repo)
            let base = "http://127.0.0.1:\(server.port)"
            let state = directory + "/phone"
            func run(_ mode: String) throws -> String {
                let (status, text) = try runTool(binary, [base, state, key, mode])
                #expect(status == 0, "\(text)")
                return text
            }
            // A first start: loaded, served from checked bytes only, and confirmed by ready.
            let start = try run("ready")
            #expect(start.contains("loaded \(first) new=true"), "\(start)")
            #expect(start.contains("index.html: <!DOCTYPE html><title>app 0</title>"), "\(start)")
            #expect(start.contains("by object: true") && start.contains("unlisted: true") && start.contains("good \(first)"), "\(start)")
            // A new release that never sends ready: marked bad here, the first opened instead.
            let second = try fixture.publish(1)
            let silent = try run("timeout")
            #expect(silent.contains("loaded \(second) new=true"), "\(silent)")
            #expect(silent.contains("kept \(first) notReady: release \(second) did not report ready within 10 s"), "\(silent)")
            // And not loaded again on this phone.
            let again = try run("load")
            #expect(again.contains("kept \(first) markedBad: release \(second) was marked bad on this device"), "\(again)")
            // A checked file changed in the phone's cache is not served.
            let index = try #require(try ReleaseInfo.read(from: ServeRoot(path: fixture.root).folder(of: first)).files.first { $0.path == "index.html" })
            try LoaderFixture.replace(state + "/cache/objects/" + index.sha256, Array("<script>steal()</script>".utf8))
            _ = server.stop()
            let offline = try run("load")
            #expect(offline.contains("kept \(first) unreachable"), "\(offline)")
            let release = try #require(try ReleaseCache(folder: state + "/cache").good())
            let loader = ReleaseLoader(
                configuration: .init(base: URL(string: base)!, environment: nil, bridgeVersion: 1, trustedKeys: [], waitsForReady: true),
                transport: CurlLoaderTransport(), verifier: LibcryptoSignatureVerifier(), digest: LibcryptoDigest(),
                sequences: FileSequenceStore(path: state + "/sequence.json"), cache: ReleaseCache(folder: state + "/cache"))
            #expect(loader.contents(of: "index.html", in: release) == nil)
            #expect(loader.contents(of: "app/app.js", in: release) != nil)
        }
    }

    @Test(
        "the generated loader loads through nginx serving the nginx-conf block, and refuses a changed object there",
        .enabled(if: TestTier.isFull, "compiles the loader again: in make test-full"))
    func generatedLoaderRunsAgainstNginx() throws {
        let nginx = try #require(NginxServer.executable, "nginx is not installed (apt-get install -y nginx)")
        try withTemporaryDirectory { directory in
            chmod(directory, 0o755)
            let fixture = try LoaderFixture(in: directory)
            let first = try fixture.publish(0)
            try FileSystem.makeDirectories(directory + "/app")
            try FileSystem.writeFile(directory + "/app/RatecardLoader.swift", Array(LoaderSwiftGenerator.generate().utf8))
            let binary = try Self.compileHarness(loader: directory + "/app/RatecardLoader.swift", in: directory)
            let key = fixture.publicKey
            let server = try NginxServer.start(nginx: nginx, prefix: directory + "/nginx", root: fixture.root, repo: fixture.publish.repo)
            defer { server.stop() }
            let base = "http://127.0.0.1:\(server.port)"
            func run(_ mode: String) throws -> String {
                let (status, text) = try runTool(binary, [base, directory + "/phone", key, mode])
                #expect(status == 0, "\(text)")
                return text
            }
            let start = try run("ready")
            #expect(start.contains("loaded \(first) new=true") && start.contains("good \(first)"), "\(start)")
            let second = try fixture.publish(1)
            let object = try fixture.objectPath(try fixture.fileOfItsOwn(second, notIn: first, excluding: ["index.html"]), of: second)
            var changed = try FileSystem.readFile(object)
            changed[changed.count / 2] ^= 0x20
            try LoaderFixture.with(object, changedTo: changed) {
                let refused = try run("load")
                #expect(refused.contains("kept \(first) file: "), "\(refused)")
            }
            let loaded = try run("ready")
            #expect(loaded.contains("loaded \(second) new=true") && loaded.contains("good \(second)"), "\(loaded)")
        }
    }

    @Test(
        "the generated loader loads from a SeaweedFS bucket read as a static host, and refuses a changed object there",
        .enabled(if: TestTier.isFull, "compiles the loader again and starts SeaweedFS: in make test-full"))
    func generatedLoaderRunsAgainstABucket() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .seaweedfs, publicRead: true)
            defer { s3.stop() }
            #expect(try s3.run(["keys", "generate", "--out", directory + "/keys"]).status == 0)
            let key = String(decoding: try FileSystem.readFile(directory + "/keys/ratecard-signing.pub"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            try s3.configure(production: "    signing:\n      keys: [\"\(key)\"]\n      expires_after_days: 2")
            let privateKey = String(decoding: try FileSystem.readFile(directory + "/keys/ratecard-signing.key"), as: UTF8.self)
            var releases: [String] = []
            func publish(_ index: Int) throws {
                try s3.fixture.stampWeb()
                let result = try s3.run(s3.publish(s3.fixture.commits[index]), environment: ["RATECARD_SIGNING_KEY": privateKey])
                try #require(result.status == 0, "\(result.err)")
                releases.append(try #require(try s3.liveIsComplete("published")))
            }
            let bucket = s3.client()
            try FileSystem.makeDirectories(directory + "/app")
            try FileSystem.writeFile(directory + "/app/RatecardLoader.swift", Array(LoaderSwiftGenerator.generate().utf8))
            let binary = try Self.compileHarness(loader: directory + "/app/RatecardLoader.swift", in: directory)
            let base = "\(s3.server.endpoint)/rc-production/app"
            func run(_ mode: String) throws -> String {
                let (status, text) = try runTool(binary, [base, directory + "/phone", key, mode])
                #expect(status == 0, "\(text)")
                return text
            }
            try publish(0)
            let start = try run("ready")
            #expect(start.contains("loaded \(releases[0]) new=true") && start.contains("good \(releases[0])"), "\(start)")
            // The second release's own stamp file, changed in the bucket: refused, the first kept.
            try publish(1)
            let secondManifest = try #require(try bucket.get("releases/\(releases[1]).json"))
            let secondFiles = try ReleaseInfo.parse(secondManifest.bytes, source: releases[1]).files
            let stamp = try #require(secondFiles.first { $0.path == "app/stamp.js" })
            let object = "o/" + ObjectLayout.objectName(stamp)
            let original = try #require(try bucket.get(object)).bytes
            _ = try bucket.put(object, Array("steal();\n".utf8) + original, contentType: "text/javascript")
            let refused = try run("load")
            #expect(refused.contains("kept \(releases[0]) file: "), "\(refused)")
            _ = try bucket.put(object, original, contentType: "text/javascript")
            let loaded = try run("ready")
            #expect(loaded.contains("loaded \(releases[1]) new=true") && loaded.contains("good \(releases[1])"), "\(loaded)")
        }
    }
}
