import Foundation
import Glibc
import RatecardKit

/// The outcome of running the built `ratecard` binary.
public struct Execution {
    public var status: Int32
    public var out: String
    public var err: String
}

/// Runs the built binary with `arguments` in `directory`, stdin closed.
public func ratecard(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> Execution {
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

/// This source tree's root folder (README.md, Sources/, content/), without a final slash.
public var sourceTree: String {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}

/// The project's own example content (the `content/` folder of this source tree).
public var exampleContent: String { sourceTree + "/content" }

/// The project's own web build (`site/`).
public var projectSite: String {
    exampleContent.dropLast("content".count) + "site"
}

/// The checker of `--format json` reports against their JSON Schemas (a fixture).
public var schemaChecker: String { Fixtures.root + "/schemas/check_report.py" }

/// The folder holding the built `ratecard` binary.
public var binaryFolder: String { Bundle.main.bundleURL.path }

/// The environment with the built binary first on PATH, as an installed ratecard would be.
public var environmentWithRatecardOnPath: [String: String] {
    var env = testEnvironment
    env["PATH"] = binaryFolder + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    return env
}

/// The test process's environment, with the build cache of every `ratecard` the tests start in
/// a folder of the tests' own (bounded; every build's entries are its own, so stale ones are
/// never read) instead of the user's cache. Every CLI test then runs with the cache warm from
/// the tests before it, and its outputs are compared as they are without one. ratecard makes the
/// folder for this user alone (mode 0700); one another user made is not used.
public var testEnvironment: [String: String] {
    var env = ProcessInfo.processInfo.environment
    if env["RATECARD_CACHE_DIR"] == nil { env["RATECARD_CACHE_DIR"] = temporaryRoot + "/ratecard-test-cache-\(getuid())" }
    if env["RATECARD_CACHE_MAX_MB"] == nil { env["RATECARD_CACHE_MAX_MB"] = "128" }
    return env
}

/// Runs a program and returns its exit status and combined output.
public func runTool(_ path: String, _ arguments: [String], stderrToNull: Bool = false, environment: [String: String]? = nil) throws -> (Int32, String) {
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
