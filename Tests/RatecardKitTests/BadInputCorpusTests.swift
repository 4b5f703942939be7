import Foundation
import Glibc
import RatecardKit
import Testing

@testable import RatecardSupport

/// One bad input from `Fixtures/bad/*.case`: edits to the base content and the problem they must trip.
///
/// Format:
/// ```
/// rule: CAP-01
/// at: products/acme-bank/credit/rates/2025-01-01.yaml:7:18
/// --- write products/acme-bank/credit/rates/2025-01-01.yaml
/// <the whole new file>
/// --- delete terms/service-terms/1.0.0.md
/// --- symlink partners/alias.yaml -> acme-bank.yaml
/// --- hex partners/acme-bank.yaml
/// <hex bytes, whitespace ignored>
/// --- pad partners/acme-bank.yaml 1048576
/// <a filler line, appended (cut short at the end) until the file has that many bytes>
/// --- commit
/// ```
/// The base content is committed first (through libgit2), so history rules see the edit as a
/// change to the work tree. `--- commit` commits the edits before it, so the history rules
/// compare what follows with them (a sign-off that was committed, then removed).
struct BadInputCase: CustomTestStringConvertible, Sendable {
    enum Edit: Sendable {
        case write(String, [UInt8])
        case delete(String)
        case symlink(String, target: String)
        case pad(String, size: Int, filler: [UInt8])
        case commit
    }

    var name: String
    var rule: String
    var path: String
    var line: Int
    var column: Int
    var edits: [Edit]

    var testDescription: String { name }

    static func load(_ file: String) throws -> BadInputCase {
        let text = String(decoding: try FileSystem.readFile(file), as: UTF8.self)
        var rule = ""
        var at = ""
        var edits: [Edit] = []
        var current: (kind: String, path: String, lines: [Substring])?
        func flush() {
            guard var section = current else { return }
            // The newline that ends a case file (or precedes the next section) is not content.
            if section.lines.last == "" { section.lines.removeLast() }
            switch section.kind {
            case "write":
                edits.append(.write(section.path, Array((section.lines.joined(separator: "\n") + "\n").utf8)))
            case "pad":
                let words = section.path.split(separator: " ")
                let filler = Array((section.lines.joined(separator: "\n") + "\n").utf8)
                edits.append(.pad(String(words[0]), size: Int(words[1])!, filler: filler))
            case "hex":
                let digits = section.lines.joined().filter { !$0.isWhitespace }
                var bytes: [UInt8] = []
                var index = digits.startIndex
                while index < digits.endIndex {
                    let next = digits.index(index, offsetBy: 2)
                    bytes.append(UInt8(digits[index..<next], radix: 16)!)
                    index = next
                }
                edits.append(.write(section.path, bytes))
            default: break
            }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("--- ") {
                flush()
                let words = line.dropFirst(4).split(separator: " ", maxSplits: 1).map(String.init)
                switch words[0] {
                case "delete":
                    edits.append(.delete(words[1]))
                    current = nil
                case "commit":
                    edits.append(.commit)
                    current = nil
                case "symlink":
                    let parts = words[1].components(separatedBy: " -> ")
                    edits.append(.symlink(parts[0], target: parts[1]))
                    current = nil
                default:
                    current = (words[0], words[1], [])
                }
            } else if current != nil {
                current!.lines.append(line)
            } else if line.hasPrefix("rule: ") {
                rule = String(line.dropFirst(6))
            } else if line.hasPrefix("at: ") {
                at = String(line.dropFirst(4))
            }
        }
        flush()
        let name = String(file.split(separator: "/").last!.dropLast(5))
        guard !at.isEmpty else {
            // A should-pass case (`Fixtures/good`): no position, one or more rule ids.
            return BadInputCase(name: name, rule: rule, path: "", line: 0, column: 0, edits: edits)
        }
        let location = at.split(separator: ":").map(String.init)
        precondition(location.count == 3, "\(file): 'at:' must be path:line:column")
        return BadInputCase(name: name, rule: rule, path: location[0], line: Int(location[1])!, column: Int(location[2])!, edits: edits)
    }

    static var all: [BadInputCase] { load(folder: "bad") }

    /// The should-pass corpus: `rule:` lists the rules each case comes close to without breaking.
    static var good: [BadInputCase] { load(folder: "good") }

    static func load(folder name: String) -> [BadInputCase] {
        let folder = Fixtures.root + "/" + name
        let files = (try? FileSystem.listDirectory(folder)) ?? []
        return files.filter { $0.hasSuffix(".case") }.sorted().map { try! load(folder + "/" + $0) }
    }

    /// The base repository, committed once per test process; each case starts from a copy of
    /// it (the same files and the same commit: the fixture's author signs at a fixed time).
    static let base: Result<String, any Error> = Result {
        try Fixtures.makeBaseRepository(at: baseFolder)
        return baseFolder
    }

    /// The folder of `base`, removed when the test process exits.
    private static let baseFolder: String = {
        var template = Array((temporaryRoot + "/ratecard-base-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed in \(temporaryRoot)") }
        atexit { try? FileSystem.removeTree(BadInputCase.baseFolder) }
        return String(cString: made)
    }()

    /// A copy of the committed base repository in `directory` (an empty folder).
    static func copyBase(to directory: String) throws {
        let base = try Self.base.get()
        for name in try FileManager.default.contentsOfDirectory(atPath: base) {
            try FileManager.default.copyItem(atPath: base + "/" + name, toPath: directory + "/" + name)
        }
    }

    func apply(in directory: String) throws {
        for edit in edits {
            switch edit {
            case .write(let path, let bytes): try writeBytes(bytes, to: directory + "/" + path)
            case .delete(let path): try FileSystem.removeTree(directory + "/" + path)
            case .symlink(let path, let target):
                guard Glibc.symlink(target, directory + "/" + path) == 0 else { throw OperationalError("symlink failed") }
            case .pad(let path, let size, let filler):
                var bytes = try FileSystem.readFile(directory + "/" + path)
                precondition(bytes.count <= size && !filler.isEmpty, "pad: \(path) is already over \(size) bytes")
                while bytes.count < size { bytes += filler.prefix(size - bytes.count) }
                try writeBytes(bytes, to: directory + "/" + path)
            case .commit:
                _ = try Repository.open(at: directory).commitAll(message: "Case setup", author: Fixtures.testAuthor)
            }
        }
    }
}

@Suite struct BadInputCorpusTests {
    @Test func corpusIsLargeAndCoversTheRequiredRules() {
        let cases = BadInputCase.all
        #expect(cases.count >= 60)
        let rules = Set(cases.map(\.rule))
        for required in ["YML-01", "YML-02", "YML-03", "YML-05", "SCH-01", "SCH-02", "SCH-03", "CAP-01", "BND-02", "BND-03", "REF-01", "DSC-01", "DSC-02", "HIS-02", "GIT-01"] {
            #expect(rules.contains(required), "no bad input trips \(required)")
        }
        for rule in rules { #expect(Rule.named(rule) != nil, "unknown rule \(rule) in the corpus") }
    }

    @Test func baseContentIsValid() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: ValidationContext(asOf: fixtureDay), caches: Caches())
            let report = try run.validateWorkingTree()
            #expect(report.diagnostics == [])
        }
    }

    @Test(arguments: BadInputCase.all)
    func badInputTripsItsRuleAtItsPosition(_ badCase: BadInputCase) throws {
        try withTemporaryDirectory { directory in
            try BadInputCase.copyBase(to: directory)
            try badCase.apply(in: directory)
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: ValidationContext(asOf: fixtureDay), caches: Caches())
            let report = try run.validateWorkingTree()
            let found = report.diagnostics.map { "\($0.rule) \($0.path):\($0.mark.line):\($0.mark.column)" }
            let expected = "\(badCase.rule) \(badCase.path):\(badCase.line):\(badCase.column)"
            #expect(found.contains(expected), "expected \(expected); got \(found)")
            // Every message it gives reads in Korean too, values aside.
            for diagnostic in report.diagnostics {
                let korean = diagnostic.message.korean
                #expect(korean.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }, "\(diagnostic.rule): \(korean)")
                #expect(EnglishProse.runs(in: korean).isEmpty, "\(diagnostic.rule): \(EnglishProse.runs(in: korean)) in \(korean)")
            }
        }
    }
}

/// Should-pass cases (`Fixtures/good/*.case`, the bad-case format without `at:`): each comes
/// as close to the rules it names as the content allows without breaking any rule, and the
/// whole content must then validate with no problem at all.
@Suite struct ShouldPassCorpusTests {
    /// The native bridge's rules check the web build, not the content: `BridgeTests` and
    /// `BridgeGateCorpusTests` trip each, and validate the shipped site/ clean.
    static let trippedOutsideTheCorpus: Set<String> = [
        "BRG-01", "BRG-02", "BRG-03", "BRG-04", "BRG-05", "BRG-06", "BRG-07", "BRG-08", "BRG-09", "BRG-10",
    ]

    @Test func everyRuleHasAShouldPassCase() {
        let covered = Set(BadInputCase.good.flatMap { $0.rule.split(separator: " ").map(String.init) })
        for id in covered { #expect(Rule.named(id) != nil, "unknown rule \(id) in the should-pass corpus") }
        for rule in Rule.all where !Self.trippedOutsideTheCorpus.contains(rule.id) {
            #expect(covered.contains(rule.id), "no should-pass case names \(rule.id)")
        }
    }

    @Test func everyRuleHasABadInputCase() {
        let covered = Set(BadInputCase.all.map(\.rule))
        for rule in Rule.all where !Self.trippedOutsideTheCorpus.contains(rule.id) {
            #expect(covered.contains(rule.id), "no bad input trips \(rule.id)")
        }
    }

    @Test(arguments: BadInputCase.good)
    func shouldPassCaseValidatesClean(_ goodCase: BadInputCase) throws {
        #expect(!goodCase.edits.isEmpty, "a should-pass case must change something")
        try withTemporaryDirectory { directory in
            try BadInputCase.copyBase(to: directory)
            try goodCase.apply(in: directory)
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: ValidationContext(asOf: fixtureDay), caches: Caches())
            let report = try run.validateWorkingTree()
            #expect(report.diagnostics == [], "\(report.diagnostics.map { "\($0.rule) \($0.path):\($0.mark.line):\($0.mark.column) \($0.message)" })")
        }
    }
}
