import RatecardKit
import Testing

/// The content root's forms: the folder in the tree, the prefix of the paths findings name, and
/// the way back from such a path.
@Suite struct ContentRootTests {
    @Test func aFolderInTheTreeNamesItsFilesBelowIt() {
        let root = ContentRoot(treePath: "content")
        #expect(root.displayPrefix == "content/")
        #expect(root.path("partners/a.yaml") == "content/partners/a.yaml")
        #expect(root.relative("content/partners/a.yaml") == "partners/a.yaml")
        #expect(root.relative("contents/partners/a.yaml") == nil)
        #expect(root.relative("content") == nil)
        #expect(root.relative("site/index.html") == nil)
        #expect(ContentRoot(treePath: "a/b").path("ratecard.yaml") == "a/b/ratecard.yaml")
    }

    @Test func theRepositoryRootNamesFilesAsTheyAre() {
        let root = ContentRoot.repositoryRoot
        #expect(root.treePath == "")
        #expect(root.displayPrefix == "")
        #expect(root.path("partners/a.yaml") == "partners/a.yaml")
        #expect(root.relative("partners/a.yaml") == "partners/a.yaml")
        #expect(root == ContentRoot(treePath: ""))
        #expect(root != ContentRoot(treePath: "content"))
    }

    /// A content folder inside a repository: found from the work tree, and its findings and
    /// file ids named from the repository's root whichever source reads it.
    @Test func sourcesOfAFolderInsideTheRepositoryNameTheRepositorysPaths() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.makeDirectories(directory + "/content")
            try FileSystem.copyTree(from: Fixtures.root + "/base", to: directory + "/content")
            let repository = try Repository.create(at: directory)
            let commit = try repository.commitAll(message: "Base content", author: Fixtures.testAuthor)
            let location = try ContentLocation.find(from: directory + "/content/partners")
            #expect(location.contentRoot == ContentRoot(treePath: "content"))
            #expect(try location.contentRoot(in: commit) == ContentRoot(treePath: "content"))
            for source in [try location.workingTree() as any ContentSource, try location.source(for: commit)] {
                let content = try ContentLoader(caches: Caches()).load(source)
                #expect(content.root == ContentRoot(treePath: "content"))
                #expect(!content.fileIDs.isEmpty)
                #expect(content.fileIDs.keys.allSatisfy { $0.hasPrefix("content/") })
                #expect(content.fileIDs["content/ratecard.yaml"] != nil)
            }
        }
    }
}
