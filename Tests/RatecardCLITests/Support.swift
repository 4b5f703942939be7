import Foundation
import Glibc
import RatecardKit

/// The outcome of running the built `ratecard` binary.
struct Execution {
    var status: Int32
    var out: String
    var err: String
}

/// Runs the built binary with `arguments` in `directory`, stdin closed.
func ratecard(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> Execution {
    let process = Process()
    process.executableURL = Bundle.main.bundleURL.appendingPathComponent("ratecard")
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = testEnvironment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Execution(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
}

/// Where the tests make their folders: `TMPDIR` when it is set (`Tests/run.py` points it at a
/// memory-backed folder when the machine has room in one), else /tmp.
let temporaryRoot: String = {
    let given = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
    let trimmed = given.hasSuffix("/") ? String(given.dropLast()) : given
    return trimmed.isEmpty ? "/tmp" : trimmed
}()

/// A fresh folder for one test, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array((temporaryRoot + "/ratecard-cli-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw OperationalError("mkdtemp failed") }
    let path = String(cString: made)
    defer { try? FileSystem.removeTree(path) }
    return try body(path)
}

/// The project's own example content (the `content/` folder of this source tree).
var exampleContent: String {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/content"
}

/// The project's own web build (`site/`).
var projectSite: String {
    exampleContent.dropLast("content".count) + "site"
}

var schemaChecker: String {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(2)
    return parts.joined(separator: "/") + "/RatecardKitTests/Fixtures/schemas/check_report.py"
}

/// The folder holding the built `ratecard` binary.
var binaryFolder: String { Bundle.main.bundleURL.path }

/// The environment with the built binary first on PATH, as an installed ratecard would be.
var environmentWithRatecardOnPath: [String: String] {
    var env = testEnvironment
    env["PATH"] = binaryFolder + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    return env
}

/// The test process's environment, with the build cache of every `ratecard` the tests start in
/// a folder of the tests' own (bounded; every build's entries are its own, so stale ones are
/// never read) instead of the user's cache. Every CLI test then runs with the cache warm from
/// the tests before it, and its outputs are compared as they are without one. ratecard makes the
/// folder for this user alone (mode 0700); one another user made is not used.
var testEnvironment: [String: String] {
    var env = ProcessInfo.processInfo.environment
    if env["RATECARD_CACHE_DIR"] == nil { env["RATECARD_CACHE_DIR"] = temporaryRoot + "/ratecard-test-cache-\(getuid())" }
    if env["RATECARD_CACHE_MAX_MB"] == nil { env["RATECARD_CACHE_MAX_MB"] = "128" }
    return env
}

/// Runs a program and returns its exit status and combined output.
func runTool(_ path: String, _ arguments: [String], stderrToNull: Bool = false, environment: [String: String]? = nil) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment ?? testEnvironment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = stderrToNull ? FileHandle.nullDevice : pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
