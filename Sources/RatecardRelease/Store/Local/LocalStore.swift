import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport
import Synchronization

/// The local file system as a release store (the default backend):
///
/// ```
/// ROOT/objects/<sha256>.<ext>     immutable objects, read-only, shared by every release
/// ROOT/releases/<id>/             the release's entry folder: version.json + hard links, and
///                                 terms -> ../../pages/<set>/terms
/// ROOT/pages/<set>/terms/...      terms pages shared by releases with the same ones (`PageSets`)
/// ROOT/current -> releases/<id>   the pointer, swapped with one rename(2)
/// ```
/// Objects are written into `objects/.incoming-<pid>/`, flushed (an fsync each when they are
/// few, else one `syncfs`), read back and hashed, then renamed into place; a crash leaves only
/// the incoming folder, which the next run removes. A release folder is staged as `releases/.partial-<id>` and renamed complete.
struct LocalStore: Sendable {
    private enum ObjectState: Sendable { case absent, intact, changed }

    let root: ServeRoot
    /// What the root's puts checked and linked (for the record a publish leaves).
    let session: Session

    init(root: ServeRoot, session: Session) {
        self.root = root
        self.session = session
    }

    /// Stat data of objects verified before (a match stands in for re-hashing a present
    /// object), read once per session.
    var verified: VerifiedFiles { session.verified(root: root.path) }

    /// The stamps of present objects vouched for by their stat data, taken as they were checked,
    /// and the objects linked since (a link moves an object's ctime, so its stamp is stale).
    final class Session: Sendable {
        private struct State {
            var verified: VerifiedFiles?
            /// Releases put in this session, by id.
            var released: [String: ReleaseInfo] = [:]
            var checked: [String: VerifiedFiles.Stamp] = [:]
            var linked: Set<String> = []
            /// Objects written, linked or hashed, by name (with their hash and size): their stat
            /// data are to be taken again for the record.
            var touched: [String: StoreItem] = [:]
        }
        private let state = Mutex(State())

        func verified(root: String) -> VerifiedFiles {
            if let known = state.withLock({ $0.verified }) { return known }
            let loaded = VerifiedFiles.load(root: root)
            state.withLock { $0.verified = loaded }
            return loaded
        }

        func put(_ info: ReleaseInfo) { state.withLock { $0.released[info.id] = info } }
        /// A release this session put, nil for any other.
        func putRelease(_ id: String) -> ReleaseInfo? { state.withLock { $0.released[id] } }

        var checked: [String: VerifiedFiles.Stamp] { state.withLock { $0.checked } }

        /// Whether this session checked or wrote the object (so it need not be checked again).
        func knows(_ name: String) -> Bool { state.withLock { $0.checked[name] != nil || ($0.touched[name] != nil && !$0.linked.contains(name)) } }

        func add(checked stamps: [String: VerifiedFiles.Stamp]) {
            state.withLock { state in
                if state.checked.isEmpty { state.checked = stamps } else { state.checked.merge(stamps) { $1 } }
            }
        }
        func add(linked files: [BundleManifest.File]) {
            let items = files.map { StoreItem(key: .object(ObjectLayout.objectName($0)), sha256: $0.sha256, size: $0.size, bytes: nil) }
            state.withLock { state in
                for item in items {
                    guard case .object(let name) = item.key else { continue }
                    state.linked.insert(name)
                    state.touched[name] = item
                }
            }
        }

        /// Objects written, or checked by their hash, in this session.
        func add(touched items: [StoreItem]) {
            state.withLock { state in
                for item in items {
                    if case .object(let name) = item.key { state.touched[name] = StoreItem(key: item.key, sha256: item.sha256, size: item.size, bytes: nil) }
                }
            }
        }

        /// Objects linked, written or hashed since the store was opened (their recorded stamps
        /// are stale or missing), by name.
        var touched: [String: StoreItem] { state.withLock { $0.touched } }

        /// Object name -> stamp, for the objects checked and not linked since.
        var unlinkedStamps: [String: VerifiedFiles.Stamp] {
            state.withLock { state in state.linked.isEmpty ? state.checked : state.checked.filter { !state.linked.contains($0.key) } }
        }
    }

    var objectsFolder: String { root.objectsFolder }

    func objectPath(_ name: String) -> String { objectsFolder + "/" + name }

    // MARK: put

    @discardableResult
    func put(_ items: [StoreItem]) throws -> Int {
        let (objects, releases) = try StoreItem.partition(items)
        var written = try putObjects(objects)
        for release in releases { written += try putRelease(release) }
        return written
    }

    private func putObjects(_ items: [StoreItem]) throws -> Int {
        guard !items.isEmpty else { return 0 }
        try FileSystem.makeDirectories(objectsFolder)
        var seen: Set<String> = []
        let unique = items.filter {
            if case .object(let name) = $0.key { return seen.insert(name).inserted }
            return false
        }
        let names = unique.map { item -> String in
            if case .object(let name) = item.key { return name }
            return ""
        }
        for name in names where !ObjectLayout.isObjectName(name) { throw OperationalError("'\(name)' is not an object name", ko: "'\(name)'은(는) 오브젝트 이름이 아닙니다") }
        // One lstat per object says whether it is present; a present one is checked (stat data
        // recorded at its last check, else its hash). A changed one is an error, never overwritten.
        let folder = objectsFolder
        let directory = try FileSystem.Folder(folder)
        let checks = ParallelMap.map(unique) { [verified] item -> (state: ObjectState, stamp: VerifiedFiles.Stamp?) in
            guard case .object(let name) = item.key else { return (.changed, nil) }
            return Self.check(name, sha256: item.sha256, size: item.size, in: directory, folder: folder, verified: verified)
        }
        let states = checks.map(\.state)
        var stamps: [String: VerifiedFiles.Stamp] = [:]
        stamps.reserveCapacity(names.count)
        for (name, check) in zip(names, checks) {
            if let stamp = check.stamp { stamps[name] = stamp }
        }
        session.add(checked: stamps)
        session.add(touched: zip(unique, checks).filter { $0.1.state == .intact && $0.1.stamp == nil }.map(\.0))
        for (item, state) in zip(unique, states) where state == .changed {
            guard case .object(let name) = item.key else { continue }
            throw OperationalError(
                "object \(name) in \(objectsFolder) does not match its hash (changed on disk?); run 'ratecard verify', then move it aside and publish again",
                ko: "\(objectsFolder)의 오브젝트 \(name)이(가) 자기 해시와 맞지 않습니다 (디스크에서 바뀌었나요?); 'ratecard verify'를 실행한 다음 그 파일을 옮겨 두고 다시 게시하세요")
        }
        let present = states.map { $0 != .absent }
        Trace.mark("store: \(unique.count) objects looked up, \(present.filter { $0 }.count) present and checked")
        let absent = zip(unique, present).filter { !$0.1 }.map(\.0)
        guard !absent.isEmpty else { return 0 }
        for item in absent where item.bytes == nil {
            guard case .object(let name) = item.key else { continue }
            throw OperationalError("object \(name) is missing from \(objectsFolder) and no copy of it was given", ko: "\(objectsFolder)에 오브젝트 \(name)이(가) 없고 사본도 주어지지 않았습니다")
        }
        try checkSpace(needed: absent.reduce(0) { $0 + $1.size })
        let incoming = objectsFolder + "/.incoming-\(getpid())"
        try? FileSystem.removeTree(incoming)
        guard mkdir(incoming, 0o755) == 0 else { throw FileSystem.failure("mkdir", incoming) }
        do {
            let byName = Dictionary(
                absent.map { item -> (String, StoreItem) in
                    if case .object(let name) = item.key { return (name, item) }
                    return ("", item)
                }, uniquingKeysWith: { first, _ in first })
            let absentNames = byName.keys.sorted()
            session.add(touched: absentNames.map { byName[$0]! })
            // A few objects (the everyday small publish) are flushed one by one; many, by one
            // syncfs, which also writes out whatever else the filesystem holds unwritten.
            let flushEach = absentNames.count <= DurableFiles.fewFiles
            try ParallelWrite.each(absentNames) { name in
                try DurableFiles.create(incoming + "/" + name, byName[name]!.bytes!, sync: flushEach, mode: 0o444)
            }
            CrashPoint.hit("objects-written")
            Trace.mark("store: \(absentNames.count) objects written")
            if !flushEach { try DurableFiles.syncFilesystem(of: incoming) }
            CrashPoint.hit("objects-synced")
            Trace.mark("store: synced")
            let readBack = ParallelMap.map(absentNames) { name -> Bool in
                guard let bytes = try? FileSystem.readFile(incoming + "/" + name), let item = byName[name] else { return false }
                return bytes.count == item.size && SHA256.hex(bytes) == item.sha256
            }
            if let bad = zip(absentNames, readBack).first(where: { !$0.1 }) {
                throw OperationalError("object \(bad.0) reads back different from what was written; the disk may be failing", ko: "오브젝트 \(bad.0)을(를) 다시 읽으니 쓴 것과 다릅니다; 디스크가 고장 나고 있을 수 있습니다")
            }
            CrashPoint.hit("objects-verified")
            Trace.mark("store: read back")
            for name in absentNames {
                // Under the lock nothing else writes objects; an object that appeared meanwhile is kept.
                if FileSystem.exists(objectPath(name)) {
                    unlink(incoming + "/" + name)
                    continue
                }
                guard rename(incoming + "/" + name, objectPath(name)) == 0 else { throw FileSystem.failure("rename", objectPath(name)) }
            }
            try DurableFiles.syncDirectory(objectsFolder)
            rmdir(incoming)
            CrashPoint.hit("objects-placed")
            return absent.reduce(0) { $0 + $1.size }
        } catch {
            try? FileSystem.removeTree(incoming)
            throw error
        }
    }

    /// Materialises a release's entry folder from its manifest: the entry files as hard links to
    /// their objects (all present: objects come first), version.json last, flushed, renamed complete.
    private func putRelease(_ item: StoreItem) throws -> Int {
        guard case .release(let id) = item.key, let manifest = item.bytes else { throw OperationalError("a release is put with its manifest", ko: "릴리스는 매니페스트와 함께 올립니다") }
        // (What is written is read back and checked against `item.sha256` before it is renamed
        // complete: a manifest that does not match its hash never becomes a release.)
        let final = root.folder(of: id)
        if FileSystem.isDirectory(final) {
            let existing = try? FileSystem.readFile(final + "/" + ReleaseInfo.fileName)
            guard let existing, SHA256.hex(existing) == item.sha256 else {
                throw OperationalError("release \(id) already exists in \(root.releasesFolder) with another version.json", ko: "릴리스 \(id)이(가) 이미 \(root.releasesFolder)에 다른 version.json으로 있습니다")
            }
            return 0
        }
        let info = try item.info ?? ReleaseInfo.parse(manifest, source: id)
        session.put(info)
        var entries = info.files.filter { ObjectLayout.inEntryFolder($0.path) }
        let terms = entries.filter { $0.path.hasPrefix(PageSets.link + "/") }
        if !terms.isEmpty { entries.removeAll { $0.path.hasPrefix(PageSets.link + "/") } }
        let partial = root.releasesFolder + "/.partial-\(id)"
        try FileSystem.makeDirectories(root.releasesFolder)
        try? FileSystem.removeTree(partial)
        guard mkdir(partial, 0o755) == 0 else { throw FileSystem.failure("mkdir", partial) }
        do {
            CrashPoint.hit("staged")
            let copied = Tally()
            if !terms.isEmpty {
                let set = try putPageSet(terms, copied: copied)
                guard symlink(PageSets.target(set), partial + "/" + PageSets.link) == 0 else { throw FileSystem.failure("symlink", partial + "/" + PageSets.link) }
            }
            try checkBeforeLinking(entries)
            let folders = try linkObjects(entries, into: partial, copied: copied)
            Trace.mark("store: \(entries.count) entry files linked")
            CrashPoint.hit("files-written")
            // Links write names, not data: the folders that got them and version.json are
            // flushed one by one, unless a file had to be copied or there are many folders.
            let flushEach = copied.total == 0 && folders.count < DurableFiles.fewFiles
            try DurableFiles.create(partial + "/" + ReleaseInfo.fileName, manifest, sync: flushEach)
            CrashPoint.hit("version-written")
            if flushEach {
                // Deepest first, so that each folder's own name is flushed after what it holds.
                for folder in folders.reversed() { try DurableFiles.syncDirectory(partial + "/" + folder) }
                try DurableFiles.syncDirectory(partial)
            } else {
                try DurableFiles.syncFilesystem(of: partial)
            }
            CrashPoint.hit("synced")
            guard SHA256.hex(try FileSystem.readFile(partial + "/" + ReleaseInfo.fileName)) == item.sha256 else {
                throw OperationalError(
                    "\(ReleaseInfo.fileName) of \(id) reads back different from what was written; the disk may be failing",
                    ko: "\(id)의 \(ReleaseInfo.fileName)을(를) 다시 읽으니 쓴 것과 다릅니다; 디스크가 고장 나고 있을 수 있습니다")
            }
            CrashPoint.hit("verified")
            guard rename(partial, final) == 0 else { throw FileSystem.failure("rename", partial) }
            try DurableFiles.syncDirectory(root.releasesFolder)
            CrashPoint.hit("renamed")
            return manifest.count + copied.total
        } catch {
            try? FileSystem.removeTree(partial)
            throw error
        }
    }

    /// Whether the object `name` in `folder` (open as `directory`) is absent, intact or changed:
    /// one lstat, then its stat data as `verified` recorded them (the stamp is returned), else its
    /// hash.
    private static func check(
        _ name: String, sha256: String, size: Int, in directory: FileSystem.Folder, folder: String, verified: VerifiedFiles
    ) -> (state: ObjectState, stamp: VerifiedFiles.Stamp?) {
        var info = stat()
        guard directory.lstat(name, &info) else { return (errno == ENOENT ? .absent : .changed, nil) }
        if let stamp = VerifiedFiles.stamp(info, sha256: sha256), verified.vouches(for: stamp, size: size) { return (.intact, stamp) }
        return (LocalFiles.matches(folder + "/" + name, BundleManifest.File(path: name, sha256: sha256, size: size)) ? .intact : .changed, nil)
    }

    /// An object is checked before a new entry file is linked to it (a changed object is never made live), unless
    /// this session's put checked or wrote it (the put skips the objects the live release names):
    /// its stat data as recorded after a publish, else its hash.
    private func checkBeforeLinking(_ files: [BundleManifest.File]) throws {
        let unchecked = files.filter { !session.knows(ObjectLayout.objectName($0)) }
        let folder = objectsFolder
        let directory = try FileSystem.Folder(folder)
        let intact = ParallelMap.map(unchecked) { [verified] file -> Bool in
            Self.check(ObjectLayout.objectName(file), sha256: file.sha256, size: file.size, in: directory, folder: folder, verified: verified).state == .intact
        }
        if let bad = zip(unchecked, intact).first(where: { !$0.1 })?.0 {
            throw OperationalError(
                "object \(ObjectLayout.objectName(bad)) in \(objectsFolder) is missing or does not match its hash (changed on disk?); run 'ratecard verify', then publish again",
                ko: "\(objectsFolder)의 오브젝트 \(ObjectLayout.objectName(bad))이(가) 없거나 자기 해시와 맞지 않습니다 (디스크에서 바뀌었나요?); 'ratecard verify'를 실행한 다음 다시 게시하세요")
        }
    }

    /// Hard links to their objects of `files` (paths below `folder`, which exists), each folder
    /// made first; a copy, checked, where no link can be made. Returns the folders made, sorted.
    @discardableResult
    private func linkObjects(_ files: [BundleManifest.File], into folder: String, copied: Tally) throws -> [String] {
        session.add(linked: files)
        let folders = try ParallelWrite.makeFolders(for: files.map(\.path), in: folder)
        Trace.mark("store: \(folders.count) folders made")
        let byPath = Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        try ParallelWrite.each(files.map(\.path)) { [self] path in
            let file = byPath[path]!
            let source = objectPath(ObjectLayout.objectName(file))
            if link(source, folder + "/" + path) == 0 { return }
            // No hard link (another filesystem, or the link limit): a copy, checked.
            let bytes = try FileSystem.readFile(source)
            guard bytes.count == file.size, SHA256.hex(bytes) == file.sha256 else {
                throw OperationalError(
                    "object \(ObjectLayout.objectName(file)) does not match its hash; run 'ratecard verify'", ko: "오브젝트 \(ObjectLayout.objectName(file))이(가) 자기 해시와 맞지 않습니다; 'ratecard verify'를 실행하세요")
            }
            try DurableFiles.create(folder + "/" + path, bytes, sync: false)
            copied.add(bytes.count)
        }
        return folders
    }

    /// The page set of these terms pages (`PageSets`): made (staged, flushed, renamed complete)
    /// when the store lacks it, else checked: each page must still be its object (the same
    /// inode, which the put that preceded this checked). Returns its name.
    private func putPageSet(_ files: [BundleManifest.File], copied: Tally) throws -> String {
        let set = PageSets.name(of: files)
        let final = root.pagesFolder + "/" + set
        if FileSystem.isDirectory(final) {
            // The inodes of the objects the put just checked are known; a page that is not its
            // object (a copy, where no link could be made) is hashed.
            let checked = session.checked
            var store = stat()
            let device = stat(objectsFolder, &store) == 0 ? store.st_dev : nil
            let pages = try FileSystem.Folder(final)
            let objects = try FileSystem.Folder(objectsFolder)
            let intact = ParallelMap.map(files) { file -> Bool in
                let name = ObjectLayout.objectName(file)
                var page = stat()
                guard pages.lstat(file.path, &page) else { return false }
                if let stamp = checked[name], stamp.inode == UInt64(page.st_ino), page.st_dev == device { return true }
                // A page whose stat data are a verified object's with its hash is that object.
                if page.st_dev == device, let stamp = VerifiedFiles.stamp(page, sha256: file.sha256), verified.vouches(for: stamp, size: file.size) { return true }
                var object = stat()
                if objects.lstat(name, &object), page.st_ino == object.st_ino, page.st_dev == object.st_dev { return true }
                return LocalFiles.matches(final + "/" + file.path, file)
            }
            guard intact.allSatisfy({ $0 }) else {
                throw OperationalError(
                    "the terms pages in \(final) are not all the objects they should be (changed on disk?); run 'ratecard verify', then move that folder aside and publish again",
                    ko: "\(final)의 약관 페이지 중 일부가 있어야 할 오브젝트와 다릅니다 (디스크에서 바뀌었나요?); 'ratecard verify'를 실행한 다음 그 폴더를 옮겨 두고 다시 게시하세요")
            }
            Trace.mark("store: page set \(set) reused (\(files.count) pages checked)")
            return set
        }
        try StateFiles.requireFolder(root.pagesFolder, what: "pages/")
        try FileSystem.makeDirectories(root.pagesFolder)
        let partial = root.pagesFolder + "/.partial-\(set)"
        try? FileSystem.removeTree(partial)
        guard mkdir(partial, 0o755) == 0 else { throw FileSystem.failure("mkdir", partial) }
        do {
            try linkObjects(files, into: partial, copied: copied)
            try DurableFiles.syncFilesystem(of: partial)
            guard rename(partial, final) == 0 else { throw FileSystem.failure("rename", partial) }
            try DurableFiles.syncDirectory(root.pagesFolder)
            Trace.mark("store: page set \(set) made")
            return set
        } catch {
            try? FileSystem.removeTree(partial)
            throw error
        }
    }

    /// Removes the page sets no release on disk links to (after a prune removed releases, or a
    /// publish failed after making one); returns their names. A set is renamed away before it
    /// is removed, so a crash leaves only a `.trash-` folder, which `recover` removes.
    @discardableResult
    func removeUnlinkedPageSets() throws -> [String] {
        guard FileSystem.isDirectory(root.pagesFolder) else { return [] }
        let linked = Set(try root.releaseIDs().compactMap { PageSets.set(linkedFrom: root.folder(of: $0)) })
        var removed: [String] = []
        for name in try FileSystem.listDirectory(root.pagesFolder) where !name.hasPrefix(".") && !linked.contains(name) {
            let trash = root.pagesFolder + "/.trash-\(name)"
            guard rename(root.pagesFolder + "/" + name, trash) == 0 else { throw FileSystem.failure("rename", root.pagesFolder + "/" + name) }
            try DurableFiles.syncDirectory(root.pagesFolder)
            try FileSystem.removeTree(trash)
            removed.append(name)
        }
        return removed
    }

    /// Records the stat data of a release's objects after it went live (they were verified by
    /// the put that preceded this, or by an earlier one), so the next publish need not re-hash
    /// the ones it reuses. Best effort. The everyday publish adds the stamps of the objects it
    /// wrote, linked or hashed to the end of the record (the ones it vouched for by their stamps
    /// are recorded already; a later line stands for the same inode); the record is written
    /// whole again when it would hold more than twice the lines it needs.
    func recordPublished(_ info: ReleaseInfo) {
        guard info.format >= ObjectLayout.objectsSince else { return }
        let verified = verified
        if verified.lines > 0 {
            let touched = session.touched
            if verified.lines + touched.count <= 2 * info.files.count {
                try? VerifiedFiles.append(touched, in: objectsFolder, root: root.path)
                return
            }
        }
        var seen: Set<String> = []
        var files: [(name: String, file: BundleManifest.File)] = []
        for file in info.files {
            let name = ObjectLayout.objectName(file)
            if seen.insert(name).inserted { files.append((name, file)) }
        }
        try? VerifiedFiles.record(objects: files, in: objectsFolder, root: root.path, known: session.unlinkedStamps)
    }

    private func checkSpace(needed: Int) throws {
        var info = statvfs()
        guard statvfs(objectsFolder, &info) == 0 else { throw FileSystem.failure("statvfs", objectsFolder) }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        if free < needed * 2 + 65536 {
            throw OperationalError(
                "not enough space in \(root.path): the release needs \(needed) bytes (twice that free to be safe), \(free) are free",
                ko: "\(root.path)에 공간이 부족합니다: 릴리스에 \(needed)바이트가 필요하고(안전하려면 그 두 배의 여유 공간), 남은 공간은 \(free)바이트입니다")
        }
    }
}
