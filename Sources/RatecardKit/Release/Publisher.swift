import Glibc
import Synchronization

/// Stages a release beside the live one and swaps `current` to it, crash-safely.
///
/// Protocol (reliability.md §4): lock, recover, stage into `releases/.partial-<id>` (hard-linking
/// files unchanged since the live release), write version.json last, flush the filesystem,
/// verify what was written, rename to `releases/<id>`, swap `current` with one rename(2), fsync,
/// journal. A failure at any step leaves `current` as it was; the next run removes the rest.
public struct Publisher {
    /// How many earlier releases' data folders a new release carries (pages loaded from them keep working).
    public static let carriedReleases = 5

    public var root: ServeRoot

    public init(root: ServeRoot) { self.root = root }

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

        public init(bundle: BundleBuilder.Output, webFolder: String?, author: String, message: String, expectLive: String?, wait: Bool, action: String = "publish", extra: [String: JSON] = [:], staleFrom: Day? = nil) {
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

    /// Files of the new release and where each comes from.
    struct Staged {
        var files: [BundleManifest.File] = []
        var bytes: [String: [UInt8]] = [:]
        /// Path in the release -> absolute path of an identical file to hard-link.
        var links: [String: String] = [:]
        /// Link sources already hash-checked by the builder (an incremental build's reused files).
        var checked: Set<String> = []
        var carried: [String] = []
        /// The live release's version.json, read while staging.
        var liveInfo: ReleaseInfo?
    }

    /// What would change, without touching the root.
    public func plan(_ request: Request) throws -> (plan: ReleasePlan, live: String?) {
        let live = try root.live()
        let staged = try stage(request, live: live)
        let liveInfo = staged.liveInfo
        let liveFiles = liveInfo.map { info in info.files.filter { !info.isCarried($0.path) } } ?? []
        let newFiles = staged.files.filter { file in !staged.carried.contains { file.path.hasPrefix(BundleLayout.dataFolder($0)) } }
        return (ReleasePlan.between(live: liveFiles, next: newFiles), live)
    }

    public func publish(_ request: Request, onWait: (String) -> Void = { _ in }) throws -> Outcome {
        let lock = try ReleaseLock.acquire(root: root.path, command: request.action, wait: request.wait, onWait: onWait)
        defer { withExtendedLifetime(lock) {} }
        CrashPoint.hit("locked")
        try root.recover()
        CrashPoint.hit("recovered")
        let live = try root.live()
        if let expected = request.expectLive, expected != (live ?? "none") {
            throw ConflictError("live is \(live ?? "none"), not \(expected) as expected (--expect-live, or the release the approval gate compared with); nothing was changed")
        }
        Trace.mark("publish: locked and recovered")
        var staged = try stage(request, live: live)
        Trace.mark("publish: staged \(staged.files.count) files")
        let liveInfo = staged.liveInfo
        let newOwn = staged.files.filter { file in !staged.carried.contains { file.path.hasPrefix(BundleLayout.dataFolder($0)) } }
        if let liveInfo, let live, liveInfo.contentKey == ReleaseInfo.contentKey(of: newOwn) {
            return .alreadyLive(id: live)
        }
        let plan = ReleasePlan.between(live: liveInfo.map { info in info.files.filter { !info.isCarried($0.path) } } ?? [], next: newOwn)
        let id = try nextID(bundleID: request.bundle.manifest.bundleID)
        let info = ReleaseInfo(
            id: id, bundleID: request.bundle.manifest.bundleID, sourceCommit: request.bundle.manifest.sourceCommit?.hex,
            asOf: request.bundle.manifest.asOf.description, publishedAt: Timestamp.now(), author: request.author,
            user: ProcessUser.name, message: request.message, carried: staged.carried, staleFrom: request.staleFrom?.description,
            bridge: request.bridge, files: staged.files)
        staged.bytes[ReleaseInfo.fileName] = info.bytes()
        Trace.mark("publish: version.json")
        do {
            let written = try write(staged, id: id)
            try root.swap(to: id)
            Trace.mark("publish: swapped")
            var fields = JournalFields.base(action: request.action)
            fields["release"] = .string(id)
            fields["previous"] = live.map(JSON.string) ?? .null
            fields["bundle_id"] = .string(info.bundleID)
            fields["commit"] = info.sourceCommit.map(JSON.string) ?? .null
            fields["author"] = .string(request.author)
            fields["message"] = .string(request.message)
            fields[ServeRoot.sealField] = .string(SHA256.hex(staged.bytes[ReleaseInfo.fileName]!))
            for (key, value) in request.extra { fields[key] = value }
            // The release is live now: a journal that cannot be written must not turn that into a
            // failure (exit 4 promises live is unchanged). The next run's recovery records the swap.
            root.journalAfterSwap(fields)
            CrashPoint.hit("journaled")
            // Best effort: without the record the next publish hashes what it links.
            try? VerifiedFiles.record(staged.files, in: root.folder(of: id), root: root.path)
            Trace.mark("publish: recorded")
            return .published(id: id, previous: live, plan: plan, bytesWritten: written, filesLinked: staged.links.count)
        } catch {
            try? FileSystem.removeTree(root.releasesFolder + "/.partial-\(id)")
            var fields = JournalFields.base(action: "failure")
            fields["attempted"] = .string(request.action)
            fields["release"] = .string(id)
            fields["error"] = .string("\(error)")
            try? root.journal.append(fields)
            throw error
        }
    }

    /// Collects the new release's files: web build, bundle, and carried data folders.
    func stage(_ request: Request, live: String?) throws -> Staged {
        var staged = Staged()
        var entries: [String: BundleManifest.File] = [:]
        if let web = request.webFolder {
            for path in try ReleaseFiles.list(web) where !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                let bytes = try FileSystem.readFile(web + "/" + path)
                staged.bytes[path] = bytes
                entries[path] = BundleManifest.File(path: path, sha256: SHA256.hex(bytes), size: bytes.count)
            }
        }
        let hashes = Dictionary(request.bundle.manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for (path, bytes) in request.bundle.files {
            if entries[path] != nil { throw OperationalError("the web build and the bundle both have \(path); rename it in the web build") }
            staged.bytes[path] = bytes
            entries[path] = hashes[path] ?? BundleManifest.File(path: path, sha256: SHA256.hex(bytes), size: bytes.count)
        }
        // Files an incremental build reused: linked from the file it named and hash-checked.
        for (path, source) in request.bundle.reused {
            if entries[path] != nil { throw OperationalError("the web build and the bundle both have \(path); rename it in the web build") }
            guard let file = hashes[path] else { throw OperationalError("the bundle's manifest does not list \(path)") }
            entries[path] = file
            staged.links[path] = source
            staged.checked.insert(path)
        }
        // Index identical files already on disk (live release first) so unchanged bytes are linked, not copied.
        var onDisk: [String: String] = [:]
        var history = try activationHistory()
        if let live { history.removeAll { $0 == live }; history.insert(live, at: 0) }
        var carriedCount = 0
        for release in history.prefix(Publisher.carriedReleases + 1) {
            // Once the carried folders are chosen, older releases only add link sources that
            // the live release (which carries their data) mostly has already.
            if carriedCount >= Publisher.carriedReleases || staged.carried.count >= Publisher.carriedReleases { break }
            let folder = root.folder(of: release)
            guard let info = try? ReleaseInfo.read(from: folder) else { continue }
            if release == live { staged.liveInfo = info }
            for file in info.files where onDisk["\(file.sha256)/\(file.size)"] == nil {
                onDisk["\(file.sha256)/\(file.size)"] = folder + "/" + file.path
            }
            if carriedCount < Publisher.carriedReleases {
                carriedCount += 1
                for bundle in [info.bundleID] + info.carried where bundle != request.bundle.manifest.bundleID && !staged.carried.contains(bundle) {
                    let prefix = BundleLayout.dataFolder(bundle)
                    let files = info.files.filter { $0.path.hasPrefix(prefix) }
                    guard !files.isEmpty, staged.carried.count < Publisher.carriedReleases else { continue }
                    staged.carried.append(bundle)
                    for file in files { entries[file.path] = file }
                }
            }
        }
        if let live, staged.liveInfo == nil { staged.liveInfo = try ReleaseInfo.read(from: root.folder(of: live)) }
        staged.files = entries.values.sorted { $0.path < $1.path }
        for file in staged.files where !staged.checked.contains(file.path) {
            if let source = onDisk["\(file.sha256)/\(file.size)"] { staged.links[file.path] = source }
        }
        staged.carried.sort()
        return staged
    }

    /// Writes the staged release and renames it complete. Returns the bytes written (not linked).
    private func write(_ staged: Staged, id: String) throws -> Int {
        let partial = root.releasesFolder + "/.partial-\(id)"
        let needed = staged.files.filter { staged.links[$0.path] == nil }.reduce(0) { $0 + $1.size }
        try checkSpace(needed: needed + (staged.bytes[ReleaseInfo.fileName]?.count ?? 0))
        guard mkdir(partial, 0o755) == 0 else { throw FileSystem.failure("mkdir", partial) }
        CrashPoint.hit("staged")
        let folders = try ParallelWrite.makeFolders(for: staged.files.map(\.path), in: partial)
        Trace.mark("publish: \(folders) folders made")
        // An unchanged file is hard-linked after its source is checked (a file changed on disk
        // since its release was published must not be carried on): by the stat data recorded
        // after the last publish, else by its hash. All checks come before any link, which
        // would move the ctimes they compare. Both steps are split over two threads.
        let listed = Dictionary(staged.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let verified = VerifiedFiles.load(root: root.path)
        Trace.mark("publish: verified record read")
        var firstUse: [String: String] = [:]
        for file in staged.files where !staged.checked.contains(file.path) {
            if let source = staged.links[file.path], firstUse[source] == nil { firstUse[source] = file.path }
        }
        let sources = firstUse.sorted { $0.key < $1.key }
        let checks = ParallelMap.map(sources) { verified.matches($0.key, listed[$0.value]!) }
        let intactSources = Set(zip(sources, checks).filter(\.1).map(\.0.key))
        Trace.mark("publish: \(sources.count) link sources checked")
        let tally = Tally()
        try ParallelWrite.each(staged.files.map(\.path)) { path in
            let target = partial + "/" + path
            if let source = staged.links[path] {
                let intact = staged.checked.contains(path) || intactSources.contains(source)
                if intact, link(source, target) == 0 { return }
                if !intact, staged.bytes[path] == nil {
                    throw OperationalError("\(source) changed on disk since its release was published, and \(path) has no other copy; run 'ratecard verify' and restore it (or prune that release)")
                }
            }
            guard let bytes = staged.bytes[path] ?? (staged.links[path].flatMap { try? FileSystem.readFile($0) }) else {
                throw OperationalError("no bytes for \(path)")
            }
            try DurableFiles.create(target, bytes, sync: false)
            tally.add(bytes.count)
        }
        var written = tally.total
        CrashPoint.hit("files-written")
        Trace.mark("publish: files written and linked")
        let version = staged.bytes[ReleaseInfo.fileName]!
        try DurableFiles.create(partial + "/" + ReleaseInfo.fileName, version, sync: false)
        written += version.count
        CrashPoint.hit("version-written")
        try DurableFiles.syncFilesystem(of: partial)
        CrashPoint.hit("synced")
        Trace.mark("publish: synced")
        // Verify what was written (linked files were verified when first published).
        for file in staged.files where staged.links[file.path] == nil {
            let bytes = try FileSystem.readFile(partial + "/" + file.path)
            guard bytes.count == file.size, SHA256.hex(bytes) == file.sha256 else {
                throw OperationalError("\(file.path) reads back different from what was written; the disk may be failing")
            }
        }
        CrashPoint.hit("verified")
        Trace.mark("publish: verified")
        guard rename(partial, root.folder(of: id)) == 0 else { throw FileSystem.failure("rename", partial) }
        try DurableFiles.syncDirectory(root.releasesFolder)
        CrashPoint.hit("renamed")
        return written
    }

    /// Whether the file at `path` has the size and hash `file` lists.
    static func matches(_ path: String, _ file: BundleManifest.File) -> Bool {
        guard let bytes = try? FileSystem.readFile(path) else { return false }
        return bytes.count == file.size && SHA256.hex(bytes) == file.sha256
    }

    private func checkSpace(needed: Int) throws {
        var info = statvfs()
        guard statvfs(root.releasesFolder, &info) == 0 else { throw FileSystem.failure("statvfs", root.releasesFolder) }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        if free < needed * 2 + 65536 {
            throw OperationalError("not enough space in \(root.releasesFolder): the release needs \(needed) bytes (twice that free to be safe), \(free) are free")
        }
    }

    /// Releases that were live, newest first, without repeats.
    func activationHistory() throws -> [String] {
        var seen: Set<String> = []
        return try root.journal.entries().reversed().compactMap(\.activated).filter { seen.insert($0).inserted }
    }

    /// `000042-3f2a9c0d1e4b`: a sequence number above every release ever seen, and the bundle id.
    private func nextID(bundleID: String) throws -> String {
        var highest = 0
        let names = try root.releaseIDs() + root.journal.entries().compactMap(\.release)
        for name in names { highest = max(highest, Int(name.prefix { $0.isNumber }) ?? 0) }
        let number = String(highest + 1)
        return String(repeating: "0", count: max(0, 6 - number.count)) + number + "-" + String(bundleID.prefix(12))
    }
}

extension ReleaseInfo {
    static func contentKey(of files: [BundleManifest.File]) -> String {
        SHA256.hex(files.map { "\($0.sha256) \($0.path)\n" }.joined())
    }
}

/// A byte count that two writer threads add to.
private final class Tally: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ bytes: Int) { count.add(bytes, ordering: .relaxed) }
    var total: Int { count.load(ordering: .relaxed) }
}
