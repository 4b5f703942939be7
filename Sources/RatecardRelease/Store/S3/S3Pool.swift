internal import CCrypto
import Glibc
import RatecardCore
import RatecardSupport
import Synchronization

/// What one command sent to object storage, over all its clients: requests, body bytes, and
/// writes of the pointer (a rollback is exactly one).
public final class S3Stats: Sendable {
    private let requestCount = Atomic<Int>(0)
    private let byteCount = Atomic<Int>(0)
    private let pointerWriteCount = Atomic<Int>(0)
    /// When the command must give up (the monotonic clock, in nanoseconds); nil: never.
    private let deadline: Int?
    private let deadlineSeconds: Int

    /// `deadlineSeconds`: how long the command may take against the store, from now.
    public init(deadlineSeconds: Int? = nil) {
        self.deadlineSeconds = deadlineSeconds ?? 0
        deadline = deadlineSeconds.map { Trace.now() + $0 * 1_000_000_000 }
    }

    /// The milliseconds a request may take: `limit`, or less when the deadline is nearer.
    /// Throws once the deadline has passed: nothing more is sent.
    func timeLeft(upTo limit: Int) throws -> Int {
        guard let deadline else { return limit }
        let left = (deadline - Trace.now()) / 1_000_000
        guard left > 0 else {
            throw OperationalError(
                "the store did not finish within this command's deadline (\(deadlineSeconds) s, deadline_seconds in ratecard.yaml); nothing more was sent. Check that the storage answers, then run the command again",
                ko: "이 명령의 제한 시간(\(deadlineSeconds)초, ratecard.yaml의 deadline_seconds) 안에 스토리지 작업이 끝나지 않아 더는 아무것도 보내지 않았습니다. 스토리지가 응답하는지 확인한 뒤 명령을 다시 실행하세요")
        }
        return min(limit, Int(left))
    }

    func count(_ request: HTTPTransport.Request) {
        requestCount.add(1, ordering: .relaxed)
        byteCount.add(request.body?.count ?? 0, ordering: .relaxed)
    }

    func countPointerWrite() { pointerWriteCount.add(1, ordering: .relaxed) }

    public var requests: Int { requestCount.load(ordering: .relaxed) }
    public var bytesSent: Int { byteCount.load(ordering: .relaxed) }
    public var pointerWrites: Int { pointerWriteCount.load(ordering: .relaxed) }

    /// For `--format json` summaries.
    public var json: JSON {
        .object(["requests": .int(requests), "bytes_sent": .int(bytesSent), "pointer_writes": .int(pointerWrites)])
    }
}

/// A bounded set of clients, one per worker thread: each has its own libcurl handle, so its
/// connection is kept alive across the requests that worker sends.
public final class S3Pool: Sendable {
    /// aws-cli and boto3 send 10 requests at once; rclone 4. Small objects are bound by requests,
    /// not bandwidth, and a CI runner has few cores to sign and hash on.
    public static let defaultWorkers = 8

    private let clients: [S3Client]

    init(location: S3Location, credentials: AWSCredentials, stats: S3Stats, workers: Int = defaultWorkers, timeoutMilliseconds: Int = 60_000) {
        clients = (0..<max(1, workers)).map { _ in
            S3Client(location: location, credentials: credentials, timeoutMilliseconds: timeoutMilliseconds, stats: stats)
        }
    }

    /// Runs `body` for every item on up to `workers` threads; the first error stops the others
    /// from starting new items and is thrown. Results keep the input order.
    func map<Item: Sendable, Result: Sendable>(_ items: [Item], _ body: @Sendable (S3Client, Item) throws -> Result) throws -> [Result] {
        guard !items.isEmpty else { return [] }
        if items.count == 1 { return [try body(clients[0], items[0])] }
        let next = Atomic<Int>(0)
        let failed = Atomic<Bool>(false)
        let slots = ResultSlots<Result>(count: items.count)
        defer { slots.free() }
        let errors = FirstError()
        let workers = min(clients.count, items.count)
        let clients = clients
        // Threads of their own: the work waits on the network, and Dispatch would run no more
        // of these at once than there are cores.
        withoutActuallyEscaping(body) { body in
            WorkerThreads.run(workers) { worker in
                let client = clients[worker]
                while !failed.load(ordering: .relaxed) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < items.count else { return }
                    do {
                        slots.set(index, try body(client, items[index]))
                    } catch {
                        errors.record(error)
                        failed.store(true, ordering: .relaxed)
                        return
                    }
                }
            }
        }
        if let error = errors.first { throw error }
        return slots.values()
    }

    func each<Item: Sendable>(_ items: [Item], _ body: @Sendable (S3Client, Item) throws -> Void) throws {
        _ = try map(items, body)
    }

    private final class FirstError: Sendable {
        private let stored = Mutex<(any Error)?>(nil)

        func record(_ error: any Error) { stored.withLock { if $0 == nil { $0 = error } } }
        var first: (any Error)? { stored.withLock { $0 } }
    }
}

/// Runs `body(0..<count)` on threads of its own (POSIX threads) and returns when all are done.
enum WorkerThreads {
    private final class Job: Sendable {
        let body: @Sendable (Int) -> Void
        let index: Int

        init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) {
            self.body = body
            self.index = index
        }
    }

    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        var threads: [pthread_t] = []
        for index in 0..<count {
            let job = Unmanaged.passRetained(Job(body, index)).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { raw in
                    let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                    job.body(job.index)
                    return nil
                }, job)
            if started == 0 {
                threads.append(thread)
            } else {
                // No thread to be had: this one does the work.
                Unmanaged<Job>.fromOpaque(job).takeRetainedValue().body(index)
            }
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// HTTP dates (`Tue, 01 Dec 2026 12:38:03 GMT`, RFC 9110's IMF-fixdate) as seconds since the epoch.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func seconds(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let month = months.firstIndex(of: String(parts[2])),
            let day = Int(parts[1]), let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        guard clock.count == 3, let date = Day("\(year)-\(two(month + 1))-\(two(day))") else { return nil }
        return date.ordinal * 86400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }
}

/// MD5 through libcrypto: the ETag S3 gives an object written by one PUT, so a listing can
/// vouch for an object's bytes without downloading them.
enum MD5 {
    static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(raw.baseAddress, raw.count, out.baseAddress, &length, EVP_md5(), nil)
            }
        }
        precondition(ok == 1 && length == 16, "EVP_Digest(md5) failed")
        return SHA256.hex(digest: digest)
    }
}
