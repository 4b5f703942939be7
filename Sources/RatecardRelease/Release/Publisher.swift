import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport

/// Publishes a release into a target's object store and flips its pointer to it, crash-safely.
///
/// Protocol (ARCHITECTURE.md, "The flow of a publish"; against `ReleaseStore`): stage in memory (`stage`; the flow
/// answers the checks that ran beside the build before it goes on), lock, recover, put
/// every object the release names that the store lacks and the live release does not name
/// (locally: written, flushed, read back, renamed into place; in a bucket: created with
/// If-None-Match; present ones are checked, never overwritten), put the release manifest
/// (version.json; the store makes the entry files from it: hard links in a folder, each object
/// checked first, copies under `r/<id>/` in a bucket), confirm the lock is still
/// held, flip the pointer with compare-and-swap, journal, unlock. A failure at any step leaves
/// the pointer as it was; the next run removes the rest. Objects are shared by every release,
/// so a publish costs what changed and a page loaded from any kept release finds every object
/// it references after any number of publishes and rollbacks. What the release holds is
/// whatever the request stages: the protocol never looks inside the bundle.
public struct Publisher {
    public var target: any ReleaseStore

    public init(root: any ReleaseStore) { self.target = root }

    /// A release to publish: a built bundle plus the web build.
    public struct Request {
        public var bundle: BundleBuilder.Output
        public var webFolder: String?
        public var author: String
        public var message: String
        public var expectLive: String? = nil
        public var wait = true
        public var action = "publish"
        /// More journal fields (the approval given).
        public var extra: [String: JSON] = [:]
        /// The first day the release is no longer current (`Content.nextScheduledChange`).
        public var staleFrom: Day? = nil
        /// The last day of each shown product's compliance review, for version.json.
        public var reviewEnds: [String: Day] = [:]
        /// What the web build needs from the app (`BridgeRequirement.json`), for version.json.
        public var bridge: JSON? = nil
        /// The live release's version.json as read before the lock: used when that release is
        /// still live under the lock (a release's version.json never changes).
        public var knownLive: ReleaseInfo? = nil
        /// `--rollout`: the share of installs (basis points) the release reaches first; live stays
        /// where it is (`Rollouts`). Nil: the release goes live for everyone.
        public var rollout: Int? = nil
        /// `publish --if-stale` while a rollout is open and something is stale: the id of the
        /// rollout to halt (kept good) under the lock before live is refreshed.
        public var haltRollout: String? = nil
        /// Judged under the lock, after recovery, on what was read there (the journal among it):
        /// given what is live and its version.json, throws to refuse the release, or returns
        /// more journal fields (`--force` over a bundle marked bad). Nil: nothing to judge.
        public var checkUnderLock: ((_ live: String?, _ liveInfo: ReleaseInfo?) throws -> [String: JSON])? = nil

        public init(bundle: BundleBuilder.Output, webFolder: String?, author: String, message: String) {
            self.bundle = bundle
            self.webFolder = webFolder
            self.author = author
            self.message = message
        }
    }

    public enum Outcome: Equatable {
        case published(id: String, previous: String?, plan: ReleasePlan, bytesWritten: Int, filesLinked: Int)
        case alreadyLive(id: String)
    }

    /// Files of the new release and their bytes (none for a file an incremental build reused:
    /// its object is in the store already).
    public struct Staged {
        var files: [BundleManifest.File] = []
        var bytes: [String: [UInt8]] = [:]
        /// The live release's version.json, read while staging.
        var liveInfo: ReleaseInfo?
    }

    /// What would change, without touching the root.
    public func plan(_ staged: Staged, _ request: Request) throws -> (plan: ReleasePlan, live: String?) {
        let live = try target.live()
        var staged = staged
        try readLive(live, for: request, into: &staged)
        return (Self.plan(staged, request), live)
    }

    /// The file changes from the live release to the staged one, data files compared by their
    /// place in the data folder.
    static func plan(_ staged: Staged, _ request: Request) -> ReleasePlan {
        ReleasePlan.between(
            live: ownFiles(staged.liveInfo), next: staged.files, liveBundle: staged.liveInfo?.bundleID, nextBundle: request.bundle.manifest.bundleID)
    }

    /// A release's own files (a release of the folder layout also lists the data of earlier
    /// bundles it carried).
    static func ownFiles(_ info: ReleaseInfo?) -> [BundleManifest.File] {
        info.map { info in info.files.filter { !info.isCarried($0.path) } } ?? []
    }

    /// Publishes `request`: stages it in memory, then `publish(_:_:onWait:)`.
    public func publish(_ request: Request, onWait: (Message) -> Void = { _ in }, onWarning: (Message) -> Void = { _ in }) throws -> Outcome {
        try publish(try stage(request), request, onWait: onWait, onWarning: onWarning)
    }

    /// The rollout `Request.haltRollout` named, halted under the lock: its release and id.
    public typealias HaltedRollout = (release: String, id: String)

    /// The protocol's steps, in order, for a release already staged: lock and recover, read the
    /// live release, write version.json's content, put the objects and the release, flip, journal.
    /// `onWarning` hears what went wrong after the flip without undoing it.
    public func publish(
        _ staged: Staged, _ request: Request, onWait: (Message) -> Void = { _ in }, onWarning: (Message) -> Void = { _ in },
        onHalted: (HaltedRollout) -> Void = { _ in }
    ) throws -> Outcome {
        Trace.mark("publish: staged \(staged.files.count) files")
        let change = try LiveChange.begin(
            target, command: request.action, wait: request.wait, onWait: onWait, expectLive: request.expectLive, crashPoints: ("locked", "recovered"))
        defer { change.end() }
        var staged = staged
        try readLive(change.live, for: request, into: &staged)
        Trace.mark("publish: locked and recovered")
        var request = request
        if let check = request.checkUnderLock { request.extra.merge(try check(change.live, staged.liveInfo)) { $1 } }
        // A scheduled refresh during a rollout: the rollout is halted first (kept good), even
        // when the refresh itself finds live as it would build it.
        if let id = request.haltRollout, let halted = try Rollouts.haltForRefresh(root: target, live: change.live, id: id, message: request.message) {
            onHalted((halted.release, halted.id))
        }
        if let liveInfo = staged.liveInfo, let live = change.live, liveInfo.serves(staged.files) {
            return .alreadyLive(id: live)
        }
        // One rollout at a time, and none overtaken by a release made live for everyone.
        if request.rollout != nil { try Self.requireRolloutBase(target, live: change.live) } else { try Rollouts.requireNone(target, live: change.live) }
        let info = ReleaseInfo(
            id: try target.nextReleaseID(bundleID: request.bundle.manifest.bundleID), bundleID: request.bundle.manifest.bundleID,
            sourceCommit: request.bundle.manifest.sourceCommit, asOf: request.bundle.manifest.asOf.description, publishedAt: Timestamp.now(),
            author: request.author, user: ProcessUser.name, message: request.message, carried: [], staleFrom: request.staleFrom?.description,
            bridge: request.bridge, files: staged.files, format: ObjectLayout.format, reviewEnds: request.reviewEnds.mapValues(\.description))
        let manifest = info.bytes()
        let failed = { (error: any Error) in journalFailure(error, release: info.id, request) }
        let written: Int
        do {
            written = try put(staged, manifest: manifest, info: info, change: change)
        } catch {
            failed(error)
            throw error
        }
        let requires = request.bridge?["requires"]?.intValue ?? 0
        if let share = request.rollout {
            try change.confirm()
            let fields = Self.journalFields(info, seal: SHA256.hex(manifest), previous: change.live, request)
            _ = try Rollouts.start(root: target, fields: fields, release: info.id, share: share, requires: requires)
            let linked = staged.files.filter { target.inEntryFolder($0.path, format: info.format) }.count
            return .published(id: info.id, previous: change.live, plan: Self.plan(staged, request), bytesWritten: written, filesLinked: linked)
        }
        change.lists.keep(info.id, manifest: manifest, info: info, environment: LiveStatements.environment(of: target))
        try change.makeLive(info.id, journal: Self.journalFields(info, seal: SHA256.hex(manifest), previous: change.live, request), bridgeRequires: requires, failed: failed, warn: onWarning)
        let linked = staged.files.filter { target.inEntryFolder($0.path, format: info.format) }.count
        return .published(id: info.id, previous: change.live, plan: Self.plan(staged, request), bytesWritten: written, filesLinked: linked)
    }

    /// Refuses a rollout (exit 3) when nothing is live (there is no release for the rest of the
    /// installs) or another rollout is in progress.
    static func requireRolloutBase(_ target: any ReleaseStore, live: String?) throws {
        guard live != nil else {
            throw ConflictError(
                "nothing is live in \(target.displayName) yet, so a rollout has no release for the other installs; nothing was changed. Publish without --rollout first",
                ko: "\(target.displayName)에 아직 라이브 릴리스가 없어 단계적 배포가 나머지 설치에 줄 릴리스가 없습니다; 아무것도 바꾸지 않았습니다. 먼저 --rollout 없이 게시하세요")
        }
        try Rollouts.requireNone(target, live: live)
    }

    /// Puts the objects the release names that the store lacks, then the release itself; the
    /// lock is confirmed after each (uploading can take long). Returns the bytes written.
    func put(_ staged: Staged, manifest: [UInt8], info: ReleaseInfo, change: LiveChange) throws -> Int {
        // The objects the live release names are in the store whole (objects are written once,
        // verified, never changed, and nothing deletes what a kept release names): they are
        // not looked up again, as git trusts the objects it has and Nix its valid paths.
        // `ratecard verify` re-hashes them.
        let objects = try target.put(Self.objects(of: staged, skipping: staged.liveInfo?.objectNames ?? []))
        Trace.mark("publish: objects put (\(objects) bytes written)")
        try change.confirm()
        let release = try target.put([StoreItem(key: .release(info.id), sha256: SHA256.hex(manifest), size: manifest.count, bytes: manifest, info: info)])
        Trace.mark("publish: release put")
        return objects + release
    }

    /// The journal entry of a publish: what went live, from what, and the seal of its version.json.
    static func journalFields(_ info: ReleaseInfo, seal: String, previous: String?, _ request: Request) -> [String: JSON] {
        var fields = JournalFields.base(action: request.action)
        fields["release"] = .string(info.id)
        fields["previous"] = previous.map(JSON.string) ?? .null
        fields["bundle_id"] = .string(info.bundleID)
        fields["commit"] = info.sourceCommit.map { .string($0.hex) } ?? .null
        fields["as_of"] = .string(info.asOf)
        fields["author"] = .string(request.author)
        fields["message"] = .string(request.message)
        fields[JournalFields.seal] = .string(seal)
        fields["bridge_requires"] = .int(request.bridge?["requires"]?.intValue ?? 0)
        for (key, value) in request.extra { fields[key] = value }
        return fields
    }

    /// Journals a publish that failed before its release went live (nothing was made live).
    func journalFailure(_ error: any Error, release: String, _ request: Request) {
        var fields = JournalFields.base(action: "failure")
        fields["attempted"] = .string(request.action)
        fields["release"] = .string(release)
        fields["error"] = .string("\(error)")
        try? target.journalLog.append(fields)
    }

    /// One store item per object the staged release names, but those in `present`.
    static func objects(of staged: Staged, skipping present: Set<String> = []) -> [StoreItem] {
        var seen = present
        var items: [StoreItem] = []
        for file in staged.files {
            let name = ObjectLayout.objectName(file)
            guard seen.insert(name).inserted else { continue }
            items.append(StoreItem(key: .object(name), sha256: file.sha256, size: file.size, bytes: staged.bytes[file.path]))
        }
        return items
    }

    /// Collects the new release's files: the web build and the bundle, with the release's copies
    /// of `data/manifest.json` and `data/entry.json` saying where the objects are served.
    public func stage(_ request: Request) throws -> Staged {
        var staged = Staged()
        var entries: [String: BundleManifest.File] = [:]
        if let web = request.webFolder {
            for path in try ReleaseFiles.webBuild(web) {
                let bytes = try FileSystem.readFile(web + "/" + path)
                staged.bytes[path] = bytes
                entries[path] = BundleManifest.File(path: path, sha256: SHA256.hex(bytes), size: bytes.count)
            }
        }
        let hashes = Dictionary(request.bundle.manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        entries.reserveCapacity(request.bundle.manifest.files.count + entries.count + 2)
        for (path, bytes) in request.bundle.files {
            if entries[path] != nil { throw RefusedError("the web build and the bundle both have \(path); rename it in the web build", ko: "웹 빌드와 번들에 모두 \(path)이(가) 있습니다; 웹 빌드 쪽의 이름을 바꾸세요") }
            staged.bytes[path] = bytes
            entries[path] = hashes[path] ?? BundleManifest.File(path: path, sha256: SHA256.hex(bytes), size: bytes.count)
        }
        // The release's copies of the two entry documents also say where its objects are served
        // (a bundle built onto the live one has them so already).
        if request.bundle.manifest.objects != ObjectLayout.urlPrefix {
            var manifest = request.bundle.manifest
            manifest.objects = ObjectLayout.urlPrefix
            for (path, bytes) in [(BundleLayout.manifest, manifest.bytes()), (BundleLayout.entry, EntryDocument.bytes(manifest, objects: ObjectLayout.urlPrefix))] {
                staged.bytes[path] = bytes
                entries[path] = BundleManifest.File(path: path, sha256: SHA256.hex(bytes), size: bytes.count)
            }
        }
        // Files an incremental build reused: their objects are in the store (checked by the put).
        for path in request.bundle.reused.keys {
            if entries[path] != nil { throw RefusedError("the web build and the bundle both have \(path); rename it in the web build", ko: "웹 빌드와 번들에 모두 \(path)이(가) 있습니다; 웹 빌드 쪽의 이름을 바꾸세요") }
            guard let file = hashes[path] else { throw OperationalError("the bundle's manifest does not list \(path)", ko: "번들 매니페스트에 \(path)이(가) 없습니다") }
            entries[path] = file
        }
        // In the manifest's order, then the rest: sorting an almost sorted list is one pass.
        var ordered = request.bundle.manifest.files.compactMap { entries.removeValue(forKey: $0.path) }
        ordered += entries.values
        staged.files = ordered.sorted { $0.path < $1.path }
        return staged
    }

    /// Adds the live release's version.json to what is staged (read under the lock), and the
    /// bytes of reused files a live release in the folder layout has no objects for.
    func readLive(_ live: String?, for request: Request, into staged: inout Staged) throws {
        guard let live else { return }
        staged.liveInfo = try request.knownLive.flatMap { $0.id == live ? $0 : nil } ?? target.info(of: live)
        if let liveInfo = staged.liveInfo, liveInfo.format < ObjectLayout.objectsSince {
            for (path, source) in request.bundle.reused { staged.bytes[path] = try target.readFile(source, of: live, info: liveInfo) }
        }
    }
}
