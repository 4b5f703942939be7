/// Lists the regular files of a folder tree, relative paths, refusing symlinks.
public enum ReleaseFiles {
    public static func list(_ root: String) throws -> [String] {
        var result: [String] = []
        try walk(root, "", &result, follows: { _ in false })
        return result.sorted()
    }

    /// A web build's files as a release takes them: every regular file but dot-files and what
    /// dot-folders hold (nginx serves none of those).
    public static func webBuild(_ root: String) throws -> [String] {
        try list(root).filter { path in !path.split(separator: "/").contains { $0.hasPrefix(".") } }
    }

    /// Walks `root`, appending the relative paths of its regular files to `result`; a symlink at
    /// a relative path for which `follows` is true is walked into (a release's link to its page
    /// set, `PageSets`), any other is refused.
    package static func walk(_ root: String, _ relative: String, _ result: inout [String], follows: (String) -> Bool) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        for name in try FileSystem.listDirectory(folder) {
            let path = relative.isEmpty ? name : relative + "/" + name
            switch try FileSystem.kind(ofItemAt: root + "/" + path) {
            case .directory: try walk(root, path, &result, follows: { _ in false })
            case .file: result.append(path)
            case .symlink:
                if follows(path) {
                    try walk(root, path, &result, follows: { _ in false })
                } else {
                    throw OperationalError("\(root)/\(path) is a symlink; releases hold regular files only", ko: "\(root)/\(path)은(는) 심볼릭 링크입니다; 릴리스에는 일반 파일만 둡니다")
                }
            case .other: throw OperationalError("\(root)/\(path) is not a regular file", ko: "\(root)/\(path)은(는) 일반 파일이 아닙니다")
            }
        }
    }
}
