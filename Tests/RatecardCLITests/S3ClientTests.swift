import Foundation
import Glibc
import RatecardKit
import Synchronization
import Testing

/// A real S3-compatible server on loopback: moto's standalone server (PyPI `moto[server]`,
/// 5.1.5 or later for `If-Match`), with signature checks on. Started by the test, stopped after.
final class MotoServer {
    /// moto's application under werkzeug without threads: one request at a time.
    static let serialServer = """
        import os, sys
        os.environ.setdefault("MOTO_PORT", sys.argv[1])
        from werkzeug.serving import run_simple
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
        run_simple("127.0.0.1", int(sys.argv[1]), DomainDispatcherApplication(create_backend_app), threaded=False)
        """
    let process = Process()
    let port: Int
    /// A user the server knows, allowed everything on S3.
    let credentials: AWSCredentials

    /// `signatures: false` serves every request unsigned checks: moto canonicalises a query
    /// with its escapes decoded (`prefix=app/`), where SigV4 and S3 want them kept
    /// (`prefix=app%2F`), so a listing below a prefix cannot be checked against it.
    ///
    /// `oneRequestAtATime` serves requests one after another. moto's threaded server checks an
    /// If-Match or If-None-Match and then writes, in two steps, so two racers can both pass the
    /// check when the machine is busy; S3 decides a conditional write atomically. Tests of races
    /// (one winner among racers) need that promise from the server, so they ask for this.
    init(signatures: Bool = true, oneRequestAtATime: Bool = false) throws {
        var lastError = ""
        for _ in 0..<5 {
            // Below the kernel's ephemeral range (32768-60999), where outgoing connections may
            // hold any port, and apart from the nginx (20000-32000) and fault proxy ports.
            let port = Int.random(in: 14_000..<20_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                oneRequestAtATime
                ? ["python3", "-c", Self.serialServer, String(port)]
                : ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)]
            var environment = ProcessInfo.processInfo.environment
            // The first requests (the user and its key, below) need no signature; every later one does.
            if signatures { environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3" }
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Up when it accepts connections; a server that died (port taken) is not waited for.
            var up = false
            for _ in 0..<200 where process.isRunning {
                if Self.accepts(port) {
                    up = true
                    break
                }
                usleep(50_000)
            }
            guard up else {
                lastError = "moto did not listen on \(port)"
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                continue
            }
            let script = """
                import boto3, botocore.config, json, sys
                config = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=5, read_timeout=10)
                iam = boto3.client("iam", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup", config=config)
                iam.create_user(UserName="publisher")
                iam.put_user_policy(UserName="publisher", PolicyName="s3", PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
                key = iam.create_access_key(UserName="publisher")["AccessKey"]
                print(key["AccessKeyId"], key["SecretAccessKey"])
                """
            let setup = Process()
            setup.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            setup.arguments = ["python3", "-c", script, "http://127.0.0.1:\(port)"]
            let pipe = Pipe()
            setup.standardOutput = pipe
            setup.standardError = pipe
            try setup.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            setup.waitUntilExit()
            let words = output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if setup.terminationStatus == 0, words.count == 2 {
                self.port = port
                credentials = AWSCredentials(accessKey: words[0], secretKey: words[1])
                processHandle = process
                return
            }
            lastError = output
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        throw OperationalError("moto did not start (python3 -m pip install 'moto[server]>=5.1.5'): \(lastError)")
    }

    private var processHandle: Process?

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
    }

    /// SIGKILL: Foundation's children block SIGTERM (docs/NOTES.md).
    func stop() {
        guard let process = processHandle, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A loopback proxy in front of the server that fails on purpose: the first `failures`
/// requests get a 500 (`mode == "500"`), or are forwarded and then have their connection
/// dropped before the answer (`mode == "drop-after"`); every `failures`-th request does so
/// (`"500-every"`, `"drop-every"`), but never the same request twice in a row (a transient
/// fault: otherwise parallel workers can line a retried request up with every failure); or every request is refused as S3 refuses a request signed
/// by a clock too far off (`"skew"`: 403 RequestTimeTooSkewed); or every request is forwarded
/// `failures` milliseconds late (`"delay"`); or, from the first request whose path (decoded)
/// contains `hold.trigger`, every request is held until the file `go` appears in `hold.folder`
/// (`"hold"`: a paused or partitioned client), the file `held` there saying that it began.
/// Python's standard library, no packages.
final class FaultyProxy {
    let process = Process()
    let port: Int

    init(upstream: Int, mode: String, failures: Int, hold: (trigger: String, folder: String)? = nil) throws {
        // A port nothing listens on (another test's server may hold one of this range): else the
        // proxy cannot bind it, and what answers there is that server.
        var free = Int.random(in: 10_000..<14_000)
        while MotoServer.accepts(free) { free = Int.random(in: 10_000..<14_000) }
        port = free
        let script = """
            import http.server, socketserver, sys, urllib.request, threading
            import os, time, urllib.parse
            upstream, port, mode, failures = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
            trigger, folder = (sys.argv[5], sys.argv[6]) if len(sys.argv) > 6 else ("", "")
            lock = threading.Lock()
            state = {"left": failures, "count": 0, "failed": set(), "holding": False}
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def log_message(self, *args): pass
                def handle_any(self):
                    length = int(self.headers.get("Content-Length") or 0)
                    body = self.rfile.read(length) if length else None
                    if mode == "hold":
                        with lock:
                            if not state["holding"] and trigger in urllib.parse.unquote(self.path):
                                state["holding"] = True
                                open(os.path.join(folder, "held"), "w").close()
                        while state["holding"] and not os.path.exists(os.path.join(folder, "go")):
                            time.sleep(0.02)
                    with lock:
                        state["count"] += 1
                        if mode in ("500-every", "drop-every"):
                            request_id = (self.command, self.path)
                            fail = state["count"] % failures == 0 and request_id not in state["failed"]
                            if fail:
                                state["failed"].add(request_id)
                            else:
                                state["failed"].discard(request_id)
                        elif mode == "skew":
                            fail = True
                        elif mode in ("delay", "hold"):
                            fail = False
                        else:
                            fail = state["left"] > 0
                            if fail:
                                state["left"] -= 1
                    if fail and mode == "skew":
                        payload = b"<Error><Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the current time is too large.</Message><MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds></Error>"
                        self.send_response(403)
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload)
                        return
                    if fail and mode in ("500", "500-every"):
                        payload = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
                        self.send_response(500)
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload)
                        return
                    if mode == "delay":
                        time.sleep(failures / 1000.0)
                    request = urllib.request.Request(upstream + self.path, data=body, method=self.command)
                    for name, value in self.headers.items():
                        if name.lower() not in ("content-length", "connection"):
                            request.add_header(name, value)
                    try:
                        response = urllib.request.urlopen(request)
                        status, headers, payload = response.status, response.getheaders(), response.read()
                    except urllib.error.HTTPError as error:
                        status, headers, payload = error.code, error.headers.items(), error.read()
                    if fail and mode in ("drop-after", "drop-every"):
                        self.close_connection = True
                        self.connection.close()
                        return
                    self.send_response(status)
                    for name, value in headers:
                        if name.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                do_GET = do_PUT = do_DELETE = do_HEAD = do_POST = handle_any
            socketserver.ThreadingTCPServer.allow_reuse_address = True
            with socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler) as server:
                server.serve_forever()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, "http://127.0.0.1:\(upstream)", String(port), mode, String(failures)] + (hold.map { [$0.trigger, $0.folder] } ?? [])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when it accepts a connection.
        for _ in 0..<200 where process.isRunning {
            // Accepting, and still running (a proxy that could not bind its port has exited).
            if MotoServer.accepts(port) {
                usleep(100_000)
                if process.isRunning { return }
            }
            usleep(50_000)
        }
        throw OperationalError("the fault proxy did not start")
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

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
        guard case .object(let name) = object.key else { return }
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
        guard case .object(let otherName) = other.key else { return }
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
