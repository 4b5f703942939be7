import RatecardCore
import RatecardOutput
import RatecardSupport

/// The outcome of validating a work tree, a commit or a range of commits.
public struct ValidationReport: Sendable {
    public var diagnostics: [Diagnostic]
    /// The commits checked (empty for a work tree).
    public var commits: [CommitStamp]
    /// How many files were parsed (files whose blob did not change are parsed once).
    public var filesParsed: Int
    /// How many content files the last snapshot held.
    public var files: Int
    /// What the run could not check, and why (a parent missing from a shallow clone): shown
    /// beside the findings, never as one of them.
    public var notes: [Message] = []
    /// The rules that could not run on a commit (`UnrunRules`): a check that did not run is
    /// never a pass, so such a report is incomplete unless skipping was asked for.
    public var unrun: [UnrunRules] = []
    /// Whether rules that could not run were skipped on request (`--allow-shallow`).
    public var skipAllowed = false

    /// Findings still present at the end (for a range: not fixed by a later commit in it).
    public var present: [Diagnostic] { diagnostics.filter { $0.fixedBy == nil } }
    /// Findings of a range that a later commit in it fixed (history, not a problem now).
    public var fixed: [Diagnostic] { diagnostics.filter { $0.fixedBy != nil } }

    public var errorCount: Int { present.filter { $0.severity == .error }.count }
    public var warningCount: Int { present.filter { $0.severity == .warning }.count }
    public var hasErrors: Bool { errorCount > 0 }

    /// The ids of the rules that did not run on some commit, in the rule table's order.
    public var unrunRules: [String] {
        let ids = Set(unrun.flatMap(\.rules))
        return Rule.all.map(\.id).filter(ids.contains)
    }

    /// True when rules could not run and skipping them was not asked for: a refusal, never a pass.
    public var incomplete: Bool { !unrun.isEmpty && !skipAllowed }

    /// The refusal of an incomplete report: every rule not run, why, and the fixes; nil when complete.
    public var refusal: Message? {
        guard incomplete else { return nil }
        let rules = unrunRules
        let commits = unrun.map(\.commit.short).joined(separator: ", ")
        return Message(
            "\(rules.count) rules could not run: \(rules.joined(separator: ", ")) compare a commit with its parent, and the parent of \(commits) is not in this clone (a shallow clone); fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range); or pass --allow-shallow to skip them",
            ko:
                "규칙 \(rules.count)개를 실행하지 못했습니다: 이 규칙들(\(rules.joined(separator: ", ")))은 커밋을 부모 커밋과 비교하는데, 커밋 \(commits)의 부모 커밋이 이 클론에 없습니다 (얕은 클론); 'git fetch --deepen=1'로 가져오세요 (GitHub Actions에서는 actions/checkout에 fetch-depth: 2, --range에는 0); 일부러 건너뛰려면 --allow-shallow 옵션을 주세요"
        )
    }
}

/// Rules that could not run on one commit: the history rules, when its parent is not in this
/// clone (the edge of a shallow clone). A root commit has no parent and is not such a case.
public struct UnrunRules: Sendable, Equatable {
    public var commit: ObjectID
    /// The parent the rules compare with, missing from the clone.
    public var parent: ObjectID
    /// Rule ids, in the rule table's order: every rule that needs the parent.
    public var rules: [String]

    public init(commit: ObjectID, parent: ObjectID, rules: [String] = HistoryRules.all.map(\.id)) {
        self.commit = commit
        self.parent = parent
        self.rules = rules
    }
}

/// Validates content from where it lives: the work tree, one commit, or every commit of a range.
public final class ValidationRun {
    public let location: ContentLocation
    public let validator: Validator
    public let loader: ContentLoader
    /// Skip the rules that cannot run for lack of history (`--allow-shallow`) instead of
    /// reporting the run as incomplete.
    public let allowShallow: Bool

    /// `caches`: the run's (parsed files, terms scans kept between runs).
    public init(location: ContentLocation, context: ValidationContext, caches: Caches, allowShallow: Bool = false) {
        self.location = location
        self.validator = Validator(context: context)
        loader = ContentLoader(caches: caches)
        self.allowShallow = allowShallow
    }

    /// One validated snapshot: the content, where it came from, and what is wrong with it.
    public struct Snapshot {
        public var content: Content
        public var source: any ContentSource
        public var report: ValidationReport
        /// The commit read, or HEAD for a work tree.
        public var commit: ObjectID?
        /// True when the work tree's content differs from HEAD (or there is no HEAD).
        public var dirty: Bool
    }

    /// The work tree, with history rules against HEAD when there is one.
    public func validateWorkingTree() throws -> ValidationReport {
        try checkingHead(snapshot(revision: nil)).report
    }

    /// A work tree that is HEAD's content, byte for byte, is HEAD: the history rules compared
    /// it with HEAD itself, so HEAD's own change went unchecked, and that is only sound when a
    /// check of HEAD against its parent could run. When the parent is not in this clone (the
    /// edge of a shallow clone), the report says so and is incomplete (exit 4) unless skipping
    /// was asked for (`--allow-shallow`), as `--rev HEAD` is.
    func checkingHead(_ snapshot: Snapshot) throws -> Snapshot {
        guard !snapshot.dirty, let head = snapshot.commit, let repository = location.repository else { return snapshot }
        var snapshot = snapshot
        for parent in try repository.commitInfo(head).parents where !repository.hasObject(parent) {
            let unrun = UnrunRules(commit: head, parent: parent)
            snapshot.report.unrun.append(unrun)
            snapshot.report.notes.append(missingParentNote(unrun))
        }
        snapshot.report.skipAllowed = allowShallow
        return snapshot
    }

    /// One commit, read from git objects, with history rules against its first parent.
    /// The work tree, and the native bridge of the web build beside it (its schema, its
    /// generated runtime, its calls, against the app versions each environment lists), when
    /// there is one.
    public func validateWorkingTreeAndWebBuild() throws -> ValidationReport {
        let snapshot = try checkingHead(snapshot(revision: nil))
        var report = snapshot.report
        if let web = try? BundleRun(location: location, asOf: validator.context.asOf, caches: loader.caches).webFolder(override: nil, configured: snapshot.content.config?.web) {
            let prefix = BridgeCheck.displayPrefix(webFolder: web, repositoryRoot: location.repository?.workdir)
            let apps = (snapshot.content.config?.environments ?? []).map { (environment: $0.name, apps: $0.apps) }
            report.diagnostics = (report.diagnostics + (try BridgeCheck.run(webFolder: web, displayPrefix: prefix, apps: apps)).diagnostics).sorted()
        }
        return report
    }

    /// `validator`'s findings on `content` against `base`: with a build cache, from the findings
    /// an earlier run kept for it where only rate tables and terms versions changed since
    /// (`KeptFindings`), else every rule over the whole content.
    func check(_ validator: Validator, _ content: Content, base: Content?) -> [Diagnostic] {
        guard let cache = loader.caches.build else { return validator.check(content, base: base) }
        return KeptFindings(validator: validator, cache: cache).check(content, base: base)
    }

    public func validate(revision: String) throws -> ValidationReport {
        try snapshot(revision: revision).report
    }

    /// Loads and validates the work tree (`revision == nil`) or one commit.
    public func snapshot(revision: String?) throws -> Snapshot {
        guard let revision else {
            var source = try location.workingTree()
            source.stamps = WorkTreeStamps(root: source.root, cache: loader.caches.build)
            Trace.mark("load: work tree and its stamps opened")
            let content = try loader.load(source)
            source.stamps?.save()
            let hashed = loader.hashedIDs
            let listed = loader.walked
            var base: Content?
            var head: ObjectID?
            var dirty = true
            if let repository = location.repository, let commit = try repository.headCommit(),
                let root = location.contentRoot,
                let entries = try TreeListing.entries(repository, commit: commit, under: root.treePath, cache: loader.caches.build)
            {
                head = commit
                let baseSource = CommitSource(repository: repository, commit: commit, contentRoot: root)
                let committed = baseSource.filtered(entries)
                let changes = try Self.changes(source, listed: listed, from: committed, hashed: hashed)
                dirty = changes?.files.isEmpty != true
                // A work tree that is HEAD byte for byte is HEAD's content: what was just loaded
                // is the base. One that differs from HEAD only in rate tables and terms versions
                // (an edit) gives HEAD's content with those files read from HEAD. Else HEAD is
                // loaded from the entries already listed (its files the work tree shares come
                // from the parse cache).
                if !dirty {
                    base = content
                } else if let changes, let derived = try Self.derivedBase(content, changes, committed: committed, loader: loader, from: baseSource) {
                    base = derived
                    Trace.note("validate: HEAD derived from the work tree (\(changes.files.count) files differ)")
                } else {
                    base = try loader.load(baseSource, listed: committed)
                }
                Trace.mark("validate: HEAD compared")
            }
            let report = ValidationReport(
                diagnostics: check(validator, content, base: base), commits: [],
                filesParsed: loader.parses, files: content.fileCount)
            return Snapshot(content: content, source: source, report: report, commit: head, dirty: dirty)
        }
        let repository = try location.requireRepository()
        let commit = try Self.resolve(revision, in: repository)
        let info = try repository.commitInfo(commit)
        let source = try location.source(for: commit)
        Trace.mark("validate: commit resolved")
        let content = try loader.load(source)
        // The parent for history rules: derived from this commit's content when they differ
        // only in rate tables edited in place (no second walk of the tree), else loaded. A
        // shallow clone may not hold it: then the history rules cannot run, and the report says
        // so (incomplete, unless skipping was asked for).
        var unrun: [UnrunRules] = []
        let parents = info.parents.filter { parent in
            guard !repository.hasObject(parent) else { return true }
            unrun.append(UnrunRules(commit: commit, parent: parent))
            return false
        }
        let base = try parents.first.flatMap { parent -> Content? in
            if let parentSource = try? location.source(for: parent),
                let (derived, _) = try IncrementalRange(validator: validator, loader: loader, diff: try TreeDiff(gitDir: repository.gitDir))
                    .reread(content, of: commit, as: parent, source: parentSource)
            {
                return derived
            }
            return try loadIfPresent(parent)
        }
        Trace.mark("validate: parent derived")
        let report = ValidationReport(
            diagnostics: check(Validator(context: validator.context.forCommit(info)), content, base: base),
            commits: [CommitStamp(id: commit, summary: info.summary)],
            filesParsed: loader.parses, files: content.fileCount, notes: unrun.map(missingParentNote) + (info.parents.isEmpty ? [Self.rootNote(commit)] : []), unrun: unrun,
            skipAllowed: allowShallow)
        Trace.mark("validate: checked")
        return Snapshot(content: content, source: source, report: report, commit: commit, dirty: false)
    }

    /// A revision as a commit id, or an error that names the revision. A revision that names
    /// nothing is a usage error (exit 2) with the nearest names it may have meant: branches,
    /// tags, HEAD and `alsoAccepted` (the environment names `diff` takes in its place); a commit
    /// a shallow clone did not fetch, or git failing, is operational (exit 4).
    package static func resolve(_ revision: String, in repository: Repository, alsoAccepted: [String] = []) throws -> ObjectID {
        let result: Result<ObjectID, GitError> = Result { () throws(GitError) in try repository.resolveCommit(revision) }
        switch result {
        case .success(let id): return id
        case .failure(let error):
            if error.namesNothing, let unknown = unknownRevision(revision, in: repository, alsoAccepted: alsoAccepted) { throw unknown }
            var message = Message("revision '\(revision)' cannot be read: \(error.message)", ko: "리비전 '\(revision)'을(를) 읽을 수 없습니다: \(error.message)")
            if repository.isShallow {
                message = message.then(
                    Message(
                        "this is a shallow clone, so older commits may not have been fetched: run 'git fetch --unshallow' (in GitHub Actions: actions/checkout with fetch-depth: 0)",
                        ko: "얕은 클론이라 오래된 커밋을 가져오지 않았을 수 있습니다: 'git fetch --unshallow'를 실행하세요 (GitHub Actions에서는 actions/checkout에 fetch-depth: 0)"))
            }
            throw OperationalError(message)
        }
    }

    /// The usage error for a revision that names nothing, or nil when it is a commit past the
    /// edge of a shallow clone (missing, not unknown).
    static func unknownRevision(_ revision: String, in repository: Repository, alsoAccepted: [String]) -> UsageError? {
        // The name the revision starts from (`main` of `main~3`), and whether that much exists.
        let name = String(revision.prefix { !"~^@:".contains($0) })
        let nameExists = name != revision && !name.isEmpty && (try? repository.resolveCommit(name)) != nil
        // A shallow clone did not fetch every commit: one named by its id may just be missing.
        let commitID = revision.count >= 4 && revision.allSatisfy(\.isHexDigit)
        if repository.isShallow && (nameExists || commitID) { return nil }
        if nameExists {
            return UsageError("unknown revision '\(revision)': '\(name)' has no such ancestor", ko: "알 수 없는 리비전 '\(revision)': '\(name)'에는 그런 조상 커밋이 없습니다")
        }
        let known = ((try? repository.referenceNames()) ?? []) + ["HEAD"] + alsoAccepted
        return UsageError(
            Message("unknown revision '\(revision)': no branch, tag or commit of that name", ko: "알 수 없는 리비전 '\(revision)': 그런 이름의 브랜치, 태그, 커밋이 없습니다")
                .then(Suggestion.didYouMean(name.isEmpty ? revision : name, in: known)))
    }

    /// What to say when a commit's parent is missing (a shallow clone's edge): every rule not
    /// run, why, and the fixes (or that they were skipped on request).
    package func missingParentNote(_ unrun: UnrunRules) -> Message {
        let rules = unrun.rules.joined(separator: ", ")
        let (commit, parent) = (unrun.commit.short, unrun.parent.short)
        let fetch = "fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range)"
        let fetchKorean = "'git fetch --deepen=1'로 가져오세요 (GitHub Actions에서는 actions/checkout에 fetch-depth: 2, --range에는 0)"
        if allowShallow {
            return Message(
                "history rules (\(rules)) were skipped for \(commit) (--allow-shallow): its parent \(parent) is not in this clone (a shallow clone); \(fetch)",
                ko: "\(commit) 커밋의 이력 규칙(\(rules))은 요청대로 건너뛰었습니다 (--allow-shallow): 부모 커밋(\(parent))이 이 클론에 없습니다 (얕은 클론); \(fetchKorean)")
        }
        return Message(
            "history rules (\(rules)) could not run for \(commit): its parent \(parent) is not in this clone (a shallow clone); \(fetch); or pass --allow-shallow to skip them",
            ko: "\(commit) 커밋의 이력 규칙(\(rules))은 실행하지 못했습니다: 부모 커밋(\(parent))이 이 클론에 없습니다 (얕은 클론); \(fetchKorean); 일부러 건너뛰려면 --allow-shallow 옵션을 주세요")
    }

    /// What to say of a root commit (the first commit, an orphan branch, a squash): the history
    /// rules compare a commit with its parent, and it has none.
    package static func rootNote(_ commit: ObjectID) -> Message {
        let rules = HistoryRules.all.map(\.id).joined(separator: ", ")
        return Message(
            "\(commit.short) is a root commit (no parent): the history rules (\(rules)) had nothing to compare with; publish compares the published terms versions and rate tables with the live release",
            ko: "\(commit.short) 커밋은 루트 커밋입니다 (부모 커밋 없음): 이력 규칙(\(rules))은 비교할 대상이 없었습니다; publish는 게시된 약관 버전과 금리표를 라이브 릴리스와 비교합니다")
    }

    /// What is staged, with history rules against HEAD (the pre-commit hook): the repository's
    /// index, or `indexFile`, the index git made for this commit (`StagedCommit`).
    ///
    /// The hook judges the change being committed: a problem HEAD already holds (committed
    /// with --no-verify, or before a rule existed) is not from this change and does not block
    /// it; the report names such problems in a note instead, as `--range` leaves out problems
    /// a commit's parent already had.
    public func validateStaged(indexFile: String? = nil) throws -> ValidationReport {
        let repository = try location.requireRepository()
        guard let root = location.contentRoot else { throw OperationalError("--staged needs a work tree", ko: "--staged에는 작업 트리가 필요합니다") }
        let content = try loader.load(IndexSource(repository: repository, contentRoot: root, indexFile: indexFile))
        var base: Content?
        let head = try repository.headCommit()
        if let head, try repository.treeEntries(commit: head, under: root.treePath) != nil {
            base = try loader.load(CommitSource(repository: repository, commit: head, contentRoot: root))
        }
        var found = validator.check(content, base: base)
        var notes: [Message] = []
        if let head, let base {
            let committed = Set(validator.check(base).map(\.key))
            let old = found.filter { committed.contains($0.key) }
            found.removeAll { committed.contains($0.key) }
            if let note = Self.alreadyCommittedNote(old, head: head) { notes.append(note) }
        }
        return ValidationReport(diagnostics: found, commits: [], filesParsed: loader.parses, files: content.fileCount, notes: notes)
    }

    /// What to say about problems HEAD already holds, which a commit is not blocked for.
    static func alreadyCommittedNote(_ problems: [Diagnostic], head: ObjectID) -> Message? {
        let errors = problems.filter { $0.severity == .error }
        guard !errors.isEmpty else { return nil }
        let named = errors.prefix(5).map { "\($0.rule) \($0.path):\($0.mark)" }.joined(separator: ", ")
        let more = errors.count > 5 ? " (+\(errors.count - 5))" : ""
        return Message(
            "\(errors.count) error(s) already committed in HEAD (\(head.short)) are not from this change and do not block it: \(named)\(more); 'ratecard validate --rev HEAD' shows them",
            ko: "HEAD(\(head.short))에 이미 커밋된 오류 \(errors.count)개는 이번 변경에서 생긴 것이 아니라 커밋을 막지 않습니다: \(named)\(more); 'ratecard validate --rev HEAD'로 확인하세요")
    }

    /// The content at a revision (or the work tree for nil), without validating it.
    public func content(at revision: String?) throws -> Content {
        guard let revision else { return try loader.load(try location.workingTree()) }
        return try loader.load(try location.source(for: try Self.resolve(revision, in: try location.requireRepository())))
    }

    /// The commit a revision names; a typo is a usage error that suggests the nearest branches,
    /// tags and `alsoAccepted` (names the caller takes in place of a revision).
    public func commit(of revision: String, alsoAccepted: [String] = []) throws -> ObjectID {
        try Self.resolve(revision, in: try location.requireRepository(), alsoAccepted: alsoAccepted)
    }

    /// How the work tree's files differ from a commit's tree.
    package struct Changes {
        /// Each file whose bytes differ or that only the work tree holds, with the commit's blob
        /// id (nil for a file the commit does not hold); empty when the work tree is the
        /// commit's tree byte for byte.
        package var files: [(path: String, id: ObjectID?)] = []
        /// The files read and hashed here to be compared, the same in both, with their blob id:
        /// those the load does not hash (files that are not content, the web build inside the
        /// content folder).
        package var hashedHere: [(path: String, id: ObjectID)] = []
    }

    /// The commit's content derived from the work tree's `content` (`ContentLoader.derive`),
    /// with the commit's ids of the unchanged content files the work tree's load did not hash;
    /// nil when it cannot be derived (then the commit is loaded).
    package static func derivedBase(_ content: Content, _ changes: Changes, committed: [TreeEntry], loader: ContentLoader, from source: CommitSource) throws -> Content? {
        guard var derived = try loader.derive(content, changes: changes.files, from: source) else { return nil }
        if !changes.hashedHere.isEmpty {
            // The web build inside the content folder is not content: a load of the commit has no ids of its files.
            let web = ContentLoader.webBuildPrefix(committed, source: source)
            for (path, id) in changes.hashedHere where !(web.map { path.hasPrefix($0) } ?? false) {
                derived.fileIDs[source.contentRoot.path(path)] = id
            }
        }
        return derived
    }

    /// How the work tree's files differ from a commit's tree (`committed`, its entries); nil when
    /// the commit holds an entry the work tree does not, or an entry of another kind. `hashed`
    /// holds ids already computed for work-tree files (by the load that validated them);
    /// `listed` holds the work tree's entries when a load has just listed them.
    package static func changes(_ workTree: WorkingTreeSource, listed: [TreeEntry]? = nil, from committed: [TreeEntry], hashed: [String: ObjectID] = [:]) throws -> Changes? {
        let files = try listed ?? workTree.entries()
        var byPath: [String: (kind: TreeEntry.Kind, id: ObjectID?)] = [:]
        byPath.reserveCapacity(committed.count)
        for entry in committed { byPath[entry.path] = (entry.kind, entry.id) }
        var changes = Changes()
        var matched = 0
        for file in files {
            guard let entry = byPath[file.path] else {
                guard file.kind == .file else { return nil }
                changes.files.append((file.path, nil))
                continue
            }
            matched += 1
            guard file.kind == entry.kind, let id = entry.id else { return nil }
            guard file.kind == .file else { continue }
            if let known = hashed[file.path] {
                if known != id { changes.files.append((file.path, id)) }
                continue
            }
            // A file over every size limit differs from any committed (valid) one: never read it.
            if try workTree.size(file) > max(SourceText.maxBytes, AssetRules.maxBytes) {
                changes.files.append((file.path, id))
            } else if try Repository.blobID(of: workTree.read(file)) != id {
                changes.files.append((file.path, id))
            } else {
                changes.hashedHere.append((file.path, id))
            }
        }
        return matched == committed.count ? changes : nil
    }

    /// Every commit in `A..B`, oldest first; each problem is reported once, stamped with the
    /// commit that introduced it (problems already present in its parent are not repeated).
    /// A problem that a later commit of the range fixed is kept as history, stamped with that
    /// commit (`fixedBy`); the others are still present at the range's end and carry their
    /// position in its last commit. A history finding (HIS) is about its commit's change: it is
    /// fixed by the later commit from which the rules, comparing that commit with the state
    /// before the change, no longer find it (the sign-off HIS-06 asked for, added in the next
    /// commit, covers the change as it would in the same commit).
    public func validate(range: String) throws -> ValidationReport {
        let repository = try location.requireRepository()
        let (baseRev, tipRev) = try Self.split(range: range)
        let tip = try Self.resolve(tipRev, in: repository)
        let base = try baseRev.map { try Self.resolve($0, in: repository) }
        let walked: Result<[ObjectID], GitError> = Result { () throws(GitError) in try repository.commits(from: base, to: tip) }
        let commits: [ObjectID]
        switch walked {
        case .success(let list): commits = list
        case .failure(let error) where repository.isShallow:
            throw OperationalError(
                "the commits of \(range) cannot all be read: this is a shallow clone and part of the range was not fetched (\(error.message)); run 'git fetch --unshallow' (in GitHub Actions: actions/checkout with fetch-depth: 0)",
                ko: "\(range)의 커밋을 모두 읽을 수 없습니다: 얕은 클론이라 범위의 일부를 가져오지 않았습니다 (\(error.message)); 'git fetch --unshallow'를 실행하세요 (GitHub Actions에서는 actions/checkout에 fetch-depth: 0)"
            )
        case .failure(let error): throw error
        }
        var unrun: [UnrunRules] = []
        var roots: [Message] = []
        // Reported problems not fixed yet, by key: the indices into `reported`.
        var open: [String: [Int]] = [:]
        var lastFound: [Diagnostic] = []
        let incremental = IncrementalRange(validator: validator, loader: loader, diff: try TreeDiff(gitDir: repository.gitDir))
        var snapshots: [ObjectID: Content] = [:]
        var problems: [ObjectID: Set<String>] = [:]
        // The last snapshot's findings without history rules: an incremental step starts from them.
        var plainFindings: [ObjectID: [Diagnostic]] = [:]
        var reported: [Diagnostic] = []
        var stamps: [CommitStamp] = []
        var files = 0
        // History findings of a commit, not covered by a later commit yet, with the content before
        // that commit and the commit's context: each later commit is judged against them.
        var pendingHistory: [(indices: [Int], base: Content, context: ValidationContext)] = []
        for commit in commits {
            let info = try repository.commitInfo(commit)
            let stamp = CommitStamp(id: commit, summary: info.summary)
            stamps.append(stamp)
            var parent: Content?
            var known: Set<String> = []
            if info.parents.isEmpty { roots.append(Self.rootNote(commit)) }
            if let parentID = info.parents.first, !repository.hasObject(parentID) {
                unrun.append(UnrunRules(commit: commit, parent: parentID))
            } else if let parentID = info.parents.first {
                parent = try snapshots[parentID] ?? loadIfPresent(parentID)
                if let parent, problems[parentID] == nil {
                    let plain = validator.check(parent)
                    plainFindings[parentID] = plain
                    problems[parentID] = Set(plain.map(\.key))
                }
                known = problems[parentID] ?? []
            }
            let content: Content
            let found: [Diagnostic]
            if let parentID = info.parents.first, let parent, let plain = plainFindings[parentID],
                let step = try incremental.step(parent: parentID, parentContent: parent, parentPlain: plain, commit: commit, source: location.source(for: commit))
            {
                content = step.content
                found = step.found
                plainFindings = [commit: step.plain]
            } else {
                content = try self.content(of: commit)
                let context = validator.context.forCommit(info)
                found = Validator(context: context).check(content, base: parent)
                plainFindings = [commit: IncrementalRange.withoutHistory(found, content, base: parent, context: context)]
            }
            files = content.fileCount
            let keys = Set(found.map(\.key))
            problems[commit] = keys
            for (key, indices) in open where !keys.contains(key) {
                for index in indices { reported[index].fixedBy = stamp }
                open[key] = nil
            }
            for pending in pendingHistory {
                let net = Diagnostics()
                HistoryRules.check(content, base: pending.base, context: pending.context, into: net)
                for index in pending.indices {
                    if Self.historyFinding(reported[index], isIn: net.items) {
                        reported[index].fixedBy = nil
                    } else if reported[index].fixedBy == nil {
                        reported[index].fixedBy = stamp
                    }
                }
            }
            var history: [Int] = []
            for var diagnostic in found where !known.contains(diagnostic.key) {
                diagnostic.commit = stamp
                if diagnostic.rule.hasPrefix("HIS-") {
                    history.append(reported.count)
                } else {
                    open[diagnostic.key, default: []].append(reported.count)
                }
                reported.append(diagnostic)
            }
            if !history.isEmpty, let parent {
                pendingHistory.append((history, parent, validator.context.forCommit(info)))
            }
            lastFound = found
            snapshots = [commit: content]
        }
        // What is still present is annotated where it is in the last commit (lines may have moved).
        var marks: [String: [SourceMark]] = [:]
        for diagnostic in lastFound { marks[diagnostic.key, default: []].append(diagnostic.mark) }
        for indices in open.values {
            for (index, mark) in zip(indices, marks[reported[indices[0]].key] ?? []) { reported[index].mark = mark }
        }
        return ValidationReport(
            diagnostics: reported, commits: stamps, filesParsed: loader.parses, files: files, notes: unrun.map(missingParentNote) + roots, unrun: unrun, skipAllowed: allowShallow)
    }

    /// Whether a history finding of an earlier commit is still among `net`, the history rules'
    /// findings between a later commit and the content before the earlier one. A sign-off rule
    /// (HIS-05, HIS-06) names the change in its message, so the same message is the same change;
    /// any other keeps its finding while its rule still fires on the same file (the numbers or
    /// the line in its message may have moved with a later edit).
    static func historyFinding(_ finding: Diagnostic, isIn net: [Diagnostic]) -> Bool {
        let byChange = [HistoryRules.regulatoryLimits.id, HistoryRules.regulatoryPhrases.id].contains(finding.rule)
        return net.contains { $0.key == finding.key || (!byChange && $0.rule == finding.rule && $0.path == finding.path) }
    }

    /// `A..B`, `A..` (to HEAD) or `..B` (from the root).
    package static func split(range: String) throws -> (String?, String) {
        guard let dots = range.range(of: "..") else {
            throw OperationalError("range '\(range)' must look like A..B", ko: "범위 '\(range)'은(는) A..B 형식이어야 합니다")
        }
        let base = String(range[..<dots.lowerBound])
        let tip = String(range[dots.upperBound...])
        return (base.isEmpty ? nil : base, tip.isEmpty ? "HEAD" : tip)
    }

    /// The content of a commit named by its id (a release's source commit), without validating it.
    public func content(of commit: ObjectID) throws -> Content {
        try loader.load(try location.source(for: commit))
    }

    private func loadIfPresent(_ commit: ObjectID) throws -> Content? {
        guard let root = try? location.contentRoot(in: commit),
            try location.requireRepository().treeEntries(commit: commit, under: root.treePath) != nil
        else { return nil }
        return try content(of: commit)
    }
}

extension Content {
    /// How many files of each kind were read (for summaries).
    package var fileCount: Int {
        partnerFiles.count + productFiles.count + rateTables.count + termsText.count + assets.count
            + (config == nil ? 0 : 1) + (limits == nil ? 0 : 1) + (phrases == nil ? 0 : 1)
    }
}
