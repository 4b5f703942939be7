import RatecardCore
import RatecardSupport

/// Where releases are published and what the release protocol needs of it besides the store:
/// a serve root folder (`ServeRoot`) or a prefix in an S3-compatible bucket (`S3Root`).
///
/// Publish, rollback, promote, prune, status, releases and verify are written against this and
/// `ReleaseStore` only, so each backend runs the same protocol: lock, recover, put objects,
/// put the release, flip the pointer by compare-and-swap, journal, unlock.
public protocol ReleaseTarget {
    /// How messages name it: the folder, or `s3://bucket/prefix`.
    var displayName: String { get }
    /// The store of its objects, releases and pointer.
    var releaseStore: any ReleaseStore { get }
    /// The journal: who did what, when and why (what is live is the pointer, never the journal).
    var journalLog: any JournalLog { get }

    /// Takes the one lock for changes here, waiting for the holder unless `wait` is false (then
    /// a held lock is a `ConflictError`). A holder that died is never waited on forever.
    func acquireLock(command: String, wait: Bool, onWait: (String) -> Void) throws -> any ReleaseLease
    /// Removes what a crash left and records a flip the journal missed. Runs under the lock.
    @discardableResult
    func recover() throws -> [String]
    /// The release the pointer names, whether or not it exists.
    func pointer() throws -> String?
    /// The live release id, nil before the first publish; an error when the pointer names a
    /// release that does not exist.
    func live() throws -> String?
    /// Complete releases, oldest first.
    func releaseIDs() throws -> [String]
    /// A release's version.json bytes, nil when there is no such release.
    func manifest(of release: String) throws -> [UInt8]?
    /// A release's version.json.
    func info(of release: String) throws -> ReleaseInfo
    /// Re-hashes every file and object of a release: the problems found (`missing: path`,
    /// `changed object: path`, ...), empty when it is whole.
    func drift(of release: String) throws -> [String]
    /// The bytes of `path` in `release`, nil when the release does not list it.
    func readFile(_ path: String, of release: String, info: ReleaseInfo?) throws -> [UInt8]?
    /// The store a publish of `info` (whose version.json has the sha256 `manifest`) writes
    /// through: the local one vouches for present objects by the stat data recorded after the
    /// last publish, and does not parse back the version.json it is given.
    func publishingStore(for info: ReleaseInfo, manifest: String) -> any ReleaseStore
    /// After a release went live through `store` (the one `publishingStore` gave, or nil): what
    /// the next publish may rely on (best effort).
    func recordPublished(_ info: ReleaseInfo, through store: (any ReleaseStore)?)
    /// The bytes of the named objects (to copy them elsewhere); an absent one is an error.
    func objects(_ names: [String]) throws -> [String: [UInt8]]
    /// Deletes the named objects (prune: none of them is named by a remaining release).
    func delete(objects names: [String]) throws
    /// The bytes the named objects take.
    func bytes(ofObjects names: [String]) throws -> Int
    /// After prune deleted releases and objects: make it durable, remove strays of earlier runs.
    func finishPrune(keptReleases: [String]) throws
    /// A small file served beside the releases (`bridge-lines.json`), nil when absent.
    func readState(_ name: String) throws -> [UInt8]?
    /// Replaces such a file atomically.
    func writeState(_ name: String, _ bytes: [UInt8]) throws
    /// What this command sent to storage (object storage only), for `--format json`.
    var usage: JSON? { get }
}

/// A held lock; `release()` gives it up (also done when it is freed).
public protocol ReleaseLease: AnyObject {
    /// Throws a `ConflictError` when the lock is no longer held (object storage: it expired and
    /// was taken over); called before the pointer is flipped.
    func confirm() throws
    func release()
}

extension ReleaseTarget {
    /// Before a command changes the target: a serve root folder is created (a bucket prefix
    /// needs nothing).
    public func createIfMissing() throws {
        if let local = self as? ServeRoot { try FileSystem.makeDirectories(local.path) }
    }

    public func info(of release: String) throws -> ReleaseInfo {
        guard let bytes = try manifest(of: release) else {
            throw OperationalError("release \(release) does not exist in \(displayName)")
        }
        return try ReleaseInfo.parse(bytes, source: "\(displayName) release \(release) version.json")
    }

    public var usage: JSON? { nil }

    public func objects(_ names: [String]) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for name in names {
            guard let bytes = try releaseStore.read(.object(name)) else { throw OperationalError("object \(name) is missing from \(displayName); run 'ratecard verify'") }
            found[name] = bytes
        }
        return found
    }

    public func delete(objects names: [String]) throws {
        for name in names {
            try releaseStore.delete(.object(name))
            CrashPoint.hit("prune-object-removed")
        }
    }

    /// The release a user named: an id, its unique prefix, or its sequence number (`1` or `000001`).
    public func release(named text: String) throws -> ReleaseMatch {
        let ids = try releaseIDs()
        if ids.contains(text) { return .found(text) }
        var matches = ids.filter { $0.hasPrefix(text) }
        if matches.isEmpty, !text.isEmpty, text.allSatisfy(\.isNumber), let number = Int(text) {
            matches = ids.filter { Int($0.prefix { $0.isNumber }) == number }
        }
        switch matches.count {
        case 0: return .none(known: ids)
        case 1: return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    /// Releases marked bad, judged against what the pointer names now.
    public func badReleases() throws -> Set<String> {
        try journalLog.badReleases(live: try pointer())
    }

    /// Releases that were live, newest first, without repeats.
    public func activationHistory() throws -> [String] {
        var seen: Set<String> = []
        return try journalLog.entries().reversed().compactMap(\.activated).filter { seen.insert($0).inserted }
    }

    /// The sha256 of a release's version.json as it is stored.
    public func versionHash(of release: String) throws -> String {
        guard let bytes = try manifest(of: release) else { throw OperationalError("release \(release) does not exist in \(displayName)") }
        return SHA256.hex(bytes)
    }

    /// The cheap check a rollback makes: the release's version.json still hashes to the seal the
    /// journal recorded when every file was verified. Returns the problems found, or nil when the
    /// journal holds no seal for the release (published before seals; re-hash instead).
    public func sealProblems(of release: String) throws -> [String]? {
        guard let seal = try journalLog.entries().last(where: { $0.release == release && $0.seal != nil })?.seal else { return nil }
        guard let bytes = try manifest(of: release) else { return ["missing: \(ReleaseInfo.fileName)"] }
        return SHA256.hex(bytes) == seal ? [] : ["changed: \(ReleaseInfo.fileName)"]
    }

    /// A release's version.json checked against the seal journaled when it was published, read
    /// once (the bytes hashed are the bytes parsed): the record a decision may rest on, such as
    /// the approval gate's "which commit is live". A record that no longer matches its seal was
    /// changed since (by hand, or by anyone who can write the target) and is not to be trusted.
    /// Throws when it is missing or cannot be read.
    public func sealedRecord(of release: String) throws -> SealedRecord {
        guard let bytes = try manifest(of: release) else { throw OperationalError("release \(release) does not exist in \(displayName)") }
        let info = try ReleaseInfo.parse(bytes, source: "\(displayName) release \(release) version.json")
        guard let seal = try journalLog.entries().last(where: { $0.release == release && $0.seal != nil })?.seal else { return .unsealed(info) }
        return SHA256.hex(bytes) == seal ? .sealed(info) : .broken
    }

    /// Appends a journal entry for a flip that already happened; a failure is reported on stderr,
    /// never thrown, because live has moved and the next run's `recover()` records it.
    public func journalAfterSwap(_ fields: [String: JSON]) {
        do {
            try journalLog.append(fields)
        } catch {
            Trace.standardError("warning: \(displayName): live was switched, but the journal could not be written (\(error)); the next run records it\n")
        }
    }

    /// Records a flip the journal missed (a run killed after it): a `recover` entry.
    func recoverJournal() throws {
        if let live = try pointer(), try journalLog.entries().last(where: { $0.activated != nil })?.activated != live {
            try journalLog.append(
                JournalFields.base(action: "recover").merging([
                    "release": .string(live), "message": .string("the pointer named \(live) but the journal did not say so (a run was interrupted after the swap)"),
                ]) { $1 })
        }
    }

    /// `000042-3f2a9c0d1e4b`: a sequence number above every release ever seen, and the bundle id.
    func nextReleaseID(bundleID: String) throws -> String {
        var highest = 0
        let names = try releaseIDs() + journalLog.entries().compactMap(\.release)
        for name in names { highest = max(highest, Int(name.prefix { $0.isNumber }) ?? 0) }
        let number = String(highest + 1)
        return String(repeating: "0", count: max(0, 6 - number.count)) + number + "-" + String(bundleID.prefix(12))
    }
}

/// A release's version.json as checked against its journaled seal (`sealedRecord(of:)`).
public enum SealedRecord {
    /// It hashes to the seal journaled when the release was published or promoted.
    case sealed(ReleaseInfo)
    /// The journal holds no seal for it (published before seals, or its entry was lost): it
    /// cannot be checked.
    case unsealed(ReleaseInfo)
    /// It no longer hashes to its seal: changed since it was published.
    case broken
}

/// A release a user named, looked up among the releases.
public enum ReleaseMatch: Equatable, Sendable {
    case found(String)
    case none(known: [String])
    case ambiguous([String])
}
