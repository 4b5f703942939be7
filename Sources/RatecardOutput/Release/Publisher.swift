import Glibc
import RatecardCore
import RatecardSupport
import Synchronization

/// Publishes a release into a target's object store and flips its pointer to it, crash-safely.
///
/// Protocol (reliability.md §4, against `ReleaseStore` and `ReleaseStore`): stage in memory,
/// answer the checks that ran beside the build (`Request.beforeWriting`), lock, recover, put
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
        public var expectLive: String?
        public var wait: Bool
        public var action: String
        public var extra: [String: JSON]
        /// The first day the release is no longer current (`Content.nextScheduledChange`).
        public var staleFrom: Day?
        /// What the web build needs from the app (`BridgeRequirement.json`), for version.json.
        public var bridge: JSON? = nil
        /// The live release's version.json as read before the lock: used when that release is
        /// still live under the lock (a release's version.json never changes).
        public var knownLive: ReleaseInfo? = nil
        /// Called once the release is staged in memory, before anything is written or locked: a
        /// check that ran beside the build (the dirty check) answers here, and a throw refuses
        /// the publish with nothing changed.
        public var beforeWriting: (() throws -> Void)? = nil

        public init(
            bundle: BundleBuilder.Output, webFolder: String?, author: String, message: String, expectLive: String?, wait: Bool, action: String = "publish", extra: [String: JSON] = [:],
            staleFrom: Day? = nil
        ) {
            self.bundle = bundle
            self.webFolder = webFolder
            self.author = author
            self.message = message
            self.expectLive = expectLive
            self.wait = wait
            self.action = action
            self.extra = extra
            self.staleFrom = staleFrom
        }
    }

    public enum Outcome: Equatable {
        case published(id: String, previous: String?, plan: ReleasePlan, bytesWritten: Int, filesLinked: Int)
        case alreadyLive(id: String)
    }

    /// Files of the new release and their bytes (none for a file an incremental build reused:
    /// its object is in the store already).
    struct Staged {
        var files: [BundleManifest.File] = []
        var bytes: [String: [UInt8]] = [:]
        /// The live release's version.json, read while staging.
        var liveInfo: ReleaseInfo?
    }

    /// What would change, without touching the root.
    public func plan(_ request: Request) throws -> (plan: ReleasePlan, live: String?) {
        let live = try target.live()
        var staged = try stage(request)
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

    public func publish(_ request: Request, onWait: (Message) -> Void = { _ in }) throws -> Outcome {
        var staged = try stage(request)
        Trace.mark("publish: staged \(staged.files.count) files")
        try request.beforeWriting?()
        let lock = try target.acquireLock(command: request.action, wait: request.wait, onWait: onWait)
        defer { lock.release() }
        CrashPoint.hit("locked")
        try target.recover()
        try BridgeLines.repair(root: target)
        CrashPoint.hit("recovered")
        let live = try target.live()
        if let expected = request.expectLive, expected != (live ?? "none") {
            throw ConflictError(
                "live is \(live ?? "none"), not \(expected) as expected (--expect-live, or the release the approval gate compared with); nothing was changed",
                ko: "라이브 릴리스가 예상한 \(expected)이(가) 아니라 \(live ?? "없음")입니다 (--expect-live, 또는 승인 관문이 비교한 릴리스); 아무것도 바꾸지 않았습니다")
        }
        try readLive(live, for: request, into: &staged)
        Trace.mark("publish: locked and recovered")
        if let liveInfo = staged.liveInfo, let live, liveInfo.serves(staged.files) {
            return .alreadyLive(id: live)
        }
        let plan = Self.plan(staged, request)
        let id = try target.nextReleaseID(bundleID: request.bundle.manifest.bundleID)
        let info = ReleaseInfo(
            id: id, bundleID: request.bundle.manifest.bundleID, sourceCommit: request.bundle.manifest.sourceCommit,
            asOf: request.bundle.manifest.asOf.description, publishedAt: Timestamp.now(), author: request.author,
            user: ProcessUser.name, message: request.message, carried: [], staleFrom: request.staleFrom?.description,
            bridge: request.bridge, files: staged.files, format: ObjectLayout.format)
        let manifest = info.bytes()
        let seal = SHA256.hex(manifest)
        Trace.mark("publish: version.json")
        let written: Int
        let entries: Int
        var afterFlip: AfterFlipError?
        do {
            let store = target
            // The objects the live release names are in the store whole (objects are written once,
            // verified, never changed, and nothing deletes what a kept release names): they are
            // not looked up again, as git trusts the objects it has and Nix its valid paths.
            // `ratecard verify` re-hashes them.
            written = try store.put(Self.objects(of: staged, skipping: staged.liveInfo?.objectNames ?? []))
            Trace.mark("publish: objects put (\(written) bytes written)")
            // Uploading can take long: the lock is renewed (and must still be ours) before the release goes in.
            try lock.confirm()
            entries = try store.put([StoreItem(key: .release(id), sha256: seal, size: manifest.count, bytes: manifest, info: info)])
            Trace.mark("publish: release put")
            try lock.confirm()
            do {
                try store.flip(expected: live, to: id)
            } catch let error as AfterFlipError {
                afterFlip = error
            }
            Trace.mark("publish: swapped")
            var fields = JournalFields.base(action: request.action)
            fields["release"] = .string(id)
            fields["previous"] = live.map(JSON.string) ?? .null
            fields["bundle_id"] = .string(info.bundleID)
            fields["commit"] = info.sourceCommit.map { .string($0.hex) } ?? .null
            fields["author"] = .string(request.author)
            fields["message"] = .string(request.message)
            fields[ServeRoot.sealField] = .string(seal)
            fields["bridge_requires"] = .int(request.bridge?["requires"]?.intValue ?? 0)
            for (key, value) in request.extra { fields[key] = value }
            // The release is live now: a journal that cannot be written must not turn that into a
            // failure (exit 4 promises live is unchanged). The next run's recovery records the swap.
            target.journalAfterSwap(fields)
            CrashPoint.hit("journaled")
        } catch {
            var fields = JournalFields.base(action: "failure")
            fields["attempted"] = .string(request.action)
            fields["release"] = .string(id)
            fields["error"] = .string("\(error)")
            try? target.journalLog.append(fields)
            throw error
        }
        // Live has moved: the lines apps of older bridge versions read follow under the same lock.
        try BridgeLines.updateAfterChange(root: target, live: id, known: request.bridge?["requires"]?.intValue.map { [id: $0] } ?? [:])
        CrashPoint.hit("lines-written")
        if let afterFlip { throw OperationalError(afterFlip.text) }
        let linked = staged.files.filter { ObjectLayout.inEntryFolder($0.path) }.count
        return .published(id: id, previous: live, plan: plan, bytesWritten: written + entries, filesLinked: linked)
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
    func stage(_ request: Request) throws -> Staged {
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

    /// Whether the file at `path` has the size and hash `file` lists.
    static func matches(_ path: String, _ file: BundleManifest.File) -> Bool {
        guard let bytes = try? FileSystem.readFile(path) else { return false }
        return bytes.count == file.size && SHA256.hex(bytes) == file.sha256
    }
}

/// A byte count that two writer threads add to.
final class Tally: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ bytes: Int) { count.add(bytes, ordering: .relaxed) }
    var total: Int { count.load(ordering: .relaxed) }
}
