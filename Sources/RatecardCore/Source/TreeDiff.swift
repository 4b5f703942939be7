internal import CGit2

/// The entries that differ between two commits' trees. Subtrees with equal ids are skipped, so a
/// one-file commit costs a few tree reads, not a walk of the whole tree (libgit2's
/// `git_diff_tree_to_tree` reads every tree: 7 ms a commit on 11,600 files). No rename detection:
/// a move is a deletion and an addition; a deleted or added folder is one change.
///
/// Owns its own `git_repository` handle; like `Repository`, use it from one thread.
package final class TreeDiff {
    package struct Change: Sendable, Equatable {
        package enum Status: Sendable, Equatable {
            case added
            case deleted
            case modified
            case other
        }

        /// Path from the repository root.
        package var path: String
        package var status: Status
        package var oldID: ObjectID?
        package var newID: ObjectID?
        /// Both sides are regular files (blobs, executable or not), not symlinks or submodules.
        package var bothFiles: Bool
    }

    private let handle: OpaquePointer

    package init(gitDir: String) throws(GitError) {
        LibGit2.ensureInitialized()
        var out: OpaquePointer?
        try Repository.check("git_repository_open", git_repository_open(&out, gitDir))
        handle = out!
    }

    deinit { git_repository_free(handle) }

    package func changes(from old: ObjectID, to new: ObjectID) throws(GitError) -> [Change] {
        let oldTree = try tree(of: old)
        defer { git_tree_free(oldTree) }
        let newTree = try tree(of: new)
        defer { git_tree_free(newTree) }
        var changes: [Change] = []
        try compare(oldTree, newTree, path: "", into: &changes)
        return changes.sorted { $0.path < $1.path }
    }

    private struct Entry {
        var name: String
        var id: git_oid
        var mode: UInt32
        var isTree: Bool { mode == GIT_FILEMODE_TREE.rawValue }
    }

    /// Both trees' entries by name; equal ids are skipped, differing subtrees compared in turn.
    private func compare(_ old: OpaquePointer, _ new: OpaquePointer, path: String, into changes: inout [Change]) throws(GitError) {
        var added = Dictionary(entries(of: new).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for before in entries(of: old) {
            let full = path + before.name
            guard let after = added.removeValue(forKey: before.name) else {
                changes.append(Change(path: full, status: .deleted, oldID: ObjectID(before.id), newID: nil, bothFiles: false))
                continue
            }
            var oldID = before.id
            var newID = after.id
            if git_oid_equal(&oldID, &newID) != 0 && before.mode == after.mode { continue }
            if before.isTree && after.isTree {
                let oldSubtree = try lookupTree(&oldID)
                defer { git_tree_free(oldSubtree) }
                let newSubtree = try lookupTree(&newID)
                defer { git_tree_free(newSubtree) }
                try compare(oldSubtree, newSubtree, path: full + "/", into: &changes)
            } else {
                changes.append(
                    Change(
                        path: full, status: before.isTree || after.isTree ? .other : .modified, oldID: ObjectID(before.id),
                        newID: ObjectID(after.id), bothFiles: Self.isFile(before.mode) && Self.isFile(after.mode)))
            }
        }
        for after in added.values {
            changes.append(Change(path: path + after.name, status: .added, oldID: nil, newID: ObjectID(after.id), bothFiles: false))
        }
    }

    private func entries(of tree: OpaquePointer) -> [Entry] {
        (0..<git_tree_entrycount(tree)).compactMap { index in
            guard let entry = git_tree_entry_byindex(tree, index) else { return nil }
            return Entry(
                name: String(cString: git_tree_entry_name(entry)), id: git_tree_entry_id(entry)!.pointee,
                mode: git_tree_entry_filemode(entry).rawValue)
        }
    }

    private func lookupTree(_ id: inout git_oid) throws(GitError) -> OpaquePointer {
        var tree: OpaquePointer?
        try Repository.check("git_tree_lookup", git_tree_lookup(&tree, handle, &id))
        return tree!
    }

    private static func isFile(_ mode: UInt32) -> Bool {
        mode == GIT_FILEMODE_BLOB.rawValue || mode == GIT_FILEMODE_BLOB_EXECUTABLE.rawValue
    }

    private func tree(of commit: ObjectID) throws(GitError) -> OpaquePointer {
        var object: OpaquePointer?
        var oid = commit.raw
        try Repository.check("git_commit_lookup", git_commit_lookup(&object, handle, &oid))
        defer { git_commit_free(object) }
        var tree: OpaquePointer?
        try Repository.check("git_commit_tree", git_commit_tree(&tree, object))
        return tree!
    }
}
