/// One entry of a content tree, as git or the file system lists it.
public struct TreeEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case file
        case symlink
        case submodule
    }

    /// Path relative to the content root, `/`-separated.
    public var path: String
    public var kind: Kind
    /// The blob id (for files read from a commit), or nil for files read from a work tree.
    public var id: ObjectID?

    public init(path: String, kind: Kind, id: ObjectID?) {
        self.path = path
        self.kind = kind
        self.id = id
    }
}
