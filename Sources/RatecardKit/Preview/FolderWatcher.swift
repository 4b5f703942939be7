import Glibc
import RatecardSupport

/// Watches the content folder, the web build folder and the repository's refs with inotify and
/// says what changed: content paths (relative to the content folder), whether the web build
/// changed, whether HEAD may have moved.
///
/// Every folder gets a watch (inotify is not recursive); a folder created or moved in gets its
/// watches when its event arrives, and the caller reads the whole folder then, so files made
/// in it before its watch existed are not missed. Dot-folders (`.git`, `.preview`) are not
/// content and are not watched, except the repository's own files for HEAD.
///
/// Attribute changes are events too (a `chmod` that makes an unreadable file readable again
/// must be read), and a folder that could not be watched or listed (no permission, out of
/// descriptors) is kept and tried again by `retry`, which reports it as changed once it is
/// watched.
public final class FolderWatcher {
    /// What one batch of events changed.
    public struct Changes: Sendable {
        public var content: Set<String> = []
        public var web = false
        public var git = false
        /// The kernel dropped events (its queue overflowed): read everything again.
        public var overflow = false

        public var isEmpty: Bool { content.isEmpty && !web && !git && !overflow }

        public init() {}

        /// These changes and `other`'s.
        public mutating func formUnion(_ other: Changes) {
            content.formUnion(other.content)
            web = web || other.web
            git = git || other.git
            overflow = overflow || other.overflow
        }
    }

    private enum Place {
        /// A content folder, by its path relative to the content folder.
        case content(String)
        /// A web build folder; `inContent` is its path relative to the content folder when the
        /// web build lives inside it.
        case web(folder: String, inContent: String?)
        case git
    }

    public let descriptor: Int32
    private let contentRoot: String
    /// The web folder's path inside the content folder (with a trailing `/`), watched as web.
    private let webInside: String?
    private var watches: [Int32: Place] = [:]
    /// Folders whose watch or listing failed, by path: tried again by `retry`.
    private var unwatched: [String: Place] = [:]
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MODIFY)
    /// Content and web folders: attribute changes too (permissions).
    private static let fileMask = mask | UInt32(IN_ATTRIB)

    /// Whether some folder is not watched yet (`retry` should be called now and then).
    public var hasUnwatched: Bool { !unwatched.isEmpty }

    public init(content: String, web: String?, gitFolders: [String]) throws {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw FileSystem.failure("inotify_init1", content) }
        descriptor = fd
        contentRoot = content
        if let web, let real = try? FileSystem.realPath(web), let top = try? FileSystem.realPath(content), real.hasPrefix(top + "/") {
            webInside = String(real.dropFirst(top.count + 1)) + "/"
        } else {
            webInside = nil
        }
        try addTree(content, place: .content(""))
        if let web, webInside == nil { try addTree(web, place: .web(folder: web, inContent: nil)) }
        for folder in gitFolders where FileSystem.isDirectory(folder) { _ = try add(folder, place: .git) }
    }

    deinit { close(descriptor) }

    /// What became of a folder's watch.
    private enum Added {
        case watched
        /// It is not there any more (nothing to watch).
        case gone
        /// It is there but could not be watched or listed now (permissions, descriptors).
        case failed
    }

    private func add(_ folder: String, place: Place) throws -> Added {
        let mask: UInt32
        if case .git = place { mask = Self.mask } else { mask = Self.fileMask }
        let wd = inotify_add_watch(descriptor, folder, mask)
        guard wd >= 0 else {
            switch errno {
            case ENOSPC:
                throw OperationalError(
                    "cannot watch \(folder): the limit of inotify watches is reached (fs.inotify.max_user_watches); raise it, e.g. 'sysctl fs.inotify.max_user_watches=524288'",
                    ko: "\(folder)을(를) 감시할 수 없습니다: inotify 감시 한도(fs.inotify.max_user_watches)에 이르렀습니다; 한도를 올리세요 (예: 'sysctl fs.inotify.max_user_watches=524288')")
            case ENOENT, ENOTDIR: return .gone
            default: return .failed
            }
        }
        watches[wd] = place
        return .watched
    }

    /// Watches `folder` and every non-dot folder below it. A folder that cannot be watched or
    /// listed for a reason other than being gone is kept for `retry`.
    private func addTree(_ folder: String, place: Place) throws {
        var place = place
        if case .content(let relative) = place, let webInside, relative + "/" == webInside {
            place = .web(folder: folder, inContent: relative)
        }
        unwatched[folder] = nil
        switch try add(folder, place: place) {
        case .watched: break
        case .gone: return
        case .failed:
            unwatched[folder] = place
            return
        }
        let names: [String]
        do {
            names = try FileSystem.listDirectory(folder)
        } catch {
            if FileSystem.isDirectory(folder) { unwatched[folder] = place }
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            try addTree(path, place: Self.child(place, name: name, path: path))
        }
    }

    private static func child(_ place: Place, name: String, path: String) -> Place {
        switch place {
        case .content(let relative): return .content(relative.isEmpty ? name : relative + "/" + name)
        case .web(_, let inContent): return .web(folder: path, inContent: inContent.map { $0 + "/" + name })
        case .git: return .git
        }
    }

    /// Waits up to `timeout` milliseconds (-1: without end) for events on this watcher or on
    /// `also` (a signal descriptor).
    public func wait(timeout: Int32, also: Int32?) -> (events: Bool, other: Bool) {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let also { fds.append(pollfd(fd: also, events: Int16(POLLIN), revents: 0)) }
        let count = poll(&fds, nfds_t(fds.count), timeout)
        guard count > 0 else { return (false, false) }
        return (fds[0].revents != 0, fds.count > 1 && fds[1].revents != 0)
    }

    /// Reads what is queued, then keeps reading while events keep coming (an editor's save is
    /// several events: a file written, renamed, its backup removed), until `quiet`
    /// milliseconds pass without one or `longest` milliseconds in all.
    ///
    /// An editor's temporary file that is gone by then (sed -i's `sedXXXXXX`, vim's `4913`, a
    /// `name~` or `#name#` written and renamed over the file) is no change: only the file it
    /// became is. One that stays is a file like any other.
    public func collect(quiet: Int32 = 4, longest: Int = 60, also: Int32? = nil) -> Changes {
        var changes = Changes()
        var temporaries: Set<String> = []
        let start = Trace.now()
        while true {
            drain(into: &changes, temporaries: &temporaries)
            let elapsed = (Trace.now() - start) / 1_000_000
            // A temporary file still there is about to be renamed over its file: wait for that
            // (a little longer than `longest`) rather than build from it.
            let renameDue = elapsed < longest + 250 && hasTemporary(changes, temporaries)
            guard elapsed < longest || renameDue else { break }
            let (events, other) = wait(timeout: quiet, also: also)
            if other || (!events && !renameDue) { break }
        }
        changes.content = changes.content.filter { path in
            !Self.isEditorTemporary(DurableFiles.name(of: path)) || FileSystem.exists(contentRoot + "/" + path)
        }
        if temporaries.contains(where: FileSystem.exists) { changes.web = true }
        return changes
    }

    /// Tries again to watch the folders that could not be watched or listed; each one watched
    /// now is reported as changed (what is in it was not seen).
    public func retry() -> Changes {
        var changes = Changes()
        for (folder, place) in unwatched.sorted(by: { $0.key < $1.key }) {
            try? addTree(folder, place: place)
            guard unwatched[folder] == nil else { continue }
            switch place {
            case .content(let relative):
                // The content folder itself: read all of it.
                if relative.isEmpty { changes.overflow = true } else { changes.content.insert(relative) }
            case .web(_, let inContent):
                changes.web = true
                if let inContent { changes.content.insert(inContent) }
            case .git: changes.git = true
            }
        }
        return changes
    }

    /// Whether an editor's temporary file among the changes is still there.
    private func hasTemporary(_ changes: Changes, _ temporaries: Set<String>) -> Bool {
        changes.content.contains { Self.isEditorTemporary(DurableFiles.name(of: $0)) && FileSystem.exists(contentRoot + "/" + $0) }
            || temporaries.contains(where: FileSystem.exists)
    }

    /// A name editors and tools give a file only while they write another: GNU sed -i's
    /// `sedXXXXXX`, vim's `4913` probe and swap files, emacs' `#name#` and `name~`, JetBrains'
    /// `name___jb_tmp___` and `name___jb_old___`, and `.tmp`, `.swp` endings.
    public static func isEditorTemporary(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        if scalars.count == 9, name.hasPrefix("sed"), scalars.dropFirst(3).allSatisfy({ $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) }) {
            return true
        }
        if name == "4913" || name.hasSuffix("~") || (name.hasPrefix("#") && name.hasSuffix("#")) { return true }
        return [".swp", ".swo", ".swx", ".tmp", "___jb_tmp___", "___jb_old___"].contains { name.hasSuffix($0) }
    }

    private func drain(into changes: inout Changes, temporaries: inout Set<String>) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (wd, mask, nameLength) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = String(decoding: buffer[nameStart..<nameStart + nameLength].prefix { $0 != 0 }, as: UTF8.self)
                offset = nameStart + nameLength
                handle(wd: wd, mask: mask, name: name, into: &changes, temporaries: &temporaries)
            }
        }
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into changes: inout Changes, temporaries: inout Set<String>) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            changes.overflow = true
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            watches[wd] = nil
            return
        }
        // A watched folder's own attribute change comes without a name: its parent's watch
        // names it.
        guard let place = watches[wd], mask & UInt32(IN_DELETE_SELF) == 0, !name.isEmpty else { return }
        // A folder created or moved in, or whose permissions changed (it may be readable now):
        // watched again (a folder already watched keeps its watch).
        let newFolder = mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB) != 0
        switch place {
        case .git:
            // Ref updates are written under a lock file and renamed: the rename names the ref.
            if !name.hasSuffix(".lock") { changes.git = true }
        case .web(let folder, let inContent):
            guard !name.hasPrefix(".") else { return }
            // An editor's temporary file counts only if it is still there when the events end.
            if Self.isEditorTemporary(name) && !newFolder {
                temporaries.insert(folder + "/" + name)
            } else {
                changes.web = true
            }
            // Inside the content folder the web build is also part of the tree git compares.
            if let inContent { changes.content.insert(inContent + "/" + name) }
            if newFolder { try? addTree(folder + "/" + name, place: Self.child(place, name: name, path: folder + "/" + name)) }
        case .content(let relative):
            guard !name.hasPrefix(".") else { return }
            let path = relative.isEmpty ? name : relative + "/" + name
            changes.content.insert(path)
            if newFolder { try? addTree(contentRoot + "/" + path, place: .content(path)) }
        }
    }
}
