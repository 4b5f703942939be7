import Foundation
import Glibc
import RatecardKit

/// The test fixtures (`Fixtures/`), a resource of this target that both test targets read.
public enum Fixtures {
    public static var root: String {
        Bundle.module.resourcePath! + "/Fixtures"
    }

    /// The fixtures' folder in the source tree (the copy `root` names is rebuilt from it), for
    /// tests that update a fixture in place (`RATECARD_UPDATE_GOLDEN`).
    public static var sourceFolder: String {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/") + "/Fixtures"
    }

    /// Copies the small valid content into `directory` and commits it with libgit2.
    @discardableResult
    public static func makeBaseRepository(at directory: String) throws -> Repository {
        try FileSystem.copyTree(from: root + "/base", to: directory)
        let repository = try Repository.create(at: directory)
        try repository.commitAll(message: "Base content", author: testAuthor)
        return repository
    }

    public static let testAuthor = Signature(name: "Test Author", email: "author@example.com", time: 1_767_225_600, offsetMinutes: 540)
}

/// Writes a UTF-8 text file, creating its folder.
public func write(_ text: String, to path: String) throws {
    try writeBytes(Array(text.utf8), to: path)
}

public func writeBytes(_ bytes: [UInt8], to path: String) throws {
    if let slash = path.lastIndex(of: "/") { try FileSystem.makeDirectories(String(path[..<slash])) }
    try FileSystem.writeFile(path, bytes)
}

/// The validation date every fixture is written for.
public let fixtureDay = Day("2026-11-29")!
