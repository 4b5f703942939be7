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
}
