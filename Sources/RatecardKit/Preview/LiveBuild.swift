import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport

/// The content of a work tree kept in memory between edits (`preview --watch`): every file
/// parsed once, then only the files that changed are read and parsed again, only the findings
/// they can change are checked again, and the bundle is rebuilt through the same builder as
/// `build` and `preview`, with every unit the edit did not touch taken from the render memo.
///
/// The result is what a cold `preview` of the same work tree renders, byte for byte, and the
/// findings are what `validate` reports; `PreviewWatchTests` checks both after random edits.
///
/// A file that cannot be read (no permission, out of descriptors) is never taken as unchanged
/// or gone: it is listed in `unreadable` (as `validate` would fail on it), read again on every
/// update until it can be, and meanwhile the snapshot is not current and no bundle is built
/// from the bytes it had before.
public final class LiveBuild {
    public let location: ContentLocation
    public let asOf: Day
    /// The content folder.
    public let root: String
    /// The web build folder, if there is one.
    public let webFolder: String?
    /// The web folder's path below the content folder with a trailing `/`, when it is inside it
    /// (its files are not content, but they are part of the work tree git compares).
    let webInside: String?
    private let contentRoot: ContentRoot
    private var prefix: String { contentRoot.displayPrefix }
    private let validator: Validator
    /// The run's caches, kept for every update.
    private let caches: Caches
    let memo = RenderMemo()

    /// How many units (see `RenderMemo`) the last update rendered.
    public var rendered: Int { memo.rendered }

    /// One item of the work tree below the content folder (dot-files left out, as every
    /// source leaves them out).
    struct Item {
        var kind: TreeEntry.Kind
        var id: ObjectID?
        /// Part of the content (not of a web build inside the content folder).
        var isContent: Bool
        /// The parsed file (content files that are files).
        var parsed: ParsedFile?
    }

    private var items: [String: Item] = [:]
    /// `items`' paths, sorted (the order a load assembles the content in).
    private var order: [String] = []
    private var assets: [String: [UInt8]] = [:]
    private(set) public var content: Content
    private var base: Content?
    private var head: ObjectID?
    /// HEAD's entries below the content folder (dot-files left out), by path.
    private var headFiles: [String: TreeEntry]?
    /// Paths where the work tree and HEAD differ (kept up to date edit by edit).
    private var differing: Set<String> = []
    /// Findings of the content (with history rules against HEAD), and of the web build's bridge.
    private var found: [Diagnostic] = []
    private var bridge: [Diagnostic] = []
    private var output: BundleBuilder.Output?
    private var built = false
    /// The bundle is not the current state's: a rebuild was skipped (errors, unreadable files)
    /// or failed; the next update rebuilds even when nothing else changed.
    private var stale = false
    /// Paths (relative to the content folder) that could not be read, with the error.
    private var failed: [String: String] = [:]
    /// Why the last full read of the work tree failed (the state before it is kept meanwhile).
    private var reloadFailure: String?
    /// Why the web build's bridge check could not read the web build.
    private var bridgeFailure: String?

    /// A file or folder that could not be read, as `validate` would report it.
    public struct ReadFailure: Equatable, Sendable {
        /// The path as findings show it (the content folder's, or the web build's).
        public var path: String
        /// The error: the call, the path and the system's reason.
        public var message: String

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// Whether something cannot be read now.
    public var hasUnreadable: Bool { !failed.isEmpty || reloadFailure != nil || bridgeFailure != nil }

    /// Whether the bundle is the current state's and nothing is wrong with it (what
    /// `snapshot.current` says, without assembling a snapshot).
    public var isCurrent: Bool {
        built && !stale && !hasUnreadable && !found.contains { $0.severity == .error } && !bridge.contains { $0.severity == .error }
    }

    /// What cannot be read now, by path.
    public var unreadable: [ReadFailure] {
        var result = failed.map { ReadFailure(path: prefix + $0.key, message: $0.value) }
        if let reloadFailure { result.append(ReadFailure(path: prefix.isEmpty ? "./" : prefix, message: reloadFailure)) }
        if let bridgeFailure, let webFolder {
            let shown = BridgeCheck.displayPrefix(webFolder: webFolder, repositoryRoot: location.repository?.workdir)
            result.append(ReadFailure(path: shown.isEmpty ? webFolder : shown, message: bridgeFailure))
        }
        return result.sorted { $0.path < $1.path }
    }

    /// What the last update produced.
    public struct Snapshot: Sendable {
        /// The bundle of the last valid state (nil until the content was valid once).
        public var output: BundleBuilder.Output?
        /// True when `output` is the current state's (no errors now).
        public var current: Bool
        /// The content's findings, as `validate` reports them on the work tree.
        public var findings: [Diagnostic]
        /// The web build's bridge findings (`validate` adds them for the work tree too).
        public var bridge: [Diagnostic]
        /// Files that cannot be read now (`validate` stops at the first of them).
        public var unreadable: [ReadFailure]
        /// Both, content first.
        public var all: [Diagnostic] { findings + bridge }
    }

    /// How much of the content an update checked again.
    public enum Scope: Equatable, Sendable {
        case nothing
        case products([String])
        case document(String)
        case everything
    }

    /// Loads, checks and builds the work tree once.
    public init(location: ContentLocation, asOf: Day, webFolder: String?, caches: Caches) throws {
        self.location = location
        self.asOf = asOf
        self.caches = caches
        let source = try location.workingTree()
        root = source.root
        contentRoot = source.contentRoot
        self.webFolder = webFolder
        if let webFolder, let real = try? FileSystem.realPath(webFolder), let top = try? FileSystem.realPath(source.root), real.hasPrefix(top + "/") {
            webInside = String(real.dropFirst(top.count + 1)) + "/"
        } else {
            webInside = nil
        }
        validator = Validator(context: ValidationContext(asOf: asOf))
        content = Content(root: source.contentRoot)
        try loadAll()
        Trace.mark("watch: loaded")
        refreshHead(force: true)
        Trace.mark("watch: HEAD read")
        found = validator.check(content, base: base)
        Trace.mark("watch: checked")
        checkBridge()
        try rebuild()
    }

    /// Reads every file of the work tree (on two threads, through the parse cache).
    private func loadAll() throws {
        let source = WorkingTreeSource(root: root, contentRoot: contentRoot)
        let entries = try source.entries()
        webPrefix = ContentLoader.webBuildPrefix(entries, source: source)
        let contentEntries = ContentLoader.withoutWebBuild(entries, source: source)
        var loaded = try ParallelParse.run(contentEntries.indices.filter { contentEntries[$0].kind == .file }, of: contentEntries, from: source, caches: caches)
        items = [:]
        items.reserveCapacity(entries.count)
        assets = [:]
        for index in contentEntries.indices {
            let entry = contentEntries[index]
            let file = loaded[index].take()
            items[entry.path] = Item(kind: entry.kind, id: file?.key?.id ?? file?.hashed, isContent: true, parsed: file?.file)
        }
        failed = [:]
        func isAsset(_ item: Item?) -> Bool {
            if case .asset? = item?.parsed?.model { return true }
            return false
        }
        for entry in entries where items[entry.path] == nil || (entry.kind == .file && (items[entry.path]?.id == nil || isAsset(items[entry.path]))) {
            // The web build inside the content folder and unexpected files: hashed here (git
            // compares them). Assets: read here, kept for the build.
            var item = items[entry.path] ?? Item(kind: entry.kind, id: nil, isContent: false, parsed: nil)
            if entry.kind == .file {
                do {
                    let bytes = try FileSystem.readFile(root + "/" + entry.path)
                    item.id = Repository.blobID(of: bytes)
                    if case .asset = FileRole(entry.path), item.isContent { assets[entry.path] = bytes }
                } catch {
                    failed[entry.path] = "\(error)"
                }
            }
            items[entry.path] = item
        }
        order = entries.map(\.path)
        assemble()
        recomputeDiffering()
    }

    /// The content from `items`, as a load assembles it.
    private func assemble() {
        let entries = order.compactMap { path -> TreeEntry? in
            guard let item = items[path], item.isContent else { return nil }
            return TreeEntry(path: path, kind: item.kind, id: item.id)
        }
        var assembled = Content(root: contentRoot)
        ContentLoader.assemble(entries, into: &assembled) { index in
            let item = items[entries[index].path]!
            return (item.parsed!, item.id)
        }
        content = assembled
    }

    /// Re-reads HEAD: a new commit changes the history rules' base and whether the bundle
    /// names a commit. Returns true when it moved.
    @discardableResult
    private func refreshHead(force: Bool = false) -> Bool {
        guard let repository = location.repository, let treeRoot = location.contentRoot else { return false }
        let commit = try? repository.headCommit()
        guard force || commit != head else { return false }
        head = commit
        base = nil
        headFiles = nil
        if let commit, let entries = try? repository.treeEntries(commit: commit, under: treeRoot.treePath) {
            let source = CommitSource(repository: repository, commit: commit, contentRoot: treeRoot)
            base = try? ContentLoader(caches: caches).load(source)
            headFiles = Dictionary(source.filtered(entries).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        }
        recomputeDiffering()
        return true
    }

    /// Whether the work tree differs from HEAD (as `ValidationRun.same` decides it for a build:
    /// the same paths, kinds and file contents).
    private var dirty: Bool { headFiles == nil || !differing.isEmpty }

    private func recomputeDiffering() {
        differing = []
        guard let headFiles else { return }
        for path in order where differs(path) { differing.insert(path) }
        for path in headFiles.keys where items[path] == nil { differing.insert(path) }
    }

    private func differs(_ path: String) -> Bool {
        guard let entry = headFiles?[path], let item = items[path], item.kind == entry.kind, entry.id != nil else { return true }
        return item.kind == .file && (item.id == nil || item.id != entry.id)
    }

    /// Records whether `path` (just inserted or removed) differs from HEAD now.
    private func noteDifference(_ path: String) {
        if headFiles?[path] == nil && items[path] == nil {
            differing.remove(path)
        } else if differs(path) {
            differing.insert(path)
        } else {
            differing.remove(path)
        }
    }

    private func checkBridge() {
        guard let webFolder else { return }
        let displayPrefix = BridgeCheck.displayPrefix(webFolder: webFolder, repositoryRoot: location.repository?.workdir)
        do {
            bridge = try BridgeCheck.run(webFolder: webFolder, displayPrefix: displayPrefix).diagnostics
            bridgeFailure = nil
        } catch {
            bridgeFailure = "\(error)"
        }
    }

    /// The state now.
    public var snapshot: Snapshot {
        Snapshot(output: output, current: isCurrent, findings: found, bridge: bridge, unreadable: hasUnreadable ? unreadable : [])
    }

    /// Applies edits: `changed` holds paths relative to the content folder (files or folders
    /// created, written, moved or deleted), `webChanged` says the web build changed, and
    /// `gitChanged` that the repository's refs may have moved. Whatever could not be read
    /// before is read again too. Returns what was checked again.
    @discardableResult
    public func update(changed: Set<String>, webChanged: Bool = false, gitChanged: Bool = false) throws -> Scope {
        Trace.mark("watch: \(changed.count) paths changed")
        if reloadFailure != nil { return try reloadEverything() }
        memo.beginBuild()
        defer { memo.endBuild() }
        var scope = Scope.nothing
        let headMoved = gitChanged && refreshHead()
        var full = headMoved
        var inPlace: [String: ParsedFile] = [:]
        var treeChanged = false
        let webChanged = webChanged || bridgeFailure != nil
        for path in changed.union(failed.keys).sorted() where !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            if path == "ratecard.yaml" {
                // It names the web folder, which decides what is content: read everything again.
                return try reloadEverything()
            }
            let before = items[path]
            touched = (false, false)
            let edit = reread(path)
            let after = items[path]
            if let before, let after, before.kind == after.kind, before.isContent == after.isContent,
                before.id != nil, before.id == after.id
            {
                continue  // written again with the same bytes
            }
            if let edit, let previous = before?.parsed, Self.sameSlot(previous, edit) {
                inPlace[path] = edit
            } else if touched.content {
                full = true
            } else if touched.tree {
                // A web build file inside the content folder: not content, but git compares it.
                treeChanged = true
            }
        }
        Trace.mark("watch: files read again")
        if full {
            assemble()
            found = validator.check(content, base: base)
            scope = .everything
        } else if !inPlace.isEmpty {
            scope = patch(inPlace)
        }
        Trace.mark("watch: checked again")
        if webChanged { checkBridge() }
        guard scope != .nothing || webChanged || headMoved || treeChanged || stale else { return .nothing }
        try rebuild()
        return scope
    }

    /// Reads, checks and builds everything again (after ratecard.yaml changed, or when the
    /// watcher lost events). When the work tree cannot be read, the state before is kept, not
    /// current, and the next update tries again.
    @discardableResult
    public func reloadEverything() throws -> Scope {
        memo.beginBuild()
        defer { memo.endBuild() }
        do {
            try loadAll()
            reloadFailure = nil
        } catch {
            reloadFailure = "\(error)"
            stale = true
            return .everything
        }
        refreshHead(force: true)
        found = validator.check(content, base: base)
        checkBridge()
        try rebuild()
        return .everything
    }

    /// Whether a re-read file takes the same place in the content as before: a rate table or
    /// terms version that parsed both times (anything else changes what other files are
    /// checked against, or which files the content lists).
    static func sameSlot(_ before: ParsedFile, _ after: ParsedFile) -> Bool {
        switch (before.model, after.model) {
        case (.rateTable(.some), .rateTable(.some)): return before.role == after.role
        case (.terms(.some, _), .terms(.some, _)): return before.role == after.role
        default: return false
        }
    }

    /// Reads one path of the work tree again: returns the parsed file when it is a content
    /// file that exists now. A path that cannot be read keeps what it had (it is not taken as
    /// gone) and is recorded in `failed`, to be read again by the next update.
    private func reread(_ path: String) -> ParsedFile? {
        do {
            let parsed = try read(path)
            failed[path] = nil
            return parsed
        } catch {
            failed[path] = "\(error)"
            return nil
        }
    }

    private func read(_ path: String) throws -> ParsedFile? {
        var info = stat()
        let full = root + "/" + path
        guard lstat(full, &info) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { throw FileSystem.failure("lstat", full) }
            remove(path)
            return nil
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            // A folder created or moved in: everything in it (listed before anything is dropped).
            if try WorkingTreeSource.list(full).contains(where: { $0.name == ".git" }) {
                remove(path)
                insert(path, Item(kind: .submodule, id: nil, isContent: !isUnderWebBuild(path), parsed: nil))
                return nil
            }
            let entries = try WorkingTreeSource(root: full, contentRoot: .repositoryRoot).entries()
            remove(path)
            for entry in entries { _ = reread(path + "/" + entry.path) }
            return nil
        case S_IFLNK:
            remove(path)
            insert(path, Item(kind: .symlink, id: nil, isContent: !isUnderWebBuild(path), parsed: nil))
            return nil
        case S_IFREG:
            break
        default:
            remove(path)
            return nil
        }
        let bytes = try FileSystem.readFile(full)
        let id = Repository.blobID(of: bytes)
        if isUnderWebBuild(path) {
            insert(path, Item(kind: .file, id: id, isContent: false, parsed: nil))
            return nil
        }
        let entry = TreeEntry(path: path, kind: .file, id: nil)
        let source = WorkingTreeSource(root: root, contentRoot: contentRoot)
        let loaded = try ContentLoader.loadFile(entry, path: prefix + path, source: source, caches: caches)
        insert(path, Item(kind: .file, id: loaded.key?.id ?? loaded.hashed ?? id, isContent: true, parsed: loaded.file))
        if case .asset = FileRole(path) {
            assets[path] = bytes
        }
        return loaded.file
    }

    /// The folder `web:` in ratecard.yaml names inside the content (`site/`): not content.
    private var webPrefix: String?

    /// Whether `path` lies in the web folder that ratecard.yaml names inside the content.
    private func isUnderWebBuild(_ path: String) -> Bool {
        webPrefix.map(path.hasPrefix) ?? false
    }

    /// What the last `reread` changed: content items, other items of the tree.
    private var touched = (content: false, tree: false)

    private func insert(_ path: String, _ item: Item) {
        let before = items.updateValue(item, forKey: path)
        defer { noteDifference(path) }
        if before == nil {
            var low = 0
            var high = order.count
            while low < high {
                let middle = (low + high) / 2
                if order[middle] < path { low = middle + 1 } else { high = middle }
            }
            order.insert(path, at: low)
        }
        if item.isContent || before?.isContent == true {
            touched.content = true
        } else if before?.id != item.id || before?.kind != item.kind {
            touched.tree = true
        }
    }

    private func remove(_ path: String) {
        let below = path + "/"
        if !failed.isEmpty { failed = failed.filter { $0.key != path && !$0.key.hasPrefix(below) } }
        if let removed = items.removeValue(forKey: path) {
            if let index = order.firstIndex(of: path) { order.remove(at: index) }
            if removed.isContent { touched.content = true } else { touched.tree = true }
            noteDifference(path)
        }
        assets[path] = nil
        guard order.contains(where: { $0.hasPrefix(below) }) else { return }
        for inner in order where inner.hasPrefix(below) {
            if items[inner]?.isContent == true { touched.content = true } else { touched.tree = true }
            items[inner] = nil
            assets[inner] = nil
            noteDifference(inner)
        }
        order.removeAll { $0.hasPrefix(below) }
    }

    /// Puts re-read rate tables and terms versions in their places, and checks again only what
    /// they can change (`IncrementalCheck`): the products of the tables, the documents of the
    /// terms versions.
    private func patch(_ edits: [String: ParsedFile]) -> Scope {
        var products: Set<String> = []
        var documents: Set<String> = []
        for (relative, file) in edits {
            let path = prefix + relative
            content.fileDiagnostics.removeAll { $0.path == path }
            content.fileDiagnostics.append(contentsOf: file.diagnostics)
            content.fileIDs[path] = items[relative]?.id
            switch file.model {
            case .rateTable(let table?):
                if let index = content.rateTableIndex(path: path) { content.replaceRateTable(at: index, with: table) }
                products.insert(table.productKey)
            case .terms(let version?, let text):
                if let index = content.termsIndex(path: path) { content.replaceTermsVersion(at: index, with: version) }
                content.termsText[path] = text
                documents.insert(version.documentID)
            default:
                break
            }
        }
        found = IncrementalCheck.recheck(found, content: content, base: base, products: products, documents: documents, validator: validator)
        if !documents.isEmpty && products.isEmpty && documents.count == 1 { return .document(documents.first!) }
        if documents.isEmpty { return .products(products.sorted()) }
        return .everything
    }

    /// The content reduced to the terms documents `documents`: their versions and text, every
    /// partner and shared file, no products.
    static func cut(_ content: Content, to documents: Set<String>, paths: Set<String>) -> Content {
        var cut = Content(root: content.root)
        cut.config = content.config
        cut.limits = content.limits
        cut.phrases = content.phrases
        cut.quotationWarnings = content.quotationWarnings
        cut.signoffs = content.signoffs
        cut.partners = content.partners
        // By position, through a buffer pointer: a filter over the versions (or indexing the
        // array) would copy each of the 2,000 whole to test it.
        cut.terms = content.terms.withUnsafeBufferPointer { terms in terms.indices.filter { documents.contains(terms[$0].documentID) }.map { terms[$0] } }
        for path in paths { cut.termsText[path] = content.termsText[path] }
        cut.assets = content.assets
        cut.partnerFiles = content.partnerFiles
        cut.productFiles = content.productFiles
        cut.fileDiagnostics = content.fileDiagnostics.filter { paths.contains($0.path) }
        return cut
    }

    /// Builds the bundle when the content has no errors and every file could be read (keeping
    /// the last good one otherwise).
    private func rebuild() throws {
        stale = true
        guard !found.contains(where: { $0.severity == .error }), failed.isEmpty, reloadFailure == nil else { return }
        let root = location.repository == nil ? nil : contentRoot.treePath
        let dirty = dirty
        var builder = BundleBuilder(asOf: asOf, sourceCommit: dirty ? nil : head, sourceDirty: dirty, sourceRoot: root, cache: caches.build)
        builder.memo = memo
        let assets = assets
        output = try builder.build(content) { asset in
            guard let bytes = assets[asset] else { throw OperationalError("\(asset) is not in the work tree", ko: "\(asset)이(가) 작업 트리에 없습니다") }
            return bytes
        }
        built = true
        stale = false
        Trace.mark("watch: built")
    }
}
