import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport

/// A serve root: the object store, `current -> releases/<id>`, the releases, the journal and the lock.
///
/// State is named, not remembered: `objects/.incoming-*` holds objects not yet verified and
/// renamed into place, `releases/.partial-*` and `pages/.partial-*` are unfinished,
/// `releases/<id>` and `pages/<set>` are complete, `.current.tmp-*` is a link not yet swapped,
/// and what is live is `readlink(current)`.
public struct ServeRoot: ReleaseStore, Sendable {
    public let path: String
    /// What this value's puts checked, wrote and linked, and the stat data record they read:
    /// after a flip, what the next publish may rely on (`VerifiedFiles`).
    let session = LocalStore.Session()

    public var delivery: LiveDelivery? = nil

    public init(path: String) { self.path = path }

    public var releasesFolder: String { path + "/releases" }
    /// The object store shared by every release (`ObjectLayout`).
    public var objectsFolder: String { path + "/objects" }
    /// Terms page sets shared by the releases that have the same terms pages (`PageSets`).
    public var pagesFolder: String { path + "/pages" }
    /// The writer of objects and releases, with this value's session.
    var store: LocalStore { LocalStore(root: self, session: session) }
    public var currentLink: String { path + "/current" }
    public var journal: Journal { Journal(path: path + "/.ratecard/journal.jsonl") }

    public func folder(of release: String) -> String { releasesFolder + "/" + release }

    /// The live release id (`readlink(current)`), or nil before the first publish. A `current`
    /// that points at a release no longer on disk is an error that says how to mend it.
    public func live() throws -> String? {
        guard let id = try currentTarget() else { return nil }
        guard FileSystem.isDirectory(folder(of: id)) else {
            throw OperationalError(
                "\(currentLink) points at releases/\(id), which does not exist (removed by hand?); the server has nothing to serve. Make a kept release live with 'ratecard rollback --to <id>' (see 'ratecard releases')",
                ko: "\(currentLink)이(가) 가리키는 releases/\(id)이(가) 없습니다 (손으로 지웠나요?); 서버가 제공할 것이 없습니다. 보관된 릴리스를 'ratecard rollback --to <id>'로 라이브로 만드세요 ('ratecard releases' 참고)"
            )
        }
        return id
    }

    /// The release `current` names, whether or not it is on disk (rollback mends a dangling one).
    func currentTarget() throws -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(currentLink, &buffer, buffer.count - 1)
        if count < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == EINVAL {
                let kind = (try? FileSystem.kind(ofItemAt: currentLink)) == .directory ? "a folder" : "a file"
                throw OperationalError(
                    "\(currentLink) is \(kind), not the symlink ratecard swaps; ratecard did not make it. Move it out of the serve root, then publish or 'ratecard rollback --to <id>'",
                    ko: "\(currentLink)은(는) ratecard가 바꾸는 심볼릭 링크가 아니라 \(kind)입니다; ratecard가 만든 것이 아닙니다. 서빙 루트 밖으로 옮긴 다음 게시하거나 'ratecard rollback --to <id>'를 실행하세요")
            }
            throw FileSystem.failure("readlink", currentLink, code: code)
        }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard target.hasPrefix("releases/"), !target.dropFirst(9).contains("/"), !target.contains("..") else {
            throw OperationalError("\(currentLink) points at '\(target)', not at releases/<id>; fix it by hand", ko: "\(currentLink)이(가) releases/<id>가 아니라 '\(target)'을(를) 가리킵니다; 손으로 고치세요")
        }
        return String(target.dropFirst(9))
    }

    public typealias ReleaseMatch = RatecardRelease.ReleaseMatch

    /// Complete releases on disk, oldest first.
    public func releaseIDs() throws -> [String] {
        guard FileSystem.isDirectory(releasesFolder) else { return [] }
        return try FileSystem.listDirectory(releasesFolder).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Removes what a crash left (unfinished releases, unswapped links, half-deleted releases)
    /// and records a swap the journal missed. Idempotent; runs under the lock.
    @discardableResult
    public func recover() throws -> [String] {
        var removed: [String] = []
        try StateFiles.requireFolder(path + "/.ratecard", what: "ratecard's state folder")
        try StateFiles.requireFolder(releasesFolder, what: "releases/")
        try FileSystem.makeDirectories(releasesFolder)
        for name in try FileSystem.listDirectory(releasesFolder, prefix: ".") where name.hasPrefix(".partial-") || name.hasPrefix(".trash-") {
            try makeWritable(releasesFolder + "/" + name)
            try FileSystem.removeTree(releasesFolder + "/" + name)
            removed.append("releases/" + name)
        }
        try StateFiles.requireFolder(pagesFolder, what: "pages/")
        if FileSystem.isDirectory(pagesFolder) {
            for name in try FileSystem.listDirectory(pagesFolder, prefix: ".") where name.hasPrefix(".partial-") || name.hasPrefix(".trash-") {
                try makeWritable(pagesFolder + "/" + name)
                try FileSystem.removeTree(pagesFolder + "/" + name)
                removed.append("pages/" + name)
            }
        }
        for name in try FileSystem.listDirectory(path, prefix: ".current.tmp-") {
            unlink(path + "/" + name)
            removed.append(name)
        }
        try StateFiles.requireFolder(objectsFolder, what: "objects/")
        if FileSystem.isDirectory(objectsFolder) {
            for name in try FileSystem.listDirectory(objectsFolder, prefix: ".incoming-") {
                try makeWritable(objectsFolder + "/" + name)
                try FileSystem.removeTree(objectsFolder + "/" + name)
                removed.append("objects/" + name)
            }
        }
        // Page sets no release links to any more (a prune removed their releases, or a publish
        // failed after making one).
        removed += try store.removeUnlinkedPageSets().map { "pages/" + $0 }
        if !removed.isEmpty {
            if FileSystem.isDirectory(objectsFolder) { try DurableFiles.syncDirectory(objectsFolder) }
            if FileSystem.isDirectory(pagesFolder) { try DurableFiles.syncDirectory(pagesFolder) }
            try DurableFiles.syncDirectory(releasesFolder)
            try DurableFiles.syncDirectory(path)
        }
        try recoverJournal()
        return removed
    }

    // MARK: ReleaseStore

    public func location(of key: StoreKey?) -> String {
        switch key {
        case nil: return path
        case .object(let name)?: return objectsFolder + "/" + name
        case .release(let id)?: return folder(of: id) + "/" + ReleaseInfo.fileName
        case .entry(let release, let file)?: return folder(of: release) + "/" + file
        case .pointer?: return currentLink
        case .state(let name)?: return path + "/" + name
        }
    }

    public var journalLog: any JournalLog { journal }

    public var usage: JSON? { nil }

    /// The lock, in the root (made first when it is missing).
    public func acquireLock(command: String, wait: Bool, onWait: (Message) -> Void) throws -> any ReleaseLease {
        try FileSystem.makeDirectories(path)
        return try ReleaseLock.acquire(root: path, command: command, wait: wait, onWait: onWait)
    }

    public func read(_ keys: [StoreKey]) throws -> [[UInt8]?] {
        try keys.map { key -> [UInt8]? in
            switch key {
            case .pointer:
                return try currentTarget().map { Array($0.utf8) }
            case .object(let name):
                guard ObjectLayout.isObjectName(name) else { return nil }
                fallthrough
            default:
                return try StateFiles.readRegular(location(of: key))
            }
        }
    }

    public func list(_ kind: StoreKind) throws -> [StoreListing] {
        switch kind {
        case .releases:
            return try releaseIDs().map { StoreListing(name: $0, size: -1) }
        case .objects:
            guard FileSystem.isDirectory(objectsFolder) else { return [] }
            let folder = try FileSystem.Folder(objectsFolder)
            return try FileSystem.listDirectory(objectsFolder).filter(ObjectLayout.isObjectName).sorted().map { name in
                var info = stat()
                return StoreListing(name: name, size: folder.lstat(name, &info) ? Int(info.st_size) : -1)
            }
        }
    }

    @discardableResult
    public func put(_ items: [StoreItem]) throws -> Int { try store.put(items) }

    public func delete(_ keys: [StoreKey]) throws {
        var objects = false
        for key in keys {
            switch key {
            case .object(let name):
                guard ObjectLayout.isObjectName(name) else { throw OperationalError("'\(name)' is not an object name", ko: "'\(name)'은(는) 오브젝트 이름이 아닙니다") }
                if unlink(objectsFolder + "/" + name) != 0 && errno != ENOENT { throw FileSystem.failure("unlink", objectsFolder + "/" + name) }
                objects = true
                CrashPoint.hit("prune-object-removed")
            case .release(let id):
                let trash = releasesFolder + "/.trash-\(id)"
                guard rename(folder(of: id), trash) == 0 else { throw FileSystem.failure("rename", folder(of: id)) }
                try DurableFiles.syncDirectory(releasesFolder)
                try FileSystem.removeTree(trash)
            case .entry:
                if unlink(location(of: key)) != 0 && errno != ENOENT { throw FileSystem.failure("unlink", location(of: key)) }
            case .pointer: throw OperationalError("the pointer is never deleted", ko: "포인터는 지우지 않습니다")
            case .state: throw OperationalError("\(location(of: key)) is not deleted on its own", ko: "\(location(of: key))은(는) 따로 지우지 않습니다")
            }
        }
        if objects { try DurableFiles.syncDirectory(objectsFolder) }
    }

    /// Compare-and-swap on `current` (under the lock), then the record of what the release's
    /// objects look like on disk, so the next publish need not re-hash the ones it reuses.
    public func flip(expected: String?, to release: String) throws {
        let live = try currentTarget()
        guard live == expected else {
            throw ConflictError(
                "live is \(live ?? "none"), not \(expected ?? "none") as expected; nothing was changed", ko: "라이브 릴리스가 예상한 \(expected ?? "없음")이(가) 아니라 \(live ?? "없음")입니다; 아무것도 바꾸지 않았습니다")
        }
        try swap(to: release)
        if let info = session.putRelease(release) { store.recordPublished(info) }
    }

    public func write(state name: String, _ bytes: [UInt8]) throws {
        try DurableFiles.replace(path + "/" + name, bytes)
    }

    public func bytes(ofObjects names: [String]) throws -> Int {
        var total = 0
        for name in names {
            var info = stat()
            if lstat(objectsFolder + "/" + name, &info) == 0 { total += Int(info.st_size) }
        }
        return total
    }

    /// Points `current` at `release` with one rename(2) of a new symlink, then fsyncs the root.
    public func swap(to release: String) throws {
        let temporary = path + "/.current.tmp-\(release)-\(getpid())"
        unlink(temporary)
        guard symlink("releases/" + release, temporary) == 0 else { throw FileSystem.failure("symlink", temporary) }
        CrashPoint.hit("linked")
        guard rename(temporary, currentLink) == 0 else {
            let failure = FileSystem.failure("rename", currentLink)
            unlink(temporary)
            throw failure
        }
        try DurableFiles.syncDirectory(path)
        CrashPoint.hit("swapped")
        guard try live() == release else { throw OperationalError("current does not point at \(release) after the swap", ko: "교체 뒤에 current가 \(release)을(를) 가리키지 않습니다") }
    }

    /// Re-hashes a release against its version.json: the paths that are missing, changed or
    /// unlisted. For a release of the object layout, every object it names is re-hashed too
    /// (`missing object:`/`changed object:` name the file it holds). Local files are read as
    /// cheaply as they are listed, so `deep` or not, every file is re-hashed.
    public func drift(of release: String, deep: Bool = true) throws -> [String] {
        let folder = folder(of: release)
        let info = try ReleaseInfo.read(from: folder)
        var problems: [String] = []
        var listed: Set<String> = [ReleaseInfo.fileName]
        let objects = info.format >= ObjectLayout.objectsSince
        // Reading and hashing every file is the cost; two threads share it, results in order.
        @Sendable func check(_ full: String, _ file: BundleManifest.File, missing: String, changed: String) -> Result<String?, any Error> {
            var status = stat()
            guard lstat(full, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return .success("\(missing): \(file.path)") }
            return Result {
                let bytes = try FileSystem.readFile(full)
                if bytes.count != file.size || SHA256.hex(bytes) != file.sha256 { return "\(changed): \(file.path)" }
                // Published files are never written again: one that others may write could be
                // changed under the release at any time, though its bytes still match today.
                if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                    return "\(changed) mode: \(file.path) (\(String(status.st_mode & 0o777, radix: 8)), writable by others)"
                }
                return nil
            }
        }
        let inFolder = info.files.filter { !objects || ObjectLayout.inEntryFolder($0.path) }
        let checked = ParallelMap.map(inFolder) { file in check(folder + "/" + file.path, file, missing: "missing", changed: "changed") }
        for (file, result) in zip(inFolder, checked) {
            listed.insert(file.path)
            if let problem = try result.get() { problems.append(problem) }
        }
        if objects {
            var seen: Set<String> = []
            let unique = info.files.filter { seen.insert(ObjectLayout.objectName($0)).inserted }
            let objectsFolder = objectsFolder
            let results = ParallelMap.map(unique) { file in
                check(objectsFolder + "/" + ObjectLayout.objectName(file), file, missing: "missing object", changed: "changed object")
            }
            for result in results { if let problem = try result.get() { problems.append(problem) } }
        }
        for path in try ReleaseFiles.list(release: folder) where !listed.contains(path) {
            problems.append("unlisted: \(path)")
        }
        return problems
    }

    /// Under the lock: puts back the entry files of `release` that are missing, not regular
    /// files, or not the bytes its version.json lists (a terms page in the page set its `terms`
    /// link names, the link remade when it is gone), each as a hard link to its object (a checked
    /// copy where no link can be made) renamed over the path, the folders flushed. The objects
    /// are only read, never changed, and `current` is not touched. A file whose object is missing
    /// or changed too cannot be put back: the others are, then `UnrestorableEntries` says which.
    public func restoreEntries(of release: String) throws -> [String] {
        let folder = folder(of: release)
        let info = try ReleaseInfo.read(from: folder)
        guard info.format >= ObjectLayout.objectsSince else {
            // A release from before the object store holds the only copy of its files.
            let lost = info.files.filter { !Self.holds(folder + "/" + $0.path, $0, object: nil) }.map(\.path)
            if !lost.isEmpty { throw UnrestorableEntries(release: release, restored: [], lost: lost) }
            return []
        }
        let entries = info.files.filter { ObjectLayout.inEntryFolder($0.path) }
        var touched: Set<String> = []
        let terms = entries.filter { $0.path.hasPrefix(PageSets.link + "/") }
        let unlinked = (try? FileSystem.kind(ofItemAt: folder + "/" + PageSets.link)) == nil
        let set = terms.isEmpty ? nil : unlinked ? PageSets.name(of: terms) : PageSets.set(linkedFrom: folder)
        if let set, unlinked || !FileSystem.isDirectory(pagesFolder + "/" + set + "/" + PageSets.link) {
            // The page set (or its link) is gone: made again, its pages restored below.
            try StateFiles.requireFolder(pagesFolder, what: "pages/")
            try FileSystem.makeDirectories(pagesFolder + "/" + set + "/" + PageSets.link)
            try DurableFiles.syncDirectory(pagesFolder + "/" + set)
            try DurableFiles.syncDirectory(pagesFolder)
            if unlinked {
                guard symlink(PageSets.target(set), folder + "/" + PageSets.link) == 0 else { throw FileSystem.failure("symlink", folder + "/" + PageSets.link) }
                touched.insert(folder)
            }
        }
        let objects = objectsFolder
        let damaged = ParallelMap.map(entries) { file -> Bool in
            !Self.holds(folder + "/" + file.path, file, object: objects + "/" + ObjectLayout.objectName(file))
        }
        var restored: [String] = []
        var lost: [String] = []
        for (file, bad) in zip(entries, damaged) where bad {
            let source = objects + "/" + ObjectLayout.objectName(file)
            guard LocalFiles.matches(source, file) else {
                lost.append(file.path)
                continue
            }
            let target = folder + "/" + file.path
            let parent = DurableFiles.parent(of: target)
            if !FileSystem.isDirectory(parent) {
                // A file where a folder belongs is none of the release's.
                if (try? FileSystem.kind(ofItemAt: parent)) == .file { unlink(parent) }
                try FileSystem.makeDirectories(parent)
                var above = parent
                while above.count > folder.count {
                    touched.insert(above)
                    above = DurableFiles.parent(of: above)
                }
            }
            if (try? FileSystem.kind(ofItemAt: target)) == .directory { try FileSystem.removeTree(target) }
            let temporary = parent + "/.restore-\(getpid())-" + DurableFiles.name(of: target)
            unlink(temporary)
            if link(source, temporary) != 0 {
                // No hard link (another filesystem, or the link limit): a copy, checked above.
                try DurableFiles.create(temporary, try FileSystem.readFile(source), mode: 0o444)
            }
            guard rename(temporary, target) == 0 else {
                let failure = FileSystem.failure("rename", target)
                unlink(temporary)
                throw failure
            }
            touched.insert(parent)
            restored.append(file.path)
        }
        // Deepest first, so that each folder's own name is flushed after what it holds.
        for path in touched.sorted(by: { $0.count > $1.count }) { try DurableFiles.syncDirectory(path) }
        if !touched.isEmpty { try DurableFiles.syncDirectory(releasesFolder) }
        if !lost.isEmpty { throw UnrestorableEntries(release: release, restored: restored, lost: lost) }
        return restored
    }

    /// Whether `path` is a regular file others cannot write holding `file`'s bytes: the object's
    /// own inode (which `verify` checks against its hash), else its bytes hashed.
    private static func holds(_ path: String, _ file: BundleManifest.File, object: String?) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) == file.size else { return false }
        if let object {
            var held = stat()
            if lstat(object, &held) == 0, held.st_ino == status.st_ino, held.st_dev == status.st_dev { return LocalFiles.matches(path, file) }
        }
        return status.st_mode & (S_IWGRP | S_IWOTH) == 0 && LocalFiles.matches(path, file)
    }

    /// Where the bytes of `file` of a release are on disk.
    public func location(of file: BundleManifest.File, in info: ReleaseInfo) -> String {
        if info.format >= ObjectLayout.objectsSince && !ObjectLayout.inEntryFolder(file.path) {
            return objectsFolder + "/" + ObjectLayout.objectName(file)
        }
        return folder(of: info.id) + "/" + file.path
    }

    private func makeWritable(_ path: String) throws {
        guard (try? FileSystem.kind(ofItemAt: path)) == .directory else { return }
        chmod(path, 0o755)
        for name in try FileSystem.listDirectory(path) { try makeWritable(path + "/" + name) }
    }
}

/// Entry files of a release that `restoreEntries` could not put back (their objects are
/// missing or changed too), after it put back the others.
public struct UnrestorableEntries: Error {
    public var release: String
    public var restored: [String]
    public var lost: [String]
}

extension ReleaseFiles {
    /// A release's entry folder, its terms pages listed through its link to their page set (the
    /// one symlink a release has, `PageSets`).
    public static func list(release folder: String) throws -> [String] {
        var result: [String] = []
        try walk(folder, "", &result) { path in path == PageSets.link && PageSets.set(linkedFrom: folder) != nil }
        return result.sorted()
    }
}

/// Terms pages change far less often than rates and are most of an entry folder (2,000 pages in
/// 400 folders on the benchmark repository), so they live in a page set shared by every release
/// with the same pages: `pages/<set>/terms/...`, hard links to their objects, made once. A
/// release reaches its set through one symlink, `terms -> ../../pages/<set>/terms`, which is
/// the only link nginx follows in a release (`disable_symlinks ... from=$document_root/terms`).
/// `<set>` is 32 hex of the sha256 over the set's lines `<sha256> <path>\n` (sorted by path).
public enum PageSets {
    public static let link = "terms"

    static func name(of files: [BundleManifest.File]) -> String {
        String(SHA256.hex(files.sorted { $0.path < $1.path }.map { "\($0.sha256) \($0.path)\n" }.joined()).prefix(32))
    }

    static func target(_ set: String) -> String { "../../pages/\(set)/\(link)" }

    /// The page set a release folder links to, nil when it has no such link.
    public static func set(linkedFrom release: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink(release + "/" + link, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = target.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "..", parts[1] == "..", parts[2] == "pages", parts[4] == link[...],
            parts[3].count == 32, parts[3].allSatisfy(\.isHexDigit)
        else { return nil }
        return String(parts[3])
    }
}
