import Foundation
import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport
import Synchronization

/// A prefix of an S3-compatible bucket as a place to publish releases (an `s3:` environment).
///
/// ```
/// <prefix>index.html                    the live release's index.html with <base href="r/<id>/"> (no-cache)
/// <prefix>current                       the pointer: the live release id (no-cache)
/// <prefix>o/<sha256>.<ext>              objects, shared by every release (a year, immutable)
/// <prefix>r/<id>/<path>                 each release's web build and data/entry.json (format 3)
/// <prefix>bridge-lines.json             the release each app bridge version loads (no-cache)
/// <prefix>live.json                     the statement of what apps load, signed (no-cache; LiveStatements)
/// <prefix>releases/<id>.json            version.json of each release (ratecard's, not served)
/// <prefix>.ratecard/lock                the lock: who holds it, renewed while held, expires
/// <prefix>.ratecard/journal/<n>.json    the journal, one object per entry, numbered in order
/// <prefix>.ratecard/journal-state.json  a checkpoint of the journal's state (derived)
/// ```
/// A static host or CDN serves `index.html`, `o/`, `r/` and `bridge-lines.json` and nothing else,
/// with no rule: a page names objects by `../../o/<name>`, which reaches `<prefix>o/` from
/// `index.html` (through its base) and from `r/<id>/index.html` alike (docs/operations.md).
public final class S3Root: ReleaseStore {
    public let location: S3Location
    public var delivery: LiveDelivery? = nil
    public let stats: S3Stats
    let client: S3Client
    let store: S3Store
    let journal: S3Journal
    let lockTTL: Int
    private let credentials: AWSCredentials
    private var manifests: [String: [UInt8]] = [:]
    /// Small objects this command has without reading them: the live page derived from the
    /// served index.html and checked against its hash (`servedEntryProblems`), which the rewrite
    /// after a flip would otherwise download. Forgotten when this command deletes the object.
    private var keptObjects: [String: [UInt8]] = [:]
    /// Objects up to this size are kept in `keptObjects`.
    static let keptObjectSize = 256 * 1024
    /// What this process read of the keys that change, while it holds the lock (nil otherwise).
    private var held: Held?
    /// The lock this process holds (nil otherwise): confirmed before every destructive batch and
    /// every write of a state file, so a command that lost it changes nothing more.
    private var lease: S3Lock?
    /// Why the lock was found lost: every later change is refused with it.
    fileprivate private(set) var lost: ConflictError?
    /// What this command changed in the bucket under the lock, said when the lock is found lost.
    private var done: [Message] = []

    /// A key's bytes as read (nil: absent) and, for the pointer, the ETag a flip is made over.
    private struct Read {
        var bytes: [UInt8]?
        var etag: String?
    }

    /// The pointer, the releases' listing and the served state files (`bridge-lines.json`,
    /// `index.html`) as read or written while the lock is held. Nobody else changes them then
    /// (every writer takes the lock first), so each is read once per lock and follows this
    /// process's own writes: the steps of a command (recover, repair, publish, journal, bridge
    /// lines) ask for them several times, and a request is sent only for the first. Emptied when
    /// the lock is taken, given up or found lost; the pointer is still flipped by
    /// compare-and-swap over the ETag it was read with, so a flip by anyone else since fails.
    private struct Held {
        var pointer: Read?
        var releases: [StoreListing]?
        /// The keys of each entry folder `r/<id>/`, from the listing `recover` makes (nil: not
        /// known; this command's own deletes and restores forget them, its puts add to them).
        var entries: [String: [String]]?
        var states: [String: Read] = [:]
    }

    /// Seconds a lock lives after its last renewal when its holder is gone. Its holder renews it
    /// on a timer (a third of this) while the command runs, so a crashed holder on another
    /// machine blocks the others for half a minute, not a quarter of an hour.
    public static let defaultLockTTL = 30
    /// Seconds any one command may take against the bucket (a frozen store ends in a failure).
    public static let defaultDeadline = 900
    /// Seconds a command waits for a lock another live command holds before it gives up (exit 3):
    /// what a person at a terminal waits, not the whole deadline.
    public static let defaultLockWait = 120
    let lockWait: Int

    public init(
        location: S3Location, credentials: AWSCredentials, lockTTL: Int = S3Root.defaultLockTTL, deadlineSeconds: Int? = nil, workers: Int = S3Pool.defaultWorkers,
        timeoutMilliseconds: Int = 60_000, lockWaitSeconds: Int = S3Root.defaultLockWait
    ) {
        self.location = location
        lockWait = lockWaitSeconds
        self.lockTTL = lockTTL
        stats = S3Stats(deadlineSeconds: deadlineSeconds)
        self.credentials = credentials
        client = S3Client(location: location, credentials: credentials, timeoutMilliseconds: timeoutMilliseconds, stats: stats)
        let pool = S3Pool(location: location, credentials: credentials, stats: stats, workers: workers, timeoutMilliseconds: timeoutMilliseconds)
        store = S3Store(client: client, pool: pool, stats: stats)
        journal = S3Journal(client: client, pool: pool, name: "s3://\(location.bucket)/\(location.prefix)")
    }

    public func location(of key: StoreKey?) -> String {
        let base = "s3://\(location.bucket)/\(location.prefix)"
        return key.map { base + S3Store.key($0) } ?? base
    }

    public var journalLog: any JournalLog { journal }
    public var usage: JSON? { stats.json }

    public func acquireLock(command: String, wait: Bool, onWait: (Message) -> Void) throws -> any ReleaseLease {
        let lock = try S3Lock.acquire(
            client: client, renewer: S3Client(location: location, credentials: credentials, timeoutMilliseconds: 10_000, stats: stats), ttl: lockTTL, command: command, wait: wait,
            waitSeconds: lockWait, target: displayName,
            onWait: onWait)
        held = Held()
        lease = lock
        lost = nil
        done = []
        journal.lockTaken()
        journal.fence = { [unowned self] in try self.fence() }
        journal.refuseIfLost = { [unowned self] in if let lost = self.lost { throw lost } }
        return S3HeldLock(lock, root: self)
    }

    /// The lock was given up or lost: what was read under it is no longer known.
    fileprivate func forgetHeld() {
        held = nil
        journal.lockGivenUp()
    }

    /// The lock was given up: no longer confirmed before changes.
    fileprivate func lockReleased() {
        forgetHeld()
        lease = nil
    }

    /// The lock was found lost (`error` says how): nothing more is changed, and the error says
    /// what this command had changed before.
    fileprivate func lockLost(_ error: ConflictError) -> ConflictError {
        if let lost { return lost }
        lease?.markLost()
        lockReleased()
        let english = done.isEmpty ? "it had changed nothing in the bucket" : "before that it had " + done.map(\.english).joined(separator: "; ")
        let korean = done.isEmpty ? "버킷에서 바꾼 것은 없습니다" : "그 전에 한 일: " + done.map(\.korean).joined(separator: "; ")
        let full = ConflictError(error.message.english + " (" + english + ")", ko: "\(error.message.korean) (잠금을 잃어 더는 아무것도 바꾸지 않습니다. \(korean))")
        lost = full
        return full
    }

    /// Confirms the lock (a conditional renewal of the lock object, not a local flag) before a
    /// change that must not be made by a command that lost it: deletes, state files, journal
    /// entries (but the entry of a flip that happened, `S3Journal.appendAfterSwap`). Throws
    /// (exit 3) when it was lost; nothing is checked when no lock is held.
    func fence() throws {
        if let lost { throw lost }
        guard let lease else { return }
        do {
            try lease.confirm()
        } catch let error as ConflictError {
            throw lockLost(error)
        }
    }

    /// Notes a change made under the lock (what a command that lost it reports it had done).
    private func did(_ message: Message) { if lease != nil { done.append(message) } }

    /// Entry files younger than this (seconds, by the storage's clock) are never swept: a writer
    /// that is still alive may own them. A lock lifetime and half again (at least 1 s more: the
    /// clocks are read in whole seconds).
    var sweepAge: Int { lockTTL + max(1, lockTTL / 2) }

    /// Nothing a crash leaves in a bucket is visible or in the way, but the entry files of a
    /// release without a manifest (a publish killed before its manifest, a prune after it): they
    /// are removed, and the journal is caught up.
    @discardableResult
    public func recover() throws -> [String] {
        // The entry folders and the manifests in one listing, the manifests read after the entry
        // keys (fresh, not what was read before), so a release someone made in between is seen
        // with its manifest.
        let (swept, listed, entries) = try store.sweepEntries(minimumAge: sweepAge, fence: fence)
        // That listing is the one the rest of the command reads under the lock.
        if held != nil {
            held?.releases = listed
            held?.entries = entries
        }
        if !swept.isEmpty {
            did(Message("removed the entry folders of \(swept.count) unfinished releases", ko: "끝나지 않은 릴리스 \(swept.count)개의 엔트리 폴더를 지웠습니다"))
        }
        try recoverJournal()
        // A flip whose index.html was not written (a crash between the two).
        if let live = try pointer(), try !servedEntryProblems(live: live).isEmpty { try writeServedEntry(live) }
        return swept.map { S3Store.entriesPrefix + $0 + "/" }
    }

    // MARK: The served entry document

    /// `index.html` at the prefix: the live release's own `index.html` with
    /// `<base href="r/<id>/">` as the first element of its head, so a plain static host (an
    /// S3 website, a CDN without rules) serves the live release at one stable URL, and every
    /// relative URL of the page (its scripts, `data/entry.json`, and through `../../o/` the
    /// objects) resolves into that release: a page loaded before a flip keeps loading its own
    /// release's files. Written after each flip; a crash in between leaves the previous one,
    /// which `recover` rewrites and `drift` reports.
    static let servedEntry = "index.html"

    /// The served entry document of `release`, nil when its web build has no index.html.
    func servedEntry(of release: String) throws -> [UInt8]? {
        guard try manifest(of: release) != nil else { return nil }
        let info = try self.info(of: release)
        guard info.files.contains(where: { $0.path == Self.servedEntry }), let page = try readFile(Self.servedEntry, of: release, info: info) else { return nil }
        return ObjectLayout.servedEntry(page, release: release)
    }

    func writeServedEntry(_ release: String) throws {
        guard let page = try servedEntry(of: release) else { return }
        try writeState(Self.servedEntry, page, contentType: "text/html; charset=utf-8")
    }

    /// Replaces a served state file under the lock: the lock is confirmed first, and the write is
    /// conditional on what was read under it (If-Match on its ETag, If-None-Match when it was
    /// absent), so a command that lost the lock never overwrites a newer holder's file.
    private func writeState(_ name: String, _ bytes: [UInt8], contentType: String) throws {
        try fence()
        var condition = S3Client.Condition.none
        if held != nil {
            var known = held?.states[name]
            if known == nil || (known?.bytes != nil && (known?.etag ?? "").isEmpty) {
                let got = try client.get(name)
                known = Read(bytes: got?.bytes, etag: got?.etag)
            }
            if let known { condition = known.bytes == nil ? .absent : .matches(known.etag ?? "") }
        }
        held?.states[name] = nil
        switch try client.put(name, bytes, contentType: contentType, cacheControl: "no-cache", condition: condition) {
        case .written(let etag):
            held?.states[name] = Read(bytes: bytes, etag: etag)
            did(Message("rewrote \(name)", ko: "\(name)을(를) 다시 썼습니다"))
        case .preconditionFailed:
            throw lockLost(
                ConflictError(
                    "\(name) in \(displayName) was changed by another command while this one held the lock, so the lock was lost; \(name) was not written and nothing more was changed",
                    ko: "이 명령이 잠금을 쥔 동안 다른 명령이 \(displayName)의 \(name)을(를) 바꾸었으니 잠금을 잃은 것입니다; \(name)은(는) 쓰지 않았고 더는 아무것도 바꾸지 않았습니다"))
        }
    }

    /// What is wrong with the served entry document for `live` (empty when it serves it). The
    /// page it is made from is not downloaded when the served one holds it: the served document
    /// less its `<base>` that hashes to the page's sha256 in version.json is that page (and is
    /// kept as its object's bytes, for the flip's rewrite).
    func servedEntryProblems(live: String) throws -> [String] {
        guard try manifest(of: live) != nil else { return [] }
        let info = try self.info(of: live)
        guard let file = info.files.first(where: { $0.path == Self.servedEntry }) else { return [] }
        guard let served = try read(.state(Self.servedEntry)) else { return ["stale: \(Self.servedEntry) is missing (the app's stable URL serves nothing)"] }
        let stale = ["stale: \(Self.servedEntry) does not serve the live release \(live)"]
        if let page = ObjectLayout.page(ofServedEntry: served, release: live), page.count == file.size, SHA256.hex(page) == file.sha256 {
            if info.format >= ObjectLayout.objectsSince { keep(object: ObjectLayout.objectName(file), page) }
            return ObjectLayout.servedEntry(page, release: live) == served ? [] : stale
        }
        guard let expected = try servedEntry(of: live) else { return [] }
        return served == expected ? [] : stale
    }

    /// Keeps a small object's bytes, checked against its hash, for the rest of the command.
    private func keep(object name: String, _ bytes: [UInt8]) {
        if bytes.count <= Self.keptObjectSize { keptObjects[name] = bytes }
    }

    public func read(_ keys: [StoreKey]) throws -> [[UInt8]?] {
        let missing = Array(Set(keys.filter { known($0) == nil }))
        let fetched = try store.pool.map(missing) { client, key -> Read in
            let got = try client.get(S3Store.key(key))
            return Read(bytes: got?.bytes, etag: got?.etag)
        }
        for (key, read) in zip(missing, fetched) {
            switch key {
            // A release's manifest never changes: read once per command.
            case .release(let id): if let bytes = read.bytes { manifests[id] = bytes }
            case .pointer: held?.pointer = read
            case .state(let name): held?.states[name] = read
            case .object, .entry: break
            }
        }
        let found = Dictionary(zip(missing, fetched.map(\.bytes)), uniquingKeysWith: { first, _ in first })
        return keys.map { key in known(key).map(\.bytes) ?? found[key] ?? nil }
    }

    /// What is known of a key without asking the store: a release's manifest, a page kept by
    /// `servedEntryProblems`, and under the lock the pointer and the served state files.
    private func known(_ key: StoreKey) -> Read? {
        switch key {
        case .release(let id): return manifests[id].map { Read(bytes: $0) }
        case .object(let name): return keptObjects[name].map { Read(bytes: $0) }
        case .pointer: return held?.pointer
        case .state(let name): return held?.states[name]
        case .entry: return nil
        }
    }

    public func list(_ kind: StoreKind) throws -> [StoreListing] {
        guard case .releases = kind, held != nil else { return try store.list(kind) }
        if let releases = held?.releases { return releases }
        let releases = try store.list(kind)
        held?.releases = releases
        return releases
    }

    @discardableResult
    public func put(_ items: [StoreItem]) throws -> Int {
        // Under the lock a release is put on what recover listed: whether it exists, and what its
        // entry folder holds.
        let known = held.flatMap { held in
            held.releases.flatMap { releases in held.entries.map { S3Store.Known(releases: Set(releases.map(\.name)), entries: $0) } }
        }
        let written: Int
        do {
            written = try store.put(items, known: known)
        } catch {
            // A release put part of the way: its entry folder is no longer known.
            if items.contains(where: { if case .release = $0.key { return true } else { return false } }) { held?.entries = nil }
            throw error
        }
        for item in items {
            guard case .release(let id) = item.key, let bytes = item.bytes else { continue }
            manifests[id] = bytes
            if let releases = held?.releases, !releases.contains(where: { $0.name == id }) {
                held?.releases = (releases + [StoreListing(name: id, size: -1)]).sorted { $0.name < $1.name }
            }
            if let info = item.info ?? (try? ReleaseInfo.parse(bytes, source: location(of: item.key))) {
                held?.entries?[id] = info.files.filter { S3Store.inEntryFolder($0.path, format: info.format) }.map { S3Store.entryKey(release: id, path: $0.path) }
            } else {
                held?.entries = nil
            }
        }
        return written
    }

    public func delete(_ keys: [StoreKey]) throws {
        guard !keys.isEmpty else { return }
        try fence()
        held?.entries = nil
        for key in keys {
            switch key {
            case .release(let id):
                manifests[id] = nil
                held?.releases = nil
            case .state(let name): held?.states[name] = nil
            case .object(let name): keptObjects[name] = nil
            case .entry, .pointer: break
            }
        }
        try store.delete(keys)
        let releases = keys.filter { if case .release = $0 { return true } else { return false } }.count
        did(Message("deleted \(keys.count - releases) files and \(releases) releases", ko: "파일 \(keys.count - releases)개와 릴리스 \(releases)개를 지웠습니다"))
    }

    public func flip(expected: String?, to release: String) throws {
        let known = held?.pointer
        held?.pointer = nil
        try store.flip(expected: expected, to: release, read: known.flatMap { read in read.bytes.flatMap { bytes in read.etag.map { (bytes, $0) } } })
        if held != nil { held?.pointer = Read(bytes: Array(release.utf8)) }
        did(Message("made \(release) live", ko: "\(release)을(를) 라이브로 만들었습니다"))
        do {
            try writeServedEntry(release)
        } catch {
            throw AfterFlipError(
                "release \(release) is live in \(displayName), but \(Self.servedEntry) could not be written (\(error)), so the stable URL still serves the release before; the next publish, rollback, promote or prune there rewrites it",
                ko: "릴리스 \(release)은(는) \(displayName)에서 라이브가 되었지만 \(Self.servedEntry)을(를) 쓰지 못해(\(Message.of(error))) 고정 URL은 아직 이전 릴리스를 보여 줍니다; 그곳의 다음 publish, rollback, promote, prune이 다시 씁니다")
        }
        CrashPoint.hit("served")
    }

    /// Every entry file and object of the release against its manifest: by the listing (present,
    /// and the size it lists), or read back and hashed when `deep`. A key under its entry folder
    /// that it does not list is reported too.
    public func drift(of release: String, deep: Bool) throws -> [String] {
        let info = try self.info(of: release)
        let entries = info.files.filter { S3Store.inEntryFolder($0.path, format: info.format) }
        var seen: Set<String> = []
        let objects = info.files.filter { seen.insert(ObjectLayout.objectName($0)).inserted }
        let folder = S3Store.entriesPrefix + release + "/"
        let listedEntries = Dictionary(try client.listObjects(prefix: folder).map { (String($0.key.dropFirst(folder.count)), $0.size) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        if deep {
            enum Check: Sendable {
                case entry(BundleManifest.File)
                case object(BundleManifest.File)
            }
            let checks = entries.map(Check.entry) + objects.map(Check.object)
            problems = try store.pool.map(checks) { client, check -> String? in
                switch check {
                case .entry(let file):
                    guard let bytes = try client.get(S3Store.entryKey(release: release, path: file.path))?.bytes else { return "missing: \(file.path)" }
                    return bytes.count != file.size || SHA256.hex(bytes) != file.sha256 ? "changed: \(file.path)" : nil
                case .object(let file):
                    guard let bytes = try client.get(S3Store.key(.object(ObjectLayout.objectName(file))))?.bytes else { return "missing object: \(file.path)" }
                    return bytes.count != file.size || SHA256.hex(bytes) != file.sha256 ? "changed object: \(file.path)" : nil
                }
            }.compactMap { $0 }
        } else {
            let sizes = Dictionary(try list(.objects).map { ($0.name, $0.size) }, uniquingKeysWith: { first, _ in first })
            for file in entries {
                guard let size = listedEntries[file.path] else {
                    problems.append("missing: \(file.path)")
                    continue
                }
                if size != file.size { problems.append("changed: \(file.path)") }
            }
            for file in objects {
                guard let size = sizes[ObjectLayout.objectName(file)] else {
                    problems.append("missing object: \(file.path)")
                    continue
                }
                if size != file.size { problems.append("changed object: \(file.path)") }
            }
        }
        let listed = Set(entries.map(\.path))
        problems += listedEntries.keys.filter { !listed.contains($0) }.sorted().map { "unlisted: \($0)" }
        // A served index.html that is there but serves another release is reported with the
        // other served state (`BridgeLines.servedStaleness`); one that is missing, here.
        if try pointer() == release { problems += try servedEntryProblems(live: release).filter { $0.contains("missing") } }
        return problems
    }

    /// `.ratecard/numbers/<number>`, created with If-None-Match and naming the release: the
    /// manifest's key holds the bundle id too, so two releases of one number would not collide
    /// there (a command that lost the lock between its check and its manifest). The claim is
    /// not preceded by a lock check: it is a create that cannot overwrite, so a command that
    /// lost the lock can only skip a number with it, and the lock is confirmed after the objects
    /// are put, before anything is written into the release's folder.
    public func claimReleaseNumber(_ number: Int, for id: String) throws -> Bool {
        if let lost { throw lost }
        let key = Self.numbersPrefix + Self.releaseNumber(number)
        let bytes = Array((id + "\n").utf8)
        if case .written = try client.put(key, bytes, contentType: "text/plain; charset=utf-8", cacheControl: "no-cache", condition: .absent) { return true }
        return try client.get(key)?.bytes == bytes
    }

    static let numbersPrefix = ".ratecard/numbers/"

    /// A bucket keeps only the web build and `data/entry.json` in a release's folder (format 3).
    public func inEntryFolder(_ path: String, format: Int) -> Bool { S3Store.inEntryFolder(path, format: format) }

    public var servesEntryDocument: Bool { true }

    /// A present object is read back and hashed by the put (`S3Store.check`).
    public var putReadsPresentObjects: Bool { true }

    public func restoreEntries(of release: String) throws -> [String] {
        let info = try self.info(of: release)
        let folder = S3Store.entriesPrefix + release + "/"
        let listed = Dictionary(try client.listObjects(prefix: folder).map { (String($0.key.dropFirst(folder.count)), $0.size) }, uniquingKeysWith: { first, _ in first })
        let missing = info.files.filter { S3Store.inEntryFolder($0.path, format: info.format) && listed[$0.path] != $0.size }
        guard !missing.isEmpty else { return [] }
        // An entry file is a copy of its object: one whose object is gone too (or is not the
        // size version.json lists) cannot be put back. The objects are listed first, so the
        // others are still restored and the lost ones named.
        let objects = Dictionary(try store.list(.objects).map { ($0.name, $0.size) }, uniquingKeysWith: { first, _ in first })
        let restorable = missing.filter { objects[ObjectLayout.objectName($0)] == $0.size }
        let lost = missing.filter { objects[ObjectLayout.objectName($0)] != $0.size }.map(\.path)
        if !restorable.isEmpty {
            try fence()
            held?.entries = nil
            try store.pool.each(restorable) { client, file in
                try client.copy(
                    from: S3Store.objectsPrefix + ObjectLayout.objectName(file), to: S3Store.entryKey(release: release, path: file.path),
                    contentType: MediaType.of(file.path), cacheControl: NginxConfig.cacheControl(entry: file.path))
            }
            did(Message("restored \(restorable.count) entry files of \(release)", ko: "\(release)의 엔트리 파일 \(restorable.count)개를 되살렸습니다"))
        }
        if !lost.isEmpty { throw UnrestorableEntries(release: release, restored: restorable.map(\.path), lost: lost) }
        return restorable.map(\.path)
    }

    public func write(state name: String, _ bytes: [UInt8]) throws {
        try writeState(name, bytes, contentType: MediaType.of(name))
    }
}

/// The lock as `S3Root` hands it out: when it is given up or found lost, the root forgets what
/// it read under it.
final class S3HeldLock: ReleaseLease {
    private let lock: S3Lock
    private let root: S3Root
    private var released = false

    fileprivate init(_ lock: S3Lock, root: S3Root) {
        self.lock = lock
        self.root = root
    }

    /// A lock that cannot be confirmed (lost, or the store did not answer) may have been taken:
    /// what was read under it is read again.
    func confirm() throws {
        if let lost = root.lost { throw lost }
        do {
            try lock.confirm()
        } catch let error as ConflictError {
            throw root.lockLost(error)
        } catch {
            root.forgetHeld()
            throw error
        }
    }

    func release() {
        guard !released else { return }
        released = true
        root.lockReleased()
        lock.release()
    }

    deinit { release() }
}

/// The journal of an S3 target: one object per entry, `.ratecard/journal/<10 digits>.json`,
/// created with If-None-Match so two writers can never take the same number; listing order is
/// journal order. Beside it, `.ratecard/journal-state.json` is a checkpoint of `JournalState`
/// through some entry, rewritten after each append: a command reads the checkpoint, lists only
/// the entries after it (S3's `start-after`) and folds those, so what it sends does not grow
/// with the journal. The checkpoint is derived data: one that is missing, unreadable or behind
/// only means more entries are folded (from the first, at worst).
final class S3Journal: JournalLog {
    static let prefix = ".ratecard/journal/"
    static let checkpointKey = ".ratecard/journal-state.json"
    private let client: S3Client
    private let pool: S3Pool
    /// `s3://bucket/prefix/`, naming an entry in a problem.
    private let name: String
    /// The state as last folded by this process (entries never change once written).
    private var known: JournalState?
    private var lastNumber: Int?
    /// Whether this process holds the target's lock, and has listed the journal since it took
    /// it: then nobody else appends (but a racer the append finds), and `known` is current.
    private var lockHeld = false
    private var listedUnderLock = false
    /// Confirms the lock before an entry is appended (set while a lock is held).
    var fence: (() throws -> Void)?
    /// Throws when the command already found the lock lost (set while a lock is held).
    var refuseIfLost: (() throws -> Void)?
    /// The checkpoint as last read or written: rewritten only over that (If-Match on its ETag,
    /// If-None-Match when it was absent), so a stale view never replaces a newer checkpoint.
    private var checkpointRead: S3Client.Condition?

    init(client: S3Client, pool: S3Pool, name: String) {
        self.client = client
        self.pool = pool
        self.name = name
    }

    func lockTaken() {
        lockHeld = true
        listedUnderLock = false
    }

    func lockGivenUp() {
        lockHeld = false
        listedUnderLock = false
        fence = nil
        refuseIfLost = nil
    }

    static func key(_ number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, 10 - digits.count)) + digits + ".json"
    }

    static func number(of key: String) -> Int? {
        guard key.hasPrefix(prefix), key.hasSuffix(".json") else { return nil }
        return Int(key.dropFirst(prefix.count).dropLast(".json".count))
    }

    /// The entries after number `after` (all for 0), in order, as (number, bytes or nil when unreadable).
    private func entries(after: Int) throws -> [(number: Int, key: String, bytes: [UInt8]?)] {
        let found: [(key: String, number: Int)] = try client.list(prefix: Self.prefix, startAfter: after > 0 ? Self.key(after) : nil)
            .compactMap { key in Self.number(of: key).map { (key, $0) } }.filter { $0.1 > after }.sorted { $0.1 < $1.1 }
        lastNumber = max(lastNumber ?? 0, found.last?.number ?? after)
        let fetched = try pool.map(found.map(\.key)) { client, key in try client.get(key)?.bytes }
        return zip(found, fetched).map { ($0.number, $0.key, $1) }
    }

    /// Folds entries into `contents`: each is one PUT, never torn, so one that is gone or
    /// unreadable is damage.
    private func add(_ entries: [(number: Int, key: String, bytes: [UInt8]?)], to contents: inout Journal.Contents) {
        for (number, key, bytes) in entries {
            guard let bytes else {
                contents.problems.append(Journal.Problem(location: name + key, number: number, reason: "the entry was listed but could not be read", torn: false))
                continue
            }
            contents.add(bytes[...], number: number, location: name + key, tearable: false)
        }
    }

    func read() throws -> Journal.Contents {
        var contents = Journal.Contents()
        add(try entries(after: 0), to: &contents)
        return contents
    }

    func state() throws -> JournalState {
        if let known, lockHeld, listedUnderLock { return known }
        var state: JournalState
        if let known {
            state = known
        } else {
            let read = try client.get(Self.checkpointKey)
            checkpointRead = read.map { .matches($0.etag) } ?? .absent
            if let bytes = read?.bytes, let json = try? JSONReader.parse(bytes), let checkpoint = JournalState(json: json) {
                state = checkpoint
            } else {
                state = JournalState()
            }
        }
        let newer = try entries(after: state.through)
        var contents = Journal.Contents()
        add(newer, to: &contents)
        state.apply(contents, through: newer.last?.number ?? state.through)
        known = state
        listedUnderLock = lockHeld
        return state
    }

    func append(_ fields: [String: JSON]) throws {
        try fence?()
        try write(fields)
    }

    /// The entry of a flip that happened records a fact: the lock is not renewed for it (the
    /// flip itself was made right after a renewal, over the pointer's ETag), and it is created
    /// with If-None-Match like every entry, after the newest when another was appended meanwhile.
    func appendAfterSwap(_ fields: [String: JSON]) throws {
        try refuseIfLost?()
        try write(fields)
    }

    private func write(_ fields: [String: JSON]) throws {
        let bytes = Array((JSON.object(fields).serialized(pretty: false) + "\n").utf8)
        var number = try (lastNumber ?? state().through) + 1
        for _ in 0..<8 {
            let key = Self.key(number)
            let outcome = try client.put(key, bytes, contentType: "application/json", cacheControl: "no-cache", condition: .absent)
            // A create whose answer was lost is retried and then finds itself there: it landed.
            if try outcome != .preconditionFailed || client.get(key)?.bytes == bytes {
                lastNumber = number
                checkpoint(after: number, bytes)
                return
            }
            // Someone appended meanwhile: after the newest entry, whatever its number.
            listedUnderLock = false
            number = max(number, try entries(after: number).last?.number ?? number) + 1
        }
        throw ConflictError(
            "the journal in \(client.location.bucket)/\(client.location.prefix)\(Self.prefix) kept changing while an entry was appended; try again",
            ko: "항목을 덧붙이는 동안 \(client.location.bucket)/\(client.location.prefix)\(Self.prefix)의 저널이 계속 바뀌었습니다; 다시 시도하세요")
    }

    /// Rewrites the checkpoint through entry `number` (whose bytes were just written). Best
    /// effort: a checkpoint not written only means the next command folds more entries.
    private func checkpoint(after number: Int, _ bytes: [UInt8]) {
        guard var state = known, state.through == number - 1 else {
            known = nil
            return
        }
        var contents = Journal.Contents()
        contents.add(bytes[...], number: number, location: name + Self.key(number), tearable: false)
        state.apply(contents, through: number)
        known = state
        guard let condition = checkpointRead else { return }
        switch try? client.put(Self.checkpointKey, Array(state.json.serialized(pretty: false).utf8), contentType: "application/json", cacheControl: "no-cache", condition: condition) {
        case .written(let etag): checkpointRead = .matches(etag)
        // Someone else rewrote it (or the answer was lost): read again next time.
        case .preconditionFailed, nil: checkpointRead = nil
        }
    }
}

/// The lock of an S3 target: `.ratecard/lock`, created with If-None-Match: * and naming its
/// holder (user, host, pid, command, since). A holder renews it (If-Match on its own ETag)
/// before every step that must not run after someone else took the lock, the pointer flip
/// among them. A lock is taken over, with If-Match on the ETag it had, when its holder is known
/// dead (same host and boot, the process is gone) or it is older than its time to live by the
/// storage's own clock (its Last-Modified against the Date of the answer, so no two machines'
/// clocks are compared); of several takers exactly one wins.
final class S3Lock: ReleaseLease, @unchecked Sendable {
    static let key = ".ratecard/lock"

    private let client: S3Client
    private let ttl: Int
    private let target: String
    /// The holder's last body and ETag, and whether it was released or lost; the renewal
    /// thread and the command's own `confirm` take turns through it.
    private let state: Mutex<(body: [UInt8], etag: String, released: Bool, lost: Bool)>
    /// Renews the lock every third of its lifetime while it is held, with a client of its own.
    private var renewal: Thread?

    private init(client: S3Client, renewer: S3Client?, ttl: Int, target: String, body: [UInt8], etag: String) {
        self.client = client
        self.ttl = ttl
        self.target = target
        state = Mutex((body, etag, false, false))
        if let renewer {
            let thread = Thread { [weak self] in self?.renewEvery(third: ttl, with: renewer) }
            renewal = thread
            thread.start()
        }
    }

    /// The renewal loop: every third of the lifetime (in steps of 100 ms, so a release ends it
    /// at once) the lock is renewed; one that was taken over is marked lost, which the next
    /// `confirm` reports. A failed renewal is tried again at the next step.
    private func renewEvery(third ttl: Int, with renewer: S3Client) {
        let interval = max(1, ttl * 1000 / 3)
        var waited = 0
        var renewed = Trace.now()
        while true {
            usleep(100_000)
            waited += 100
            let (released, lost) = state.withLock { ($0.released, $0.lost) }
            if released || lost { return }
            guard waited >= interval else { continue }
            let started = Trace.now()
            if (try? renew(with: renewer)) != nil {
                waited = 0
                renewed = started
            } else if (Trace.now() - renewed) / 1_000_000_000 >= ttl {
                // Not renewed for a whole lifetime: someone may have taken it over by now.
                markLost()
                return
            }
        }
    }

    /// The lock is no longer this holder's (a state file it wrote changed under it, or it could
    /// not be renewed within its lifetime): renewals stop, and it is never deleted by this holder.
    func markLost() {
        state.withLock { $0.lost = true }
    }

    /// Writes the lock again over this holder's last ETag (under the state's lock, so the two
    /// renewers never race each other): it must not have been taken over meanwhile.
    private func renew(with client: S3Client) throws {
        try state.withLock { held in
            guard !held.released, !held.lost else { return }
            var fields: [String: JSON] = [:]
            if let own = try? JSONDecoder().decode([String: JSON].self, from: Data(held.body)) { fields = own }
            fields["renewed"] = .string(Timestamp.now())
            let renewed = Array((JSON.object(fields).serialized(pretty: false) + "\n").utf8)
            switch try client.put(Self.key, renewed, contentType: "application/json", cacheControl: "no-cache", condition: .matches(held.etag)) {
            case .written(let next):
                held.body = renewed
                held.etag = next
            case .preconditionFailed:
                held.lost = true
            }
        }
    }

    deinit { release() }

    /// Who this process is, as a lock names it.
    struct Holder {
        var fields: [String: JSON]

        static func this(command: String, ttl: Int) -> Holder {
            var token = ""
            for _ in 0..<4 { token += String(UInt32.random(in: 0...UInt32.max), radix: 16) }
            return Holder(fields: [
                "user": .string(ProcessUser.name), "host": .string(hostName()), "boot_id": .string(bootID() ?? ""),
                "pid": .int(Int(getpid())), "pid_start": .string(processStart(getpid()) ?? ""),
                "command": .string("ratecard \(command)"), "since": .string(Timestamp.now()),
                "ttl_seconds": .int(ttl), "token": .string(token),
            ])
        }

        var bytes: [UInt8] { Array((JSON.object(fields).serialized(pretty: false) + "\n").utf8) }

        var description: Message {
            let pid = fields["pid"]?.intValue.map { "pid \($0) " } ?? ""
            let who = "\(fields["user"]?.stringValue ?? "?")@\(fields["host"]?.stringValue ?? "?")"
            let command = fields["command"]?.stringValue ?? "ratecard"
            let since = fields["since"]?.stringValue ?? "?"
            return Message("\(pid)(\(who), '\(command)', since \(since))", ko: "\(pid)(\(who), '\(command)', \(since)부터)")
        }

        /// Dead for sure: it ran on this machine since its last boot and that process is gone.
        var isDeadHere: Bool {
            guard fields["host"]?.stringValue == hostName(), let boot = fields["boot_id"]?.stringValue, !boot.isEmpty, boot == bootID(),
                let pid = fields["pid"]?.intValue, let start = fields["pid_start"]?.stringValue
            else { return false }
            return processStart(Int32(pid)) != start
        }
    }

    static func acquire(
        client: S3Client, renewer: S3Client?, ttl: Int, command: String, wait: Bool, waitSeconds: Int = S3Root.defaultLockWait, target: String, onWait: (Message) -> Void
    ) throws -> S3Lock {
        let me = Holder.this(command: command, ttl: ttl)
        let started = Trace.now()
        var waited = false
        var pause = 200_000
        while true {
            if case .written(let etag) = try client.put(key, me.bytes, contentType: "application/json", cacheControl: "no-cache", condition: .absent) {
                return S3Lock(client: client, renewer: renewer, ttl: ttl, target: target, body: me.bytes, etag: etag)
            }
            guard let held = try client.fetch(key) else { continue }
            // A create whose answer was lost is retried and then finds the lock it made.
            if held.bytes == me.bytes { return S3Lock(client: client, renewer: renewer, ttl: ttl, target: target, body: me.bytes, etag: held.etag) }
            let holder = (try? JSONDecoder().decode([String: JSON].self, from: Data(held.bytes))).map(Holder.init(fields:))
            let holderTTL = holder?.fields["ttl_seconds"]?.intValue ?? ttl
            let age: Int? = held.serverDate.flatMap { date in held.lastModified.map { date - $0 } }
            let dead = holder?.isDeadHere ?? false
            let expired = age.map { $0 > holderTTL } ?? false
            if dead || expired {
                let why =
                    dead
                    ? Message("its process is gone", ko: "그 프로세스가 없습니다")
                    : Message("it was not renewed for \(age ?? 0) s (it expires after \(holderTTL) s)", ko: "\(age ?? 0)초 동안 갱신되지 않았습니다 (\(holderTTL)초 뒤에 만료됩니다)")
                if case .written(let etag) = try client.put(key, me.bytes, contentType: "application/json", cacheControl: "no-cache", condition: .matches(held.etag)) {
                    let previous = holder?.description ?? Message("an unreadable holder", ko: "읽을 수 없는 잠금")
                    onWait(Message("took over the lock on \(target) from \(previous): \(why)", ko: "\(target)의 잠금을 \(previous)에게서 넘겨받았습니다: \(why)"))
                    return S3Lock(client: client, renewer: renewer, ttl: ttl, target: target, body: me.bytes, etag: etag)
                }
                // Another taker won; it is alive, so the next round waits for it.
                continue
            }
            let described = holder?.description ?? Message("another ratecard process", ko: "다른 ratecard 프로세스")
            guard wait else {
                throw ConflictError(
                    "\(target) is locked by \(described); try again when it finishes (or wait without --no-wait). A lock whose holder died is taken over after \(holderTTL) s without renewal",
                    ko: "\(target)은(는) \(described)이(가) 잠가 두었습니다; 끝나면 다시 시도하세요 (또는 --no-wait 없이 기다리세요). 잠근 쪽이 죽은 잠금은 \(holderTTL)초 동안 갱신이 없으면 넘겨받습니다")
            }
            if (Trace.now() - started) / 1_000_000_000 >= waitSeconds {
                throw ConflictError(
                    "\(target) is still locked by \(described) after waiting \(waitSeconds) s (lock_wait_seconds); nothing was changed. Try again when it finishes",
                    ko: "\(waitSeconds)초를 기다렸지만 \(target)은(는) 아직 \(described)이(가) 잠가 두었습니다 (lock_wait_seconds); 아무것도 바꾸지 않았습니다. 끝나면 다시 시도하세요")
            }
            if !waited {
                onWait(Message("waiting for the lock on \(target), held by \(described)", ko: "\(target)의 잠금을 기다립니다 (잠근 쪽: \(described))"))
                waited = true
            }
            usleep(UInt32(pause + Int.random(in: 0...(pause / 2))))
            pause = min(pause * 2, 1_000_000)
        }
    }

    /// Renews the lock: it must still carry this holder's last ETag (nobody took it over since).
    func confirm() throws {
        if state.withLock({ $0.released }) { throw ConflictError("the lock on \(target) was released before the command ended", ko: "명령이 끝나기 전에 \(target)의 잠금이 풀렸습니다") }
        try renew(with: client)
        if state.withLock({ $0.lost }) {
            release()
            throw ConflictError(
                "the lock on \(target) expired and was taken over while this command ran (it was not renewed within \(ttl) s); nothing more was changed",
                ko: "이 명령이 실행되는 동안 \(target)의 잠금이 만료되어 다른 쪽으로 넘어갔습니다 (\(ttl)초 안에 갱신되지 않았습니다); 더는 아무것도 바꾸지 않았습니다")
        }
    }

    /// Stops the renewals and deletes the lock if it is still this holder's (conditional delete).
    func release() {
        let (wasReleased, lost, etag) = state.withLock { held -> (Bool, Bool, String) in
            let was = held.released
            held.released = true
            return (was, held.lost, held.etag)
        }
        guard !wasReleased, !lost else { return }
        // Read first: a server that ignores If-Match on a delete must not remove a lock that
        // someone else took over meanwhile.
        guard let current = try? client.get(Self.key), S3Client.sameETag(current.etag, etag) else { return }
        _ = try? client.delete(Self.key, ifMatch: etag)
    }

    static func hostName() -> String {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func bootID() -> String? {
        (try? FileSystem.readFile("/proc/sys/kernel/random/boot_id")).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: " \n") }
    }

    /// The start time of a process (field 22 of /proc/<pid>/stat, in clock ticks since boot):
    /// with the pid it names one process, even after the pid is reused.
    static func processStart(_ pid: Int32) -> String? {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // The command name (field 2) is in parentheses and may hold spaces: count after it.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
