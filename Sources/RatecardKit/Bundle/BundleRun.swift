import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// Validates content and renders it into a bundle, refusing content with errors.
public struct BundleRun {
    public var location: ContentLocation
    public var asOf: Day
    /// The run's caches: what loading, checking and rendering keep.
    public var caches: Caches
    /// Build a commit whose parent is not in this shallow clone, its history rules skipped;
    /// without it such a build is refused (a check that cannot run is never a pass).
    public var allowShallow: Bool
    /// Terms pages and product documents the build cache holds are named by their entry, not
    /// read (`BundleBuilder.namesCachedPages`): for `build --out`, whose writer reads only those
    /// it writes.
    public var namesCachedPages = false

    public init(location: ContentLocation, asOf: Day, caches: Caches, allowShallow: Bool = false) {
        self.location = location
        self.asOf = asOf
        self.caches = caches
        self.allowShallow = allowShallow
    }

    /// What `build` produced, or the report that stopped it.
    public enum Outcome {
        case built(BundleBuilder.Output, ValidationRun.Snapshot)
        case invalid(ValidationReport)
    }

    /// The live release a publish may build onto.
    public struct Base {
        public var store: any ReleaseStore
        public var release: String
        /// Its version.json, when already read.
        public var info: ReleaseInfo?

        public init(store: any ReleaseStore, release: String, info: ReleaseInfo?) {
            self.store = store
            self.release = release
            self.info = info
        }
    }

    /// A bundle `build` made, and what it was made from.
    public struct Built {
        public var output: BundleBuilder.Output
        public var commit: ObjectID?
        /// The content checked; nil when the bundle was built onto the live one (which reads only
        /// the changed part of it).
        public var content: Content?
        /// The products re-rendered when it was built onto the live bundle; nil for a full build.
        public var builtOntoLive: [String]?
        /// Built onto the live bundle: the first day after the as-of date on which something in
        /// the re-read part takes effect (the rest is the live release's).
        public var scheduledInChanged: Day?
    }

    /// The bundle of `revision`, in one call: onto `base`'s bundle when the change allows it (the
    /// everyday rate update: `IncrementalBundle`, byte for byte what a full build gives), else in
    /// full, which checks everything and returns the report when the content has errors.
    public func build(revision: String, onto base: Base?) throws -> BuildResult {
        if let base, let repository = location.repository, let commit = try? repository.resolveCommit(revision),
            case .built(let output, let products, let scheduled)? = IncrementalBundle(location: location, asOf: asOf, caches: caches).build(
                commit: commit, root: base.store, live: base.release, known: base.info)
        {
            return .built(Built(output: output, commit: commit, content: nil, builtOntoLive: products, scheduledInChanged: scheduled))
        }
        switch try render(revision: revision) {
        case .invalid(let report): return .invalid(report)
        case .built(let output, let snapshot): return .built(Built(output: output, commit: snapshot.commit, content: snapshot.content))
        }
    }

    /// What `build` gave: a bundle, or the report of the content's errors.
    public enum BuildResult {
        case built(Built)
        case invalid(ValidationReport)
    }

    /// Throws an `OperationalError` (exit 4) when rules could not run for lack of history and
    /// skipping them was not asked for (`allowShallow`).
    public func render(revision: String?) throws -> Outcome {
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: caches, allowShallow: allowShallow)
        // The load renders each terms page's article from the parse it makes anyway; the pages
        // take them (what none took is dropped when the build ends).
        caches.articles.collect(true)
        defer { caches.articles.clear() }
        let snapshot: ValidationRun.Snapshot
        do {
            defer { caches.articles.collect(false) }
            snapshot = try run.snapshot(revision: revision)
        }
        Trace.mark("build: validated")
        if let refusal = snapshot.report.refusal { throw OperationalError(refusal) }
        if snapshot.report.hasErrors { return .invalid(snapshot.report) }
        let root = location.repository == nil ? nil : snapshot.source.contentRoot.treePath
        var builder = BundleBuilder(asOf: asOf, sourceCommit: snapshot.dirty ? nil : snapshot.commit, sourceDirty: snapshot.dirty, sourceRoot: root, cache: caches.build)
        // With a build cache, the units an earlier run rendered (product documents, partners'
        // rates pages and their sections) are taken from it by the keys the watch rebuild uses.
        if let cache = caches.build { builder.memo = RenderMemo(store: cache) }
        builder.articles = caches.articles
        builder.namesCachedPages = namesCachedPages
        let source = snapshot.source
        // Blob ids of a commit's files, listed once (not once per asset).
        let blobs = (source as? CommitSource).flatMap { try? $0.entries() }.map { entries in
            Dictionary(entries.map { ($0.path, $0.id) }, uniquingKeysWith: { first, _ in first })
        }
        let output = try builder.build(snapshot.content) { asset in
            try source.read(TreeEntry(path: asset, kind: .file, id: blobs?[asset] ?? nil))
        }
        Trace.mark("build: rendered \(output.files.count) files")
        return .built(output, snapshot)
    }

    /// The web build folder: `override` (`--web`), else `configured` (`web:` in ratecard.yaml, as
    /// the command read it; asked only without `override`), else `../site` beside the content. A folder that is named but
    /// missing is an error that says which and how to mend it: a publish without the web app
    /// would leave the app's screens blank.
    public func webFolder(override: String?, configured: @autoclosure () throws -> String?) throws -> String {
        if let override {
            guard FileSystem.isDirectory(override) else { throw OperationalError("--web \(override) is not a folder", ko: "--web \(override)은(는) 폴더가 아닙니다") }
            return override
        }
        guard let contentDir = location.contentDir else {
            throw OperationalError("a commit read without a content folder has no web build beside it; pass --web DIR", ko: "콘텐츠 폴더 없이 읽은 커밋에는 옆에 웹 빌드가 없습니다; --web DIR을 주세요")
        }
        let setting = try configured()
        let configured = setting ?? "../site"
        let path = Environment.lexicallyNormalized(configured.hasPrefix("/") ? configured : contentDir + "/" + configured)
        guard FileSystem.isDirectory(path), FileSystem.exists(path + "/index.html") else {
            let named =
                setting == nil
                ? Message("the default web build folder ../site", ko: "기본 웹 빌드 폴더 ../site")
                : Message("the web build folder 'web: \(configured)' in ratecard.yaml", ko: "ratecard.yaml의 웹 빌드 폴더 'web: \(configured)'")
            let fix = Message(
                "put the web app's build there, set web: in ratecard.yaml, or pass --web DIR", ko: "그곳에 웹 앱의 빌드를 두거나, ratecard.yaml에 web:을 쓰거나, --web DIR을 주세요")
            throw OperationalError(
                FileSystem.isDirectory(path)
                    ? Message("\(named) is missing its index.html (\(path))", ko: "\(named)에 index.html이 없습니다 (\(path))").then(fix)
                    : Message("\(named) is not there (\(path))", ko: "\(named)이(가) 없습니다 (\(path))").then(fix))
        }
        return path
    }
}

extension CommitSource {
    /// The blob id of a content-relative path in this commit.
    func blobID(of path: String) -> ObjectID? {
        (try? entries())?.first { $0.path == path }?.id
    }
}
