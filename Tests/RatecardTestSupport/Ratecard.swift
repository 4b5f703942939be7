import Foundation
import Glibc
import RatecardKit

/// The outcome of running the built `ratecard` binary.
public struct Execution {
    public var status: Int32
    public var out: String
    public var err: String
}

/// Runs the built binary with `arguments` in `directory`, stdin closed; fails (and kills it) when
/// it has not ended within `seconds`.
public func ratecard(_ arguments: [String], in directory: String, environment: [String: String] = [:], seconds: TimeInterval = childDeadline) throws -> Execution {
    let process = Process()
    process.executableURL = Bundle.main.bundleURL.appendingPathComponent("ratecard")
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = testEnvironment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let (status, out, err) = try runCapturing(process, separateErrors: true, seconds: seconds)
    return Execution(status: status, out: String(decoding: out, as: UTF8.self), err: String(decoding: err, as: UTF8.self))
}

/// The seconds a test waits for a child program it runs to the end (`ratecard(...)`, `runTool`)
/// before it kills it and fails: far more than any of them takes on a loaded machine, and less
/// than `Tests/run.py`'s watchdog gives a whole test process.
public let childDeadline: TimeInterval = 240

/// Runs `process` (stdin closed) to its end with its output in files rather than pipes: a child
/// never blocks on a full pipe, and a descriptor of a pipe that some other process inherited
/// cannot keep a read waiting for an end of file that never comes. Waits at most `seconds`; past
/// that the child is killed and the test fails with what it had written and where it was waiting.
/// Its exit status, standard output and standard error (empty when `separateErrors` is false:
/// both then go to the output, interleaved as written).
func runCapturing(_ process: Process, separateErrors: Bool, stderrToNull: Bool = false, seconds: TimeInterval) throws -> (Int32, [UInt8], [UInt8]) {
    let outFile = try OutputFile()
    let errFile = separateErrors ? try OutputFile() : nil
    process.standardOutput = outFile.handle
    process.standardError = stderrToNull ? FileHandle.nullDevice : (errFile ?? outFile).handle
    process.standardInput = FileHandle.nullDevice
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    try outFile.handle.close()
    try errFile?.handle.close()
    guard ended.wait(timeout: .now() + seconds) == .success else {
        let pid = process.processIdentifier
        let state = processState(pid)
        kill(pid, SIGKILL)
        _ = ended.wait(timeout: .now() + 10)
        let name = process.executableURL?.lastPathComponent ?? "?"
        let arguments = (process.arguments ?? []).prefix(4).joined(separator: " ")
        let written = String(decoding: outFile.contents() + (errFile?.contents() ?? []), as: UTF8.self)
        throw OperationalError("\(name) \(arguments) did not end within \(Int(seconds)) s (killed; it was \(state)); its output: \(written.suffix(4000))")
    }
    return (process.terminationStatus, outFile.contents(), errFile?.contents() ?? [])
}

/// A process's state and the kernel function it waits in, from /proc ("S (sleeping) in pipe_write").
public func processState(_ pid: Int32) -> String {
    let stat = String(decoding: (try? FileSystem.readFile("/proc/\(pid)/stat")) ?? [], as: UTF8.self)
    let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "gone"
    let wchan = String(decoding: (try? FileSystem.readFile("/proc/\(pid)/wchan")) ?? [], as: UTF8.self)
    return "in state \(state)" + (wchan.isEmpty || wchan == "0" ? "" : " waiting in \(wchan)")
}

/// A temporary file a child writes its output to, removed when done with.
final class OutputFile {
    let path: String
    let handle: FileHandle

    init() throws {
        var template = Array((temporaryRoot + "/ratecard-output-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw OperationalError("mkstemp failed") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    func contents() -> [UInt8] { (try? FileSystem.readFile(path)) ?? [] }

    deinit { unlink(path) }
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

/// Runs a program and returns its exit status and combined output; fails (and kills it) when it
/// has not ended within `seconds`.
public func runTool(_ path: String, _ arguments: [String], stderrToNull: Bool = false, environment: [String: String]? = nil, seconds: TimeInterval = childDeadline) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment ?? testEnvironment
    let (status, out, _) = try runCapturing(process, separateErrors: false, stderrToNull: stderrToNull, seconds: seconds)
    return (status, String(decoding: out, as: UTF8.self))
}
