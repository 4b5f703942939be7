import Glibc

/// Content read from a folder on disk (the default: what an editor has changed).
///
/// Symlinks are listed as symlinks (`lstat`), and a folder holding its own `.git` is listed
/// as a submodule; neither is entered. Dot-files are skipped.
public struct WorkingTreeSource: ContentSource {
    public var root: String
    public var displayPrefix: String

    public init(root: String, displayPrefix: String) {
        self.root = root
        self.displayPrefix = displayPrefix
    }

    public func entries() throws -> [TreeEntry] {
        var result: [TreeEntry] = []
        try walk(relative: "", into: &result)
        return result.sorted { $0.path < $1.path }
    }

    public func read(_ entry: TreeEntry) throws -> [UInt8] {
        try FileSystem.readFile(root + "/" + entry.path)
    }

    public func size(_ entry: TreeEntry) throws -> Int {
        try FileSystem.size(ofFileAt: root + "/" + entry.path)
    }

    private func walk(relative: String, into result: inout [TreeEntry]) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        for name in try FileSystem.listDirectory(folder) where !name.hasPrefix(".") {
            let path = relative.isEmpty ? name : relative + "/" + name
            switch try FileSystem.kind(ofItemAt: root + "/" + path) {
            case .symlink:
                result.append(TreeEntry(path: path, kind: .symlink, id: nil))
            case .directory:
                if (try? FileSystem.kind(ofItemAt: root + "/" + path + "/.git")) != nil {
                    result.append(TreeEntry(path: path, kind: .submodule, id: nil))
                } else {
                    try walk(relative: path, into: &result)
                }
            case .file:
                result.append(TreeEntry(path: path, kind: .file, id: nil))
            case .other:
                break
            }
        }
    }
}
