import Foundation
import Glibc
import RatecardKit

/// A real S3-compatible server on loopback: moto's standalone server (PyPI `moto[server]`,
/// 5.1.5 or later for `If-Match`), with signature checks on. Started by the test, stopped after.
public final class MotoServer {
    /// moto's application under werkzeug without threads: one request at a time.
    public static let serialServer = """
        import os, sys
        os.environ.setdefault("MOTO_PORT", sys.argv[1])
        from werkzeug.serving import run_simple
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
        run_simple("127.0.0.1", int(sys.argv[1]), DomainDispatcherApplication(create_backend_app), threaded=False)
        """
    public let process = Process()
    public let port: Int
    /// A user the server knows, allowed everything on S3.
    public let credentials: AWSCredentials

    /// `signatures: false` serves every request unsigned checks: moto canonicalises a query
    /// with its escapes decoded (`prefix=app/`), where SigV4 and S3 want them kept
    /// (`prefix=app%2F`), so a listing below a prefix cannot be checked against it.
    ///
    /// `oneRequestAtATime` serves requests one after another. moto's threaded server checks an
    /// If-Match or If-None-Match and then writes, in two steps, so two racers can both pass the
    /// check when the machine is busy; S3 decides a conditional write atomically. Tests of races
    /// (one winner among racers) need that promise from the server, so they ask for this.
    public init(signatures: Bool = true, oneRequestAtATime: Bool = false) throws {
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
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
    }

    /// SIGKILL: Foundation's children block SIGTERM (docs/NOTES.md).
    public func stop() {
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
/// contains `hold.trigger` (ends with it, less its last character, when that is `$`), every request is held until the file `go` appears in `hold.folder`
/// (`"hold"`: a paused or partitioned client), the file `held` there saying that it began.
/// Python's standard library, no packages.
public final class FaultyProxy {
    public let process = Process()
    public let port: Int

    public init(upstream: Int, mode: String, failures: Int, hold: (trigger: String, folder: String)? = nil) throws {
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
                            path = urllib.parse.unquote(self.path)
                            hit = path.endswith(trigger[:-1]) if trigger.endswith("$") else trigger in path
                            if not state["holding"] and hit:
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

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
