// The signed statement of what apps load (`live.json`) and the public file list of a release.
//
// This file is part of the loader that `ratecard bridge generate` writes into the app: it uses
// Foundation only, and the same source is compiled into the CLI, which writes these documents
// (publish, promote, rollback, sign) and reads them (`fetch`, `status`, `verify`).
//
// live.json is an envelope around the statement's exact bytes, so that a signature covers what
// was signed and no canonical form of JSON is needed:
//
//     {"format": 1,
//      "payload": "<base64 of the statement's JSON>",
//      "signatures": [{"key": "ed25519:<base64 of the 32-byte public key>", "sig": "<base64>"}]}
//
// A signature is Ed25519 over `LiveStatement.signingContext` followed by the payload's bytes.
// An unsigned environment writes the same envelope with no signatures.

import Foundation

/// What an environment's apps should load, as of one moment: decoded from live.json's payload.
public struct LiveStatement: Codable, Equatable, Sendable {
    /// The release one bridge line loads: its id and the sha256 of its public file list, which is
    /// the object `o/<files>.json` beside live.json.
    public struct Line: Codable, Equatable, Sendable {
        public var release: String
        public var files: String
        /// The release being rolled out to a share of this line's apps, if any. Optional: a
        /// loader that does not know rollouts ignores it and loads `release`, which is safe.
        public var rollout: Rollout?

        enum CodingKeys: String, CodingKey {
            case release, files, rollout
        }

        public init(release: String, files: String, rollout: Rollout? = nil) {
            self.release = release
            self.files = files
            self.rollout = rollout
        }

        /// A rollout that does not read (a share that is not a whole number, a field missing or
        /// of another type) is ignored, as a loader from before rollouts ignores the field: the
        /// line's own release loads, never the rollout's (fail closed).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            release = try container.decode(String.self, forKey: .release)
            files = try container.decode(String.self, forKey: .files)
            rollout = (try? container.decodeIfPresent(Rollout.self, forKey: .rollout)) ?? nil
        }

        /// Whether the line names a release to load: an id and the sha256 of a file list.
        public var namesRelease: Bool { !release.isEmpty && ReleaseLoader.isSHA256(files) }
    }

    /// A release that a share of installs loads instead of the line's own (a staged rollout).
    ///
    /// An install is in it when `bucket(installID:rolloutID:)` is below `share`: the first 8
    /// bytes of sha256(`<install id>\n<rollout id>`) as a big-endian integer, modulo 10,000. The
    /// same install keeps its answer for one rollout; widening it keeps every install that had it
    /// (the threshold only grows); another rollout (another id) picks other installs.
    public struct Rollout: Codable, Equatable, Sendable {
        /// The buckets a share counts: a share is in basis points (1 = 0.01%).
        public static let buckets = 10_000

        /// Names this rollout (the release and the statement sequence that started it).
        public var id: String
        public var release: String
        /// The sha256 of the release's public file list (as `Line.files`).
        public var files: String
        /// The share of installs that load it, in basis points (1...9999).
        public var share: Int

        enum CodingKeys: String, CodingKey {
            case id, release, files
            case share = "share_bp"
        }

        public init(id: String, release: String, files: String, share: Int) {
            self.id = id
            self.release = release
            self.files = files
            self.share = share
        }

        /// Whether the install named `installID` loads this rollout's release: never when the
        /// rollout has no id or its share is outside 1...9999 (a share of everyone is a
        /// completion, which moves the line's own release instead).
        public func includes(installID: String, digest: any ContentDigest) -> Bool {
            !id.isEmpty && (1..<Self.buckets).contains(share) && Self.bucket(installID: installID, rolloutID: id, digest: digest) < share
        }

        /// The install's bucket for a rollout, 0..<10,000.
        public static func bucket(installID: String, rolloutID: String, digest: any ContentDigest) -> Int {
            let hash = digest.sha256(Array((installID + "\n" + rolloutID).utf8))
            var value: UInt64 = 0
            for byte in hash.prefix(8) { value = value << 8 | UInt64(byte) }
            return Int(value % UInt64(buckets))
        }
    }

    /// The statement format this code writes and reads; a higher one is refused (fail closed).
    public static let currentFormat = 1
    /// The bytes before the payload in what a signature covers (domain separation: a signature
    /// made for something else can never verify as a statement).
    public static let signingContext = Array("ratecard-live-v1\n".utf8)

    public var format: Int
    /// The environment's name in ratecard.yaml; an app refuses a statement for another one.
    public var environment: String
    /// Grows by at least one with every statement of the environment, a rollback's included; an
    /// app refuses one lower than the highest it accepted (a replayed old statement).
    public var sequence: Int
    /// RFC 3339 UTC, seconds (`2026-12-04T18:00:00Z`).
    public var signedAt: String
    /// RFC 3339 UTC; an app refuses the statement after it (a frozen server). Nil only when the
    /// environment is not signed.
    public var expiresAt: String?
    /// The live release (what `current` names).
    public var live: Line
    /// Bridge version (as a decimal string) to the release an app of that version or above, up
    /// to the next line, loads: an app of bridge version B takes the greatest line at or below B.
    public var lines: [String: Line]

    enum CodingKeys: String, CodingKey {
        case format, environment, sequence, live, lines
        case signedAt = "signed_at"
        case expiresAt = "expires_at"
    }

    public init(environment: String, sequence: Int, signedAt: String, expiresAt: String?, live: Line, lines: [String: Line]) {
        self.format = Self.currentFormat
        self.environment = environment
        self.sequence = sequence
        self.signedAt = signedAt
        self.expiresAt = expiresAt
        self.live = live
        self.lines = lines
    }

    /// The line an app of bridge version `bridge` loads: the greatest at or below it, or nil when
    /// every line needs more.
    public func line(forBridge bridge: Int) -> Line? {
        var best: (Int, Line)?
        for (key, line) in lines {
            guard let version = Int(key), version <= bridge else { continue }
            if best == nil || version > best!.0 { best = (version, line) }
        }
        return best?.1
    }

    /// What the install named `installID` loads of `line`: the rollout's release when the
    /// install is in its share, else the line's own release (without a rollout). A rollout that
    /// is not well formed (no id, a share outside 1...9999, no release or file list hash), or on
    /// a line that names no release of its own, is not followed: the line's own release is
    /// what the loader checks (and, when that fails, the last good one is kept).
    public static func pick(_ line: Line, installID: String, digest: any ContentDigest) -> Line {
        let own = Line(release: line.release, files: line.files)
        guard let rollout = line.rollout, own.namesRelease, rollout.release != line.release,
            Line(release: rollout.release, files: rollout.files).namesRelease, rollout.includes(installID: installID, digest: digest)
        else { return own }
        return Line(release: rollout.release, files: rollout.files)
    }
}

/// live.json as served: the statement's bytes and the signatures over them.
public struct SignedLiveStatement: Codable, Equatable, Sendable {
    public struct Signature: Codable, Equatable, Sendable {
        /// The signer's public key as ratecard.yaml lists it (`ed25519:<base64>`).
        public var key: String
        /// The Ed25519 signature, base64.
        public var sig: String

        public init(key: String, sig: String) {
            self.key = key
            self.sig = sig
        }
    }

    public var format: Int
    /// The statement's JSON, base64.
    public var payload: String
    public var signatures: [Signature]

    public init(payload: [UInt8], signatures: [Signature]) {
        self.format = LiveStatement.currentFormat
        self.payload = Data(payload).base64EncodedString()
        self.signatures = signatures
    }

    /// The bytes a signature covers: the context, then the payload's bytes; nil when the payload
    /// is not base64.
    public var signedBytes: [UInt8]? {
        guard let bytes = payloadBytes else { return nil }
        return LiveStatement.signingContext + bytes
    }

    public var payloadBytes: [UInt8]? { Data(base64Encoded: payload).map { Array($0) } }

    /// What a signature covers for `payload` (for the signer).
    public static func signedBytes(payload: [UInt8]) -> [UInt8] { LiveStatement.signingContext + payload }
}

/// A release's public file list, stored as an object (`o/<sha256>.json`) and named by its hash
/// in the statement: every file the release serves, by path, with the object that holds it. It
/// is version.json without who published and why (that stays unserved).
public struct ReleaseFileList: Codable, Equatable, Sendable {
    public struct File: Codable, Equatable, Sendable {
        /// The path in the release (`index.html`, `data/entry.json`, `terms/loan/2026-11-01.html`).
        public var path: String
        public var sha256: String
        public var size: Int
        /// The object's name below `o/`: the sha256, then the path's extension (`<sha256>.html`).
        public var object: String

        public init(path: String, sha256: String, size: Int, object: String) {
            self.path = path
            self.sha256 = sha256
            self.size = size
            self.object = object
        }
    }

    public static let currentFormat = 1

    public var format: Int
    public var environment: String
    public var release: String
    /// Sorted by path, each path once.
    public var files: [File]

    public init(environment: String, release: String, files: [File]) {
        self.format = Self.currentFormat
        self.environment = environment
        self.release = release
        self.files = files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}

/// A public key an app trusts, as ratecard.yaml and `keys generate` write it: `ed25519:<base64>`.
public struct TrustedKey: Equatable, Hashable, Sendable {
    public static let prefix = "ed25519:"
    /// The raw 32-byte Ed25519 public key.
    public let raw: [UInt8]
    /// The key as written (`ed25519:<base64>`), the form a signature entry names.
    public var text: String { Self.prefix + Data(raw).base64EncodedString() }

    /// Nil unless `text` is `ed25519:` followed by the base64 of exactly 32 bytes.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(trimmed.dropFirst(Self.prefix.count))), data.count == 32 else {
            return nil
        }
        raw = Array(data)
    }

    public init?(raw: [UInt8]) {
        guard raw.count == 32 else { return nil }
        self.raw = raw
    }
}

/// Checks an Ed25519 signature: CryptoKit's `Curve25519.Signing.PublicKey` in the app,
/// libcrypto in the CLI. Injected, so the loader itself needs neither.
public protocol SignatureVerifier: Sendable {
    func isValidSignature(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool
}
