import Foundation
import Glibc
import RatecardKit
import Synchronization
import Testing

@Suite(.serialized, .timeLimit(.minutes(3))) struct S3ClientTests {
    @Test func conditionalWritesAreCreateOnceAndCompareAndSwap() throws {
        let server = try MotoServer()
        defer { server.stop() }
        let s3 = server.client(bucket: "releases", prefix: "app/")
        try s3.createBucket()
        let first = Array("release 1\n".utf8)
        guard case .written(let etag1) = try s3.put("current", first, contentType: "application/json", condition: .absent) else {
            Issue.record("a create on a free key failed")
            return
        }
        #expect(try s3.put("current", Array("other\n".utf8), contentType: "application/json", condition: .absent) == .preconditionFailed)
        let read = try #require(try s3.get("current"))
        #expect(read.bytes == first)
        #expect(read.etag == etag1)
        // Compare-and-swap: the ETag read wins once; the stale one loses and changes nothing.
        let second = Array("release 2\n".utf8)
        guard case .written(let etag2) = try s3.put("current", second, contentType: "application/json", condition: .matches(etag1)) else {
            Issue.record("a compare-and-swap with the current ETag failed")
            return
        }
        #expect(etag2 != etag1)
        #expect(try s3.put("current", Array("late\n".utf8), contentType: "application/json", condition: .matches(etag1)) == .preconditionFailed)
        #expect(try s3.get("current")?.bytes == second)
        // If-Match on a missing key is a failed condition too (moto says 404, other servers 412).
        #expect(try s3.put("missing", first, contentType: "application/json", condition: .matches(etag1)) == .preconditionFailed)
        try s3.delete("current")
        #expect(try s3.get("current") == nil)
        try s3.delete("current")
    }

    @Test func listingPagesThroughEveryKeyBelowThePrefix() throws {
        let server = try MotoServer(signatures: false)
        defer { server.stop() }
        let s3 = server.client(bucket: "releases", prefix: "app/")
        try s3.createBucket()
        let keys = (0..<7).map { "objects/\($0)/\(String(repeating: "ab", count: $0 + 1)).json" }
        for key in keys { _ = try s3.put(key, Array(key.utf8), contentType: "application/json") }
        _ = try server.client(bucket: "releases", prefix: "other/").put("objects/x.json", [1], contentType: "application/json")
        #expect(try s3.list(prefix: "objects/", pageSize: 2).sorted() == keys.sorted())
        #expect(try s3.list(prefix: "objects/3/") == [keys[3]])
        #expect(s3.requests >= 4 + 7 + 1, "listing seven keys two at a time takes four pages")
    }

    @Test func badCredentialsAMissingBucketAndAnUnreachableServerSayWhatToFix() throws {
        let server = try MotoServer()
        defer { server.stop() }
        try server.client(bucket: "releases").createBucket()
        let wrong = server.client(bucket: "releases", credentials: AWSCredentials(accessKey: server.credentials.accessKey, secretKey: "not-the-secret"))
        #expect {
            _ = try wrong.get("current")
        } throws: { error in
            // The storage's sentence ends before ours begins: one period, not two.
            "\(error)".contains("object storage refused the credentials (SignatureDoesNotMatch, HTTP 403)") && !"\(error)".contains("not-the-secret")
                && !"\(error)".contains("..") && "\(error)".contains(". Check AWS_ACCESS_KEY_ID")
        }
        let missing = server.client(bucket: "no-such-bucket")
        #expect {
            _ = try missing.put("current", [1], contentType: "application/json")
        } throws: { error in
            "\(error)".hasPrefix("the bucket does not exist (NoSuchBucket)")
        }
        let nowhere = server.client(bucket: "releases", retries: 1, endpoint: "http://127.0.0.1:9")
        #expect(throws: (any Error).self) { _ = try nowhere.get("current") }
    }

    @Test func serverErrorsAreRetriedAndADroppedCompareAndSwapIsReadBackNotResent() throws {
        let server = try MotoServer()
        defer { server.stop() }
        try server.client(bucket: "releases").createBucket()
        // Three 500s, then the real server: a read and a plain write go through on retry.
        let flaky = try FaultyProxy(upstream: server.port, mode: "500", failures: 3)
        defer { flaky.stop() }
        let s3 = server.client(bucket: "releases", endpoint: flaky.endpoint)
        guard case .written(let etag) = try s3.put("current", Array("one\n".utf8), contentType: "application/json", condition: .absent) else {
            Issue.record("the write did not go through after the 500s")
            return
        }
        #expect(s3.requests == 4)
        // The compare-and-swap is applied upstream, then its answer is lost: the client reads
        // the key back and reports the write it made, instead of sending it again.
        let dropping = try FaultyProxy(upstream: server.port, mode: "drop-after", failures: 1)
        defer { dropping.stop() }
        let cas = server.client(bucket: "releases", endpoint: dropping.endpoint)
        let next = Array("two\n".utf8)
        let outcome = try cas.put("current", next, contentType: "application/json", condition: .matches(etag))
        guard case .written = outcome else {
            Issue.record("a landed compare-and-swap was reported as \(outcome)")
            return
        }
        #expect(try server.client(bucket: "releases").get("current")?.bytes == next)
        // Sent again with the ETag it replaced (libcurl does so by itself when a reused
        // connection dies before any answer), it fails its own condition at the server (412);
        // the client reads the key back and reports the write that landed, not a conflict.
        let again = server.client(bucket: "releases")
        let landed = try #require(try again.get("current")).etag
        let before = again.requests
        #expect(try again.put("current", next, contentType: "application/json", condition: .matches(etag)) == .written(etag: landed))
        #expect(again.requests == before + 2, "the PUT, refused, and the read back")
        // Other bytes over the replaced ETag: a conflict, nothing written.
        #expect(try again.put("current", Array("three\n".utf8), contentType: "application/json", condition: .matches(etag)) == .preconditionFailed)
        #expect(try again.get("current")?.bytes == next)
    }

    @Test func credentialsComeFromTheEnvironmentOrTheSharedFileOnly() throws {
        let fromEnvironment = try AWSCredentials.load(environment: ["AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s1", "AWS_SESSION_TOKEN": "t1"])
        #expect(fromEnvironment == AWSCredentials(accessKey: "AKIA1", secretKey: "s1", sessionToken: "t1"))
        #expect(!"\(fromEnvironment)".contains("s1"))
        let file = temporaryRoot + "/ratecard-credentials-\(getpid())"
        defer { unlink(file) }
        try FileSystem.writeFile(file, Array("[default]\naws_access_key_id = AKIA2\naws_secret_access_key = s2\n\n[publisher]\naws_access_key_id=AKIA3\naws_secret_access_key=s3\n".utf8))
        #expect(try AWSCredentials.load(environment: ["AWS_SHARED_CREDENTIALS_FILE": file]) == AWSCredentials(accessKey: "AKIA2", secretKey: "s2"))
        #expect(try AWSCredentials.load(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "publisher"]) == AWSCredentials(accessKey: "AKIA3", secretKey: "s3"))
        #expect(throws: OperationalError.self) { try AWSCredentials.load(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "nobody"]) }
        #expect(throws: OperationalError.self) { try AWSCredentials.load(environment: ["AWS_ACCESS_KEY_ID": "AKIA1"]) }
        #expect(throws: OperationalError.self) { try AWSCredentials.load(environment: ["HOME": "/nonexistent"]) }
    }
}

/// SigV4 against the worked examples of the S3 documentation ("Signature calculations for
/// the Authorization header: transferring payload in a single chunk").
@Suite struct SigV4Tests {
    let signer = SigV4(credentials: AWSCredentials(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), region: "us-east-1")
    let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// 2013-05-24T00:00:00Z.
    let time = 1_369_353_600

    func authorization(_ headers: [(String, String)]) -> String? {
        headers.first { $0.0 == "authorization" }?.1
    }

    @Test func getObjectExample() {
        let signed = signer.sign(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", query: [], headers: [("Range", "bytes=0-9")], payloadHash: emptyHash, time: time)
        #expect(
            authorization(signed.headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test func listObjectsExample() {
        let signed = signer.sign(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/", query: [("max-keys", "2"), ("prefix", "J")], headers: [], payloadHash: emptyHash, time: time)
        #expect(signed.query == "max-keys=2&prefix=J")
        #expect(
            authorization(signed.headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        )
    }

    @Test func queryValuesAreEscapedAsTheSpecificationSays() {
        let signed = signer.sign(method: "GET", host: "h", path: "/b", query: [("prefix", "app/x y"), ("list-type", "2")], headers: [], payloadHash: emptyHash, time: time)
        #expect(signed.query == "list-type=2&prefix=app%2Fx%20y")
    }
}

/// The release store on S3-compatible storage keeps the promises the local store keeps
/// (`ObjectStoreTests`): objects created once and checked, never overwritten; manifests after
/// their objects; the pointer flipped only by compare-and-swap, one winner among racers.
@Suite(.serialized, .timeLimit(.minutes(3))) struct S3StoreTests {
    func item(_ text: String, name: String = "x.json") -> StoreItem {
        let bytes = Array(text.utf8)
        return StoreItem(key: .object(ObjectLayout.objectName(sha256: SHA256.hex(bytes), path: name)), sha256: SHA256.hex(bytes), size: bytes.count, bytes: bytes)
    }

    /// The object name an object key holds; nil for any other key.
    func objectName(_ key: StoreKey) -> String? {
        if case .object(let name) = key { return name }
        return nil
    }

    @Test func objectsAreCreatedOnceCheckedAndNeverOverwritten() throws {
        // Listing below a prefix: without moto's signature checks (see MotoServer).
        let server = try MotoServer(signatures: false)
        defer { server.stop() }
        let client = server.client(bucket: "releases", prefix: "app/")
        try client.createBucket()
        let store = S3Root(location: client.location, credentials: server.credentials)
        let object = item("{\"hello\": 1}\n")
        #expect(try store.put([object]) == object.size)
        #expect(try store.read(object.key) == object.bytes)
        #expect(try store.put([object]) == 0, "a present object is not written again")
        // One changed behind the store's back is refused, never overwritten.
        let name = try #require(objectName(object.key))
        _ = try client.put("o/" + name, Array("{\"hello\": 2}\n".utf8), contentType: "application/json")
        #expect(throws: OperationalError.self) { try store.put([object]) }
        #expect(try store.read(object.key) == Array("{\"hello\": 2}\n".utf8))
        // Absent and not given, or given bytes that do not hash to the name: an error, nothing lands.
        let missing = StoreItem(key: .object(String(repeating: "a", count: 64) + ".json"), sha256: String(repeating: "a", count: 64), size: 1, bytes: nil)
        #expect(throws: OperationalError.self) { try store.put([missing]) }
        let lying = StoreItem(key: .object(String(repeating: "b", count: 64) + ".json"), sha256: String(repeating: "b", count: 64), size: 2, bytes: [1, 2])
        #expect(throws: OperationalError.self) { try store.put([lying]) }
        #expect(try store.read(lying.key) == nil)
        // A manifest goes after its objects; its entry files are copied under r/<id>/ (a data
        // document is an object only); listing names both kinds.
        let other = item("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n", name: "logo.svg")
        let manifest = Array(
            """
            {"id": "000001-aa", "bundle_id": "aa", "format": 2, "files": [
              {"path": "data/b/x.json", "sha256": "\(object.sha256)", "size": \(object.size)},
              {"path": "logo.svg", "sha256": "\(other.sha256)", "size": \(other.size)}]}

            """.utf8)
        #expect(try store.put([StoreItem(key: .release("000001-aa"), sha256: SHA256.hex(manifest), size: manifest.count, bytes: manifest), other]) > 0)
        #expect(try store.releaseIDs() == ["000001-aa"])
        let otherName = try #require(objectName(other.key))
        #expect(Set(try store.list(.objects).map(\.name)) == [name, otherName])
        #expect(try client.get("r/000001-aa/logo.svg")?.bytes == other.bytes)
        #expect(try client.get("r/000001-aa/data/b/x.json") == nil)
        // Deleting a release removes its entry files and keeps its objects; the pointer is never deleted.
        try store.delete([.release("000001-aa")])
        #expect(try store.releaseIDs() == [])
        #expect(try client.list(prefix: "r/") == [])
        #expect(try store.read(other.key) == other.bytes)
        #expect(throws: OperationalError.self) { try store.delete([.pointer]) }
    }

    @Test func thePointerFlipsOnlyByCompareAndSwapWithOneWinnerAmongRacers() throws {
        let server = try MotoServer(oneRequestAtATime: true)
        defer { server.stop() }
        let setup = server.client(bucket: "releases")
        try setup.createBucket()
        let store = S3Root(location: setup.location, credentials: server.credentials)
        #expect(try store.read(.pointer) == nil)
        #expect(throws: ConflictError.self) { try store.flip(expected: "000001", to: "000002") }
        try store.flip(expected: nil, to: "000001")
        #expect(try store.read(.pointer) == Array("000001".utf8))
        #expect(throws: ConflictError.self) { try store.flip(expected: nil, to: "000002") }
        try store.flip(expected: "000001", to: "000002")
        #expect(try store.read(.pointer) == Array("000002".utf8))
        // Eight publishers race from the same live release: exactly one flips.
        let (endpoint, credentials) = (server.endpoint, server.credentials)
        let outcomes = ParallelRace.run(8) { racer -> Bool in
            let client = S3Client(location: S3Location(endpoint: endpoint, bucket: "releases"), credentials: credentials, timeoutMilliseconds: 5_000)
            let store = S3Root(location: client.location, credentials: credentials)
            return (try? store.flip(expected: "000002", to: "00001\(racer)")) != nil
        }
        #expect(outcomes.filter { $0 }.count == 1, "\(outcomes)")
        let winner = try #require(try store.read(.pointer).map { String(decoding: $0, as: UTF8.self) })
        #expect(winner.hasPrefix("00001"))
    }
}

/// Runs `count` racers on their own threads, all released at once.
enum ParallelRace {
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Bool) -> [Bool] {
        let results = ResultBox(count)
        let threads = (0..<count).map { index in Thread { results.set(index, body(index)) } }
        for thread in threads { thread.start() }
        while !results.done { usleep(10_000) }
        return results.values
    }

    final class ResultBox: Sendable {
        private let stored: Mutex<[Bool?]>
        init(_ count: Int) { stored = Mutex(Array(repeating: nil, count: count)) }
        func set(_ index: Int, _ value: Bool) { stored.withLock { $0[index] = value } }
        var done: Bool { stored.withLock { !$0.contains(nil) } }
        var values: [Bool] { stored.withLock { $0.map { $0 ?? false } } }
    }
}
