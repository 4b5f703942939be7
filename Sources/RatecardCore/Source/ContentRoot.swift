/// The content root: the folder of a repository's tree that holds `ratecard.yaml` (`content`),
/// or the tree's own root. Content files are named relative to it; findings, file ids and the
/// bundle name them as the repository does (`content/partners/a.yaml`).
public struct ContentRoot: Hashable, Sendable {
    /// The folder's path in the tree, without a trailing slash (`content`), or "" for the
    /// repository's root: what the tree is walked under and what a manifest records as
    /// `source_root`.
    public let treePath: String

    public init(treePath: String) {
        self.treePath = treePath
    }

    /// The root of the repository's own tree.
    public static let repositoryRoot = ContentRoot(treePath: "")

    /// What a content-relative path is prefixed with to name it in the repository: `content/`,
    /// or "" at the repository's root.
    public var displayPrefix: String { treePath.isEmpty ? "" : treePath + "/" }

    /// A content-relative path as the repository names it (`partners/a.yaml` ->
    /// `content/partners/a.yaml`).
    public func path(_ relative: String) -> String { displayPrefix + relative }

    /// The content-relative path of a repository path inside the root, or nil for a path outside it.
    public func relative(_ path: String) -> String? {
        guard path.hasPrefix(displayPrefix) else { return nil }
        return String(path.dropFirst(displayPrefix.count))
    }
}
