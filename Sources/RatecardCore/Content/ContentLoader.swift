import RatecardSupport
import Synchronization

/// Reads a content snapshot from a source and parses every file into the content model.
///
/// Parsed files are cached by path and blob id (the run's `Caches.parse`), so validating many
/// commits re-parses only the files whose blobs changed. Not thread-safe.
public final class ContentLoader {
    /// The run's caches: parsed files, and terms scans kept between runs.
    package let caches: Caches
    /// How many files were actually parsed (cache misses); `validate --range` reports it.
    public private(set) var parses = 0
    /// Keys this loader has loaded (what `parses` counts); the parsed files are in `caches.parse`.
    private var seen: Set<ParseKey> = []
    /// Blob ids of the work-tree files the last `load` read and hashed, by content-relative path
    /// (so checking the work tree against HEAD does not read and hash them again).
    package private(set) var hashedIDs: [String: ObjectID] = [:]
    /// Every entry the last `load` listed (before the web build was left out).
    package private(set) var walked: [TreeEntry] = []

    public init(caches: Caches) { self.caches = caches }

    /// Loads every file below the source's content root; `listed`: the source's entries, when
    /// the caller has just listed them (not listed twice).
    public func load(_ source: any ContentSource, listed: [TreeEntry]? = nil) throws -> Content {
        var content = Content(root: source.contentRoot)
        let listed = try listed ?? source.entries()
        walked = listed
        let entries = Self.withoutWebBuild(listed, source: source)
        Trace.mark("load: \(entries.count) tree entries, \(Workers.count) threads")
        // Every file is taken from the cache or read and parsed, on `Workers.count` threads for a large tree.
        caches.parse.reserve(entries.count)
        var loaded = try ParallelParse.run(entries.indices.filter { entries[$0].kind == .file }, of: entries, from: source, caches: caches)
        Trace.mark("load: files read and parsed")
        hashedIDs = [:]
        seen.reserveCapacity(seen.count + entries.count)
        let root = content.root
        Self.assemble(entries, into: &content) { index in
            // Moved out, not copied: a copy of a parsed file retains each of its strings.
            let file = loaded[index].take()!
            count(file, path: entries[index].path, root: root)
            if let id = file.hashed { hashedIDs[entries[index].path] = id }
            return (file.file, file.key?.id ?? file.hashed)
        }
        Trace.mark("load: content assembled")
        return content
    }

    /// The content of `entries` (sorted by path), each file given by `file(index)` with its blob
    /// id when known: the same for a full load and for a process that keeps its files between
    /// edits (`preview --watch`).
    package static func assemble(_ entries: [TreeEntry], into content: inout Content, file: (Int) -> (ParsedFile, ObjectID?)) {
        let root = content.root
        content.fileIDs.reserveCapacity(entries.count)
        for index in entries.indices {
            switch entries[index].kind {
            case .symlink:
                content.fileDiagnostics.append(
                    Diagnostic(
                        path: root.path(entries[index].path), mark: .start, rule: FileRules.symlink,
                        message: Message(
                            "symlinks are not allowed in the content tree; replace it with the file itself", ko: "콘텐츠 안에는 심볼릭 링크를 둘 수 없습니다; 링크 대신 실제 파일을 두세요")))
                continue
            case .submodule:
                content.fileDiagnostics.append(
                    Diagnostic(
                        path: root.path(entries[index].path), mark: .start, rule: FileRules.submodule,
                        message: Message("submodules are not allowed in the content tree; copy the files in", ko: "콘텐츠 안에는 서브모듈을 둘 수 없습니다; 파일을 직접 복사해 넣으세요")))
                continue
            case .file:
                break
            }
            let (parsed, id) = file(index)
            if let id { content.fileIDs[root.path(entries[index].path)] = id }
            content.add(parsed, relative: entries[index].path)
        }
        for required in ["ratecard.yaml", "regulatory/limits.yaml", "regulatory/phrases.yaml"]
        where !entries.contains(where: { $0.path == required }) {
            content.fileDiagnostics.append(
                Diagnostic(
                    path: root.path(required), mark: .start, rule: SchemaRules.missingFile,
                    message: Message("required file \(required) is missing", ko: "필수 파일 \(required)이(가) 없습니다")))
        }
        content.identified = true
    }

    /// The entries less the web build, when `web:` in ratecard.yaml names a folder inside the
    /// content root (as `ratecard init` lays it out: `web: site`): the web app is not content.
    package static func withoutWebBuild(_ entries: [TreeEntry], source: any ContentSource) -> [TreeEntry] {
        guard let prefix = webBuildPrefix(entries, source: source) else { return entries }
        // The folder itself is an entry when it is a checkout of its own (a submodule).
        return entries.filter { !$0.path.hasPrefix(prefix) && $0.path + "/" != prefix }
    }

    /// The web folder that `web:` in ratecard.yaml names inside the content root, as a path
    /// prefix (`site/`), or nil. A peek at one key, tolerant on purpose: it decides which files
    /// are content before the file is validated, and the run's own read of ratecard.yaml
    /// reports every problem with it at its line and column.
    package static func webBuildPrefix(_ entries: [TreeEntry], source: any ContentSource) -> String? {
        guard let config = entries.first(where: { $0.path == "ratecard.yaml" && $0.kind == .file }),
            let size = try? source.size(config), size <= SourceText.maxBytes,
            let bytes = try? source.read(config), let text = try? SourceText.decode(bytes),
            let node = try? YAMLParser.parse(Array(text.utf8)), case .mapping(let pairs) = node.kind,
            let value = pairs.first(where: { $0.key.scalarText == "web" })?.value.scalarText
        else { return nil }
        let folder = value.hasPrefix("./") ? String(value.dropFirst(2)) : value
        let parts = folder.split(separator: "/")
        guard !folder.hasPrefix("/"), !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        return parts.joined(separator: "/") + "/"
    }

    /// Counts a loaded file as parsed the way this loader always has: a work-tree file (no blob
    /// id) every time, a blob the first time this loader sees its path and id, whether it was
    /// parsed now or taken from the cache another loader filled (a publish validates the work
    /// tree, HEAD, its parent and the live commit, which mostly share blobs). A work-tree file
    /// read and hashed is a blob seen too: HEAD's copy of it is not counted again.
    private func count(_ file: LoadedFile, path relative: String? = nil, root: ContentRoot? = nil) {
        guard let key = file.key else {
            parses += 1
            if let id = file.hashed, let relative, let root { seen.insert(Self.key(root.path(relative), id)) }
            return
        }
        if seen.insert(key).inserted { parses += 1 }
    }

    /// One file as a load needs it: parsed, the blob id computed for a work-tree file, and the
    /// cache key of a blob.
    package struct LoadedFile {
        package var file: ParsedFile
        package var hashed: ObjectID?
        package var key: ParseKey?
    }

    /// Loads one file: from the cache, or read and parsed. A work-tree file that is not content
    /// is not read (nothing in it is checked); an asset is hashed like content, so its check is
    /// kept by its blob id. Touches no loader state, so two threads may run it with a source each.
    package static func loadFile(_ entry: TreeEntry, path: String, source: any ContentSource, caches: Caches) throws -> LoadedFile {
        if let id = entry.id {
            let key = key(path, id)
            if let cached = caches.parse.file(key) { return LoadedFile(file: cached, key: key) }
            let parsed = try parse(entry, path: path, source: source, bytes: nil, id: id, cache: caches.build, articles: caches.articles)
            caches.parse.store(parsed, for: key)
            return LoadedFile(file: parsed, key: key)
        }
        // Classified once for the steps below (each of 11,600 files of a work tree).
        let role = FileRole(entry.path)
        switch role {
        case .unexpected:
            return LoadedFile(file: try parse(entry, path: path, source: source, bytes: nil, id: nil, cache: nil, role: role))
        default:
            let (file, hashed) = try readAndParse(entry, path: path, source: source, caches: caches, role: role)
            return LoadedFile(file: file, hashed: hashed)
        }
    }

    package static func key(_ path: String, _ id: ObjectID) -> ParseKey { ParseKey(path: path, id: id) }

    /// Reads, hashes (work-tree files: the id is returned) and parses one file, storing it in the
    /// run's parse cache. Touches no loader state, so two threads may run it with a source each.
    /// `role`: `FileRole(entry.path)`, when the caller has it.
    package static func readAndParse(
        _ entry: TreeEntry, path: String, source: any ContentSource, caches: Caches, role given: FileRole? = nil
    ) throws -> (file: ParsedFile, hashed: ObjectID?) {
        let role = given ?? FileRole(entry.path)
        var bytes: [UInt8]?
        let id: ObjectID
        if let known = entry.id {
            id = known
        } else if let tree = source as? WorkingTreeSource {
            // A work-tree file the stamps vouch for is not read here (its parsed record may be kept).
            let (read, size, known) = try tree.readIdentified(entry, limit: role == .asset ? AssetRules.maxBytes : SourceText.maxBytes)
            guard let known else {
                // An asset over its limit is refused by its check, from its size.
                if role == .asset { return (try parse(entry, path: path, source: source, bytes: nil, id: nil, cache: nil, role: role), nil) }
                return (ParsedFile(role: role, model: .none, diagnostics: [tooLarge(path, size: size)]), nil)
            }
            bytes = read
            id = known
        } else {
            let (read, size) = try source.read(entry, limit: SourceText.maxBytes)
            guard let read else {
                return (ParsedFile(role: role, model: .none, diagnostics: [tooLarge(path, size: size)]), nil)
            }
            bytes = read
            id = Repository.blobID(of: read)
        }
        let hashed = entry.id == nil ? id : nil
        let key = key(path, id)
        if let cached = caches.parse.file(key) { return (cached, hashed) }
        let parsed = try parse(entry, path: path, source: source, bytes: bytes, id: id, cache: caches.build, articles: caches.articles, role: role)
        caches.parse.store(parsed, for: key)
        return (parsed, hashed)
    }

    /// Re-reads one rate table of `content` from `source` in place (`validate --range` after a
    /// commit that only edited rate tables). Returns false, leaving `content` as it was, unless
    /// the table parsed both before and after, so the content lists the same files in the same
    /// order as `load(source)` would.
    package func replaceRateTable(in content: inout Content, with entry: TreeEntry, from source: any ContentSource) throws -> Bool {
        guard case .rateTable = FileRole(entry.path) else { return false }
        return try replace(in: &content, with: entry, from: source)
    }

    /// The content of another snapshot of the same tree, derived from `content` where the two
    /// differ only in rate tables and terms versions (a work tree after an edit, against HEAD):
    /// `changes` names each file that differs (content-relative) with its blob id in the other
    /// snapshot, nil when the other snapshot does not hold it; `source` reads the other
    /// snapshot. Nil when anything else differs, or a changed file parses on one side only:
    /// then the other snapshot is loaded in full. The result lists the same files in the same
    /// order as `load(source)` would (`theBaseDerivedFromTheWorkTreeIsHeadLoaded` checks it).
    package func derive(_ content: Content, changes: [(path: String, id: ObjectID?)], from source: any ContentSource) throws -> Content? {
        guard content.root == source.contentRoot else { return nil }
        var derived = content
        for change in changes {
            guard !change.path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return nil }
            switch FileRole(change.path) {
            case .rateTable, .terms: break
            default: return nil
            }
            if let id = change.id {
                guard try replace(in: &derived, with: TreeEntry(path: change.path, kind: .file, id: id), from: source) else { return nil }
            } else {
                Self.remove(change.path, from: &derived)
            }
        }
        return derived
    }

    /// Re-reads one rate table or terms version of `content` from `source` in place; false,
    /// leaving `content` as it was, unless the file parses on both sides or (a terms version) on
    /// neither, so no file changes its place in the lists.
    private func replace(in content: inout Content, with entry: TreeEntry, from source: any ContentSource) throws -> Bool {
        let path = source.contentRoot.path(entry.path)
        guard entry.kind == .file else { return false }
        let role = FileRole(entry.path)
        let index: Int?
        switch role {
        case .rateTable: index = content.rateTableIndex(path: path)
        case .terms: index = content.termsIndex(path: path)
        default: return false
        }
        let loaded = try Self.loadFile(entry, path: path, source: source, caches: caches)
        let parsed = loaded.file
        switch parsed.model {
        case .rateTable(let table?):
            guard let index else { return false }
            content.replaceRateTable(at: index, with: table)
        case .terms(let version, let text):
            guard (index == nil) == (version == nil) else { return false }
            if let index, let version { content.replaceTermsVersion(at: index, with: version) }
            content.termsText[path] = text
        default:
            return false
        }
        count(loaded)
        content.fileIDs[path] = entry.id
        content.fileDiagnostics.removeAll { $0.path == path }
        content.fileDiagnostics.append(contentsOf: parsed.diagnostics)
        return true
    }

    /// Takes a rate table or terms version out of `content`, as if it had never been listed.
    private static func remove(_ relative: String, from content: inout Content) {
        let path = content.root.path(relative)
        switch FileRole(relative) {
        case .rateTable:
            if let index = content.rateTableIndex(path: path) { content.rateTables.remove(at: index) }
        case .terms:
            if let index = content.termsIndex(path: path) { content.terms.remove(at: index) }
            content.termsText[path] = nil
        default:
            return
        }
        content.fileIDs[path] = nil
        content.fileDiagnostics.removeAll { $0.path == path }
    }

    /// Parses one file; `id` is its blob id (the key of what the persistent `cache` holds for it).
    /// A terms body's page article is kept in `articles` when they are collected.
    private static func parse(
        _ entry: TreeEntry, path: String, source: any ContentSource, bytes read: [UInt8]?, id: ObjectID?, cache: BuildCache?, articles: PageArticles? = nil,
        role given: FileRole? = nil
    ) throws -> ParsedFile {
        let role = given ?? FileRole(entry.path)
        if case .asset = role {
            // An asset checked before by this build, with nothing found, is not read again.
            let recordKey = id.flatMap { id in cache != nil ? ParsedRecord.key(path: path, id: id) : nil }
            if let recordKey, let payload = cache?.read(recordKey), case .asset? = ParsedRecord.decode(payload) {
                return ParsedFile(role: role, model: .asset, diagnostics: [])
            }
            let size = try read?.count ?? source.size(entry)
            let problems = try AssetRules.fileDiagnostics(path: path, size: size) { try read ?? source.read(entry) }
            if let recordKey, problems.isEmpty, let payload = ParsedRecord.encode(.asset) { cache?.write(recordKey, payload) }
            return ParsedFile(role: role, model: .asset, diagnostics: problems)
        }
        if case .unexpected(let hint) = role {
            let diagnostic = Diagnostic(path: path, mark: .start, rule: SchemaRules.unexpectedFile, message: hint)
            return ParsedFile(role: role, model: .none, diagnostics: [diagnostic])
        }
        // A rate table, product file or terms version parsed by an earlier run, kept by its path
        // and blob id (a terms version's text is the file's, read here).
        let recordKey = id.flatMap { id in cache != nil && ParsedRecord.kept(role) ? ParsedRecord.key(path: path, id: id) : nil }
        if let recordKey, let payload = cache?.read(recordKey) {
            var file: [UInt8] = []
            if case .terms = role { file = try read ?? source.read(entry) }
            if let model = ParsedRecord.decode(payload, file: file) { return ParsedFile(role: role, model: model, diagnostics: []) }
        }
        let diagnostics = Diagnostics()
        if read == nil, let tooLarge = try oversized(entry, path: path, source: source) {
            return ParsedFile(role: role, model: .none, diagnostics: [tooLarge])
        }
        let bytes = try read ?? source.read(entry)
        var model: ParsedFile.Model
        do {
            model = try parseModel(role, bytes: bytes, path: path, id: id, cache: cache, articles: articles, diagnostics: diagnostics)
        } catch let error as YAMLError {
            diagnostics.report(FileRules.rule(for: error), path, error.mark, FileRules.message(for: error, in: bytes))
            model = .none
            // A terms file that no longer parses still exists: history rules compare its text.
            if case .terms = role { model = .terms(nil, text: TermsText(text: String(decoding: bytes, as: UTF8.self), body: "")) }
        }
        let found = diagnostics.items
        if let recordKey, found.isEmpty, let payload = ParsedRecord.encode(model) { cache?.write(recordKey, payload) }
        return ParsedFile(role: role, model: model, diagnostics: found)
    }

    /// YML-06 for a content file over the limit, found from its size alone: a 2 GB file is never
    /// read to be refused.
    package static func oversized(_ entry: TreeEntry, path: String, source: any ContentSource) throws -> Diagnostic? {
        let size = try source.size(entry)
        guard size > SourceText.maxBytes else { return nil }
        return tooLarge(path, size: size)
    }

    package static func tooLarge(_ path: String, size: Int) -> Diagnostic {
        Diagnostic(
            path: path, mark: .start, rule: FileRules.size,
            message: Message(
                "file is \(size) bytes, over the 1 MiB limit (\(SourceText.maxBytes) bytes); split it up",
                ko: "파일 크기가 \(size)바이트로 한도 1 MiB(\(SourceText.maxBytes)바이트)를 넘습니다; 여러 파일로 나누세요"))
    }

    private static func parseModel(
        _ role: FileRole, bytes: [UInt8], path: String, id: ObjectID?, cache: BuildCache?, articles: PageArticles?, diagnostics: Diagnostics
    ) throws -> ParsedFile.Model {
        if case .terms(let document, let version) = role {
            let text = try SourceText.decode(bytes)
            let parts = try FrontMatter.split(text)
            guard let node = try YAMLParser.parse(Array(parts.yaml.utf8), lineOffset: 1) else {
                throw YAMLError(
                    rule: FileRules.frontMatter.id, mark: .start,
                    message: Message(
                        "the front matter is empty; it needs title, version, effective_from, consent, requires_reconsent and summary",
                        ko: "머리말이 비어 있습니다; title, version, effective_from, consent, requires_reconsent, summary를 써야 합니다"))
            }
            let shared = TermsText(text: text, body: parts.body)
            let terms = TermsVersion.read(
                node, path: path, documentID: document, fileVersion: version, text: shared, bodyLine: parts.bodyLine, diagnostics: diagnostics,
                scan: { body, line, title in
                    guard let articles, articles.isCollecting else { return TermsScan.scanned(body: body, firstLine: line, blob: id, cache: cache).result }
                    let scanned = TermsScan.scanned(body: body, firstLine: line, blob: id, cache: cache, article: TitleHeading.article(of: body, title: title))
                    if let article = scanned.article { articles.keep(path: path, body: body, title: title, article: article) }
                    return scanned.result
                })
            return .terms(terms, text: shared)
        }
        try SourceText.check(bytes)
        guard let node = try YAMLParser.parse(bytes) else {
            diagnostics.report(SchemaRules.empty, path, .start, Message("the file is empty", ko: "파일이 비어 있습니다"))
            return .none
        }
        switch role {
        case .config: return .config(ServiceConfig.read(node, path: path, diagnostics: diagnostics))
        case .limits: return .limits(LegalLimits.read(node, path: path, diagnostics: diagnostics))
        case .phrases:
            let read = Phrase.readAll(node, path: path, diagnostics: diagnostics)
            return .phrases(read.phrases, quotationWarnings: read.quotationWarnings)
        case .signoffs: return .signoffs(Signoff.readAll(node, path: path, diagnostics: diagnostics))
        case .partner(let id): return .partner(Partner.read(node, path: path, fileID: id, diagnostics: diagnostics))
        case .product(let partner, let product):
            return .product(Product.read(node, path: path, folderPartner: partner, folderID: product, diagnostics: diagnostics))
        case .rateTable(let partner, let product, let date):
            return .rateTable(RateTable.read(node, path: path, productKey: "\(partner)/\(product)", fileDate: date, diagnostics: diagnostics))
        case .terms, .asset, .unexpected:
            return .none
        }
    }
}

/// Parsed files by repository path and blob id, shared by every `ContentLoader` of a run
/// (`Caches.parse`; parsing is a function of the path and the bytes). Thread-safe; emptied when
/// it grows past `limit` entries so a long-lived process does not keep every version it ever read.
package final class ParseCache: Sendable {
    package static let limit = 100_000

    private let files = Mutex<[ParseKey: ParsedFile]>([:])

    package init() {}

    package func file(_ key: ParseKey) -> ParsedFile? {
        files.withLock { $0[key] }
    }

    /// Makes room for the `count` files of a first load at once (growing one file at a time
    /// rehashed the whole cache a dozen times, under the lock both loading threads take). Later
    /// loads mostly find their files already there.
    package func reserve(_ count: Int) {
        files.withLock { files in
            if files.isEmpty { files.reserveCapacity(min(Self.limit, count)) }
        }
    }

    package func store(_ file: ParsedFile, for key: ParseKey) {
        files.withLock { files in
            if files.count >= Self.limit { files.removeAll() }
            files[key] = file
        }
    }
}

/// A file as the parse cache knows it: its repository path and blob id (the path and id strings
/// the tree entry already holds, not a new string joining them for every file).
package struct ParseKey: Hashable, Sendable {
    package var path: String
    package var id: ObjectID
}

/// What a file is, from its path alone.
package enum FileRole: Sendable, Equatable {
    case config
    case limits
    case phrases
    case signoffs
    case partner(String)
    case product(partner: String, product: String)
    case rateTable(partner: String, product: String, date: String)
    case terms(document: String, version: String)
    case asset
    case unexpected(Message)

    package init(_ path: String) {
        // Split on the UTF-8 bytes: every file of every load is classified here.
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
        switch (parts.count, parts.first) {
        case (1, "ratecard.yaml"): self = .config
        case (2, "regulatory") where parts[1] == "limits.yaml": self = .limits
        case (2, "regulatory") where parts[1] == "phrases.yaml": self = .phrases
        case (2, "regulatory") where parts[1] == "signoffs.yaml": self = .signoffs
        case (2, "partners") where parts[1].hasSuffix(".yaml"):
            self = .partner(String(parts[1].dropLast(5)))
        case (4, "products") where parts[3] == "product.yaml":
            self = .product(partner: parts[1], product: parts[2])
        case (5, "products") where parts[3] == "rates" && parts[4].hasSuffix(".yaml"):
            self = .rateTable(partner: parts[1], product: parts[2], date: String(parts[4].dropLast(5)))
        case (3, "terms") where parts[2].hasSuffix(".md"):
            self = .terms(document: parts[1], version: String(parts[2].dropLast(3)))
        case (_, "assets") where parts.count >= 2 && (path.hasSuffix(".svg") || path.hasSuffix(".png")):
            self = .asset
        default:
            let files =
                "ratecard.yaml, regulatory/{limits,phrases,signoffs}.yaml, partners/<id>.yaml, products/<partner>/<product>/product.yaml, products/<partner>/<product>/rates/<YYYY-MM-DD>.yaml, terms/<doc>/<version>.md"
            var hint = Message(
                "unexpected file: content files are \(files) and assets/*.svg|png", ko: "예상하지 못한 파일입니다: 콘텐츠 파일은 \(files), assets/*.svg|png뿐입니다")
            if path.hasSuffix(".yml") {
                hint = Message("unexpected file: YAML files end in .yaml, not .yml; rename it", ko: "예상하지 못한 파일입니다: YAML 파일 이름은 .yml이 아니라 .yaml로 끝나야 합니다; 이름을 바꾸세요")
            }
            self = .unexpected(hint)
        }
    }
}

/// One parsed file: its model and the problems found reading it.
package struct ParsedFile: Sendable {
    /// The large models are boxed (`indirect`): a product is about 1 KB inline, and a parsed
    /// file is copied and stored whole for each of the 11,600 files of a load (the parse cache,
    /// the loaded list), which at 1 KB each was some 25 MB of fresh pages per run.
    package enum Model: Sendable {
        indirect case config(ServiceConfig?)
        indirect case limits(LegalLimits?)
        case phrases([Phrase]?, quotationWarnings: [Located<String>])
        case signoffs([Signoff]?)
        indirect case partner(Partner?)
        indirect case product(Product?)
        indirect case rateTable(RateTable?)
        indirect case terms(TermsVersion?, text: TermsText)
        case asset
        case none
    }

    package var role: FileRole
    package var model: Model
    package var diagnostics: [Diagnostic]
}

extension Content {
    package mutating func add(_ file: ParsedFile, relative: String) {
        fileDiagnostics.append(contentsOf: file.diagnostics)
        switch file.role {
        case .partner(let id): partnerFiles.insert(id)
        case .product(let partner, let product): productFiles.insert("\(partner)/\(product)")
        case .asset: assets.insert(relative)
        default: break
        }
        switch file.model {
        case .config(let value): config = value
        case .limits(let value): limits = value
        case .phrases(let value, let warnings):
            phrases = value
            quotationWarnings = warnings
        case .signoffs(let value): signoffs = value ?? []
        case .partner(let value?): partners.append(value)
        case .product(let value?): products.append(value)
        case .rateTable(let value?): rateTables.append(value)
        case .terms(let value, let text):
            termsText[root.path(relative)] = text
            if let value { terms.append(value) }
        default: break
        }
    }
}
