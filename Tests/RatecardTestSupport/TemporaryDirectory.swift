import Foundation
import Glibc
import RatecardKit

/// Where the tests make their folders: `TMPDIR` when it is set (`Tests/run.py` points it at a
/// memory-backed folder when the machine has room in one), else /tmp.
public let temporaryRoot: String = {
    let given = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
    let trimmed = given.hasSuffix("/") ? String(given.dropLast()) : given
    return trimmed.isEmpty ? "/tmp" : trimmed
}()

/// A fresh folder for one test, removed afterwards.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array((temporaryRoot + "/ratecard-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw OperationalError("mkdtemp failed") }
    let path = String(cString: made)
    defer { try? FileSystem.removeTree(path) }
    return try body(path)
}
