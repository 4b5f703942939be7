/// The outcome of validating a work tree, a commit or a range of commits.
public struct ValidationReport: Sendable {
    public var diagnostics: [Diagnostic]
    /// The commits checked (empty for a work tree).
    public var commits: [CommitStamp]
    /// How many files were parsed (files whose blob did not change are parsed once).
    public var filesParsed: Int
    /// How many content files the last snapshot held.
    public var files: Int

    public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
    public var warningCount: Int { diagnostics.filter { $0.severity == .warning }.count }
    public var hasErrors: Bool { errorCount > 0 }
}

/// Validates content from where it lives: the work tree, one commit, or every commit of a range.
public final class ValidationRun {
    public let location: ContentLocation
    public let validator: Validator
    public let loader = ContentLoader()

    public init(location: ContentLocation, context: ValidationContext) {
        self.location = location
        self.validator = Validator(context: context)
    }

    /// The work tree, with history rules against HEAD when there is one.
    public func validateWorkingTree() throws -> ValidationReport {
        let source = try location.workingTree()
        let content = try loader.load(source)
        var base: Content?
        if let repository = location.repository, let head = try repository.headCommit(),
           let prefix = location.treePrefix, try repository.treeEntries(commit: head, under: prefix) != nil {
            base = try loader.load(CommitSource(repository: repository, commit: head, treePrefix: prefix))
        }
        return ValidationReport(
            diagnostics: validator.check(content, base: base), commits: [],
            filesParsed: loader.parses, files: try source.entries().count)
    }

    /// One commit, read from git objects, with history rules against its first parent.
    public func validate(revision: String) throws -> ValidationReport {
        let repository = try location.requireRepository()
        let commit = try repository.resolveCommit(revision)
        let info = try repository.commitInfo(commit)
        let content = try load(commit)
        let base = try info.parents.first.flatMap { try loadIfPresent($0) }
        return ValidationReport(
            diagnostics: validator.check(content, base: base),
            commits: [CommitStamp(id: commit, summary: info.summary)],
            filesParsed: loader.parses, files: content.fileCount)
    }

    /// Every commit in `A..B`, oldest first; each problem is reported once, stamped with the
    /// commit that introduced it (problems already present in its parent are not repeated).
    public func validate(range: String) throws -> ValidationReport {
        let repository = try location.requireRepository()
        let (baseRev, tipRev) = try Self.split(range: range)
        let tip = try repository.resolveCommit(tipRev)
        let base = try baseRev.map { try repository.resolveCommit($0) }
        let commits = try repository.commits(from: base, to: tip)
        var snapshots: [ObjectID: Content] = [:]
        var problems: [ObjectID: Set<String>] = [:]
        var reported: [Diagnostic] = []
        var stamps: [CommitStamp] = []
        var files = 0
        for commit in commits {
            let info = try repository.commitInfo(commit)
            let stamp = CommitStamp(id: commit, summary: info.summary)
            stamps.append(stamp)
            let content = try snapshots[commit] ?? load(commit)
            files = content.fileCount
            var parent: Content?
            var known: Set<String> = []
            if let parentID = info.parents.first {
                parent = try snapshots[parentID] ?? loadIfPresent(parentID)
                if let parent {
                    known = problems[parentID] ?? Set(validator.check(parent).map(\.key))
                }
            }
            let found = validator.check(content, base: parent)
            problems[commit] = Set(found.map(\.key))
            for var diagnostic in found where !known.contains(diagnostic.key) {
                diagnostic.commit = stamp
                reported.append(diagnostic)
            }
            snapshots = [commit: content]
        }
        return ValidationReport(diagnostics: reported, commits: stamps, filesParsed: loader.parses, files: files)
    }

    /// `A..B`, `A..` (to HEAD) or `..B` (from the root).
    static func split(range: String) throws -> (String?, String) {
        guard let dots = range.range(of: "..") else {
            throw OperationalError("range '\(range)' must look like A..B")
        }
        let base = String(range[..<dots.lowerBound])
        let tip = String(range[dots.upperBound...])
        return (base.isEmpty ? nil : base, tip.isEmpty ? "HEAD" : tip)
    }

    private func load(_ commit: ObjectID) throws -> Content {
        try loader.load(try location.source(for: commit))
    }

    private func loadIfPresent(_ commit: ObjectID) throws -> Content? {
        guard let prefix = try? location.treePrefix(in: commit),
              try location.requireRepository().treeEntries(commit: commit, under: prefix) != nil else { return nil }
        return try load(commit)
    }
}

extension Content {
    /// How many files of each kind were read (for summaries).
    var fileCount: Int {
        partnerFiles.count + productFiles.count + rateTables.count + termsText.count + assets.count
            + (config == nil ? 0 : 1) + (limits == nil ? 0 : 1) + (phrases == nil ? 0 : 1)
    }
}
