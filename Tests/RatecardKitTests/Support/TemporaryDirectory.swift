import Foundation
import Glibc
import RatecardKit

/// Where the tests make their folders: `TMPDIR` when it is set (`Tests/run.py` points it at a
/// memory-backed folder when the machine has room in one), else /tmp.
let temporaryRoot: String = {
    let given = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
    let trimmed = given.hasSuffix("/") ? String(given.dropLast()) : given
    return trimmed.isEmpty ? "/tmp" : trimmed
}()

/// A fresh folder for one test, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array((temporaryRoot + "/ratecard-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw OperationalError("mkdtemp failed") }
    let path = String(cString: made)
    defer { try? FileSystem.removeTree(path) }
    return try body(path)
}

/// Test fixtures shipped with the test target.
enum Fixtures {
    static var root: String {
        Bundle.module.resourcePath! + "/Fixtures"
    }

    /// Copies the small valid content into `directory` and commits it with libgit2.
    @discardableResult
    static func makeBaseRepository(at directory: String) throws -> Repository {
        try FileSystem.copyTree(from: root + "/base", to: directory)
        let repository = try Repository.create(at: directory)
        try repository.commitAll(message: "Base content", author: testAuthor)
        return repository
    }

    static let testAuthor = Signature(name: "Test Author", email: "author@example.com", time: 1_767_225_600, offsetMinutes: 540)
}

/// Writes a UTF-8 text file, creating its folder.
func write(_ text: String, to path: String) throws {
    try writeBytes(Array(text.utf8), to: path)
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    if let slash = path.lastIndex(of: "/") { try FileSystem.makeDirectories(String(path[..<slash])) }
    try FileSystem.writeFile(path, bytes)
}

/// The validation date every fixture is written for.
let fixtureDay = Day("2026-11-29")!
