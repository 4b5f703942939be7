// What the loader is given rather than what it does itself: the network, SHA-256, where it keeps
// the highest sequence it accepted. The app passes URLSession, CryptoKit and the Keychain (the
// WebKit adapter below has them); `ratecard fetch` passes libcurl, libcrypto and a file.

import Foundation

/// One HTTP GET. A redirect is not followed: it comes back as its 3xx status with its Location,
/// and the loader follows it only when it stays on the host it was given.
public protocol LoaderTransport: Sendable {
    /// The response of whatever status; throws only when there is none (no connection, a timeout).
    func get(_ url: URL) throws -> LoaderResponse
}

public struct LoaderResponse: Sendable {
    public var status: Int
    /// The Location header of a redirect.
    public var location: String?
    public var body: [UInt8]

    public init(status: Int, location: String?, body: [UInt8]) {
        self.status = status
        self.location = location
        self.body = body
    }
}

/// SHA-256 (CryptoKit's in the app, libcrypto's in the CLI).
public protocol ContentDigest: Sendable {
    /// The 32-byte digest of `bytes`.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
}

extension ContentDigest {
    /// The digest as 64 lower-case hex digits, as the statement and the file list write it.
    public func sha256Hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in sha256(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Where the highest sequence the app accepted is kept, per environment. It is kept apart from
/// the release cache (the Keychain on iOS), so that clearing the cache, or a restored backup of
/// it, never lets an older statement back in.
public protocol AcceptedSequenceStore: Sendable {
    /// The highest sequence accepted for `environment`, nil before the first.
    func highestSequence(environment: String) throws -> Int?
    func record(sequence: Int, environment: String) throws
}

/// The sequences in one JSON file (`{"production": 12}`), replaced atomically: the CLI's store.
public struct FileSequenceStore: AcceptedSequenceStore {
    public let path: String

    public init(path: String) { self.path = path }

    /// Every environment with its highest sequence.
    public func all() throws -> [String: Int] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        return try JSONDecoder().decode([String: Int].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public func highestSequence(environment: String) throws -> Int? { try all()[environment] }

    public func record(sequence: Int, environment: String) throws {
        var table = try all()
        table[environment] = max(sequence, table[environment] ?? sequence)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try encoder.encode(table).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
