import Foundation
import Testing

/// The walls between the targets, read from the package's own files: what a build writes
/// (`RatecardOutput`) names no store and no journal, and the release layer (`RatecardRelease`)
/// sits between it and the pipeline, so that a loop between the two is a compile error.
@Suite struct ArchitectureTests {
    /// The package's root folder (the support target's `sourceTree`).
    static var root: URL { URL(fileURLWithPath: sourceTree) }

    /// The names of where a build goes, which rendering must not know (word boundaries as
    /// between identifiers, not as between words of prose: `S3Root.open` holds `S3Root`).
    static func releaseNames() throws -> Regex<AnyRegexOutput> {
        try Regex(#"\b(ReleaseStore|ServeRoot|S3Root|Journal[A-Za-z]*|RatecardRelease)\b"#).wordBoundaryKind(.simple)
    }

    /// Each Swift file of a target's folder, with its text.
    static func sources(of target: String) throws -> [(path: String, text: String)] {
        let folder = root.appendingPathComponent("Sources/" + target)
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
        return try files.map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The names a `.target(name: …, dependencies: […])` of Package.swift lists, in the order the
    /// targets are declared.
    static func targets() throws -> [(name: String, dependencies: [String])] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([A-Za-z-]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        return manifest.matches(of: declaration).map { match in
            let name = String(match.output[1].substring ?? "")
            let list = match.output[2].substring.map(String.init) ?? ""
            let dependencies = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            return (name, dependencies.filter { !$0.isEmpty })
        }
    }

    @Test func renderingNamesNoStoreAndNoJournal() throws {
        let files = try Self.sources(of: "RatecardOutput")
        #expect(files.count > 20, "found only \(files.count) files of RatecardOutput")
        let names = try Self.releaseNames()
        var offenders: [String] = []
        for file in files {
            for match in file.text.matches(of: names) { offenders.append("\(file.path): \(file.text[match.range])") }
        }
        #expect(offenders.isEmpty, "RatecardOutput names the release layer: \(offenders)")
    }

    @Test func theCheckFindsTheNamesItLooksFor() throws {
        // The pattern the test above relies on finds each name where it would be written, and
        // not inside a longer word.
        let names = try Self.releaseNames()
        for line in ["let store: any ReleaseStore", "ServeRoot(path: p)", "S3Root.open()", "JournalState()", "import RatecardRelease"] {
            #expect(line.contains(names), "\(line)")
        }
        for line in ["let releaseStored = 1", "MyServeRootish", "journal"] {
            #expect(!line.contains(names), "\(line)")
        }
        // And the release layer itself does name them, so the folder read is the right one.
        let release = try Self.sources(of: "RatecardRelease")
        #expect(release.contains { $0.text.contains(names) })
    }

    @Test func theReleaseLayerSitsBetweenOutputAndKit() throws {
        let targets = try Self.targets()
        let order = targets.map(\.name)
        let output = try #require(order.firstIndex(of: "RatecardOutput"))
        let release = try #require(order.firstIndex(of: "RatecardRelease"), "Package.swift declares no RatecardRelease")
        let kit = try #require(order.firstIndex(of: "RatecardKit"))
        #expect(output < release && release < kit, "declared in the order \(order)")
        let dependencies = Dictionary(targets.map { ($0.name, Set($0.dependencies)) }, uniquingKeysWith: { first, _ in first })
        #expect(dependencies["RatecardRelease"]?.contains("RatecardOutput") == true)
        #expect(dependencies["RatecardKit"]?.contains("RatecardRelease") == true)
        // Output sees nothing above it, and no C library only the stores need.
        let below = dependencies["RatecardOutput"] ?? []
        #expect(below.isDisjoint(with: ["RatecardRelease", "RatecardKit", "CCurl", "CXML2"]), "RatecardOutput depends on \(below.sorted())")
    }

    /// What the CLI must leave to Kit's flows: constructing a store or a release-layer operation,
    /// and calling what reads or changes a store's history (the journal, the lock, the flip,
    /// writes and deletes, drift and seal checks, live.json and bridge-lines.json work, the keys
    /// a store signs with). It may name the release layer's value types (`ReleaseInfo`,
    /// `JournalState`, `LiveStatements.Summary`), format with it (`Rollouts.share`), and read
    /// what is live (`live()`, `info(of:)`, `displayName`).
    static func releaseOperations() throws -> Regex<AnyRegexOutput> {
        let patterns = [
            #"\b(?:ReleaseHistory|Rollouts|Publisher|ServeRoot|S3Root|S3Store|LocalStore|LiveChange)\s*\("#, #"\bLiveChange\."#,
            #"\b(?:LiveStatements|BridgeLines)\.[a-z][A-Za-z]*\("#,
            #"\.(?:acquireLock|recover|flip|drift|put|delete|claimReleaseNumber|restoreEntries|sealProblems|pointer|releaseIDs)\("#,
            #"\.release\(named:"#, #"\.journalLog\b"#, #"\.write\(state:"#, #"\.delivery\b"#,
        ]
        return try Regex(patterns.joined(separator: "|")).wordBoundaryKind(.simple)
    }

    /// The lines of a file that are code (a line that is only a comment says nothing the check
    /// should read).
    static func codeLines(_ text: String) -> [(number: Int, line: Substring)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0.offset + 1, $0.element) }.filter {
            !$0.line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        }
    }

    @Test func theCLICallsNoReleaseOperation() throws {
        let files = try Self.sources(of: "RatecardCLI")
        #expect(files.count > 20, "found only \(files.count) files of RatecardCLI")
        let operations = try Self.releaseOperations()
        var offenders: [String] = []
        for file in files {
            for (number, line) in Self.codeLines(file.text) {
                for match in line.matches(of: operations) { offenders.append("\(file.path):\(number): \(line[match.range])") }
            }
        }
        #expect(offenders.isEmpty, "the CLI calls the release layer itself instead of a flow of Kit: \(offenders)")
    }

    @Test func theCLICheckFindsTheCallsItLooksFor() throws {
        let operations = try Self.releaseOperations()
        let calls = [
            "try ReleaseHistory(root: root).prune(keep: keep, wait: true)", "try Rollouts(root: root).change(change, message: m)",
            "Destination(name: n, store: ServeRoot(path: p), protected: false, apps: [])", "let store = try S3Root(bucket)",
            "let session = try LiveChange.begin(root)", "let journal = try root.journalLog.state()", "try root.flip(expected: nil, to: id)",
            "try root.drift(of: live, deep: true)", "try LiveStatements.summary(root: root, now: now)", "try BridgeLines.servedStaleness(root: root)",
            "try root.release(named: text)", "root.delivery = delivery", "if try root.pointer() == nil, try root.releaseIDs().isEmpty {",
        ]
        for line in calls { #expect(line.contains(operations), "\(line)") }
        let allowed = [
            "let share = Rollouts.share(done.before)", "init(_ summary: LiveStatements.Summary?, environment: String)", "left < LiveStatements.warnDays * 86400",
            "case .recover: return Message(\"recover\")", "let drift = status.drift", "let id = output.manifest.bundleID",
            "static func inProgress(_ journal: JournalState) -> JournalState.Rollout?", "guard let live = try root.live() else {",
            "let info = try root.info(of: live)", "try RollbackFlow(store: root, request: request).run { _ in }",
        ]
        for line in allowed { #expect(!line.contains(operations), "\(line)") }
        #expect(Self.codeLines("a\n  // root.flip(expected: nil, to: id)\nb").map(\.number) == [1, 3])
        // And Kit's flows do make these calls, so the folder read is the right one.
        let kit = try Self.sources(of: "RatecardKit")
        #expect(kit.contains { $0.path.hasPrefix("Flows/") && $0.text.contains(operations) })
    }
}
