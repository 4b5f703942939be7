import Foundation
import RatecardKit
import Testing

/// `ratecard schema`: the JSON Schemas editors check files with. A real JSON Schema validator
/// (Python's jsonschema) passes every file of the example content and of a generated repository,
/// and fails every bad-input case a schema can express at the place `validate` names.
@Suite struct ContentSchemaTests {
    var fixtures: String { Fixtures.root }

    /// Each kind's globs, as the checker reads them.
    var kinds: String {
        JSON.object(Dictionary(uniqueKeysWithValues: FieldTables.kinds.map { ($0.name, JSON.array($0.files.map { .string($0) })) })).serialized(pretty: false)
    }

    @Test func contentPassesItsSchemasAndBadCasesFailThemWhereValidateSaysSo() throws {
        try withTemporaryDirectory { directory in
            let schemas = directory + "/schemas"
            let written = try ratecard(["schema", "--out", schemas], in: directory)
            #expect(written.status == 0, "\(written.err)")
            for kind in FieldTables.kinds { #expect(FileSystem.exists("\(schemas)/\(kind.name).schema.json")) }
            let generated = directory + "/generated"
            let made = try ratecard(["generate", generated, "--partners", "2", "--products", "6", "--tables", "10", "--terms", "4", "--history", "2"], in: directory)
            #expect(made.status == 0, "\(made.err)")
            let bad = fixtures + "/bad"
            func cases(of rules: String) throws -> [String] {
                try FileSystem.listDirectory(bad).filter { name in
                    guard name.hasSuffix(".case"), let text = try? String(contentsOfFile: bad + "/" + name, encoding: .utf8) else { return false }
                    return text.split(separator: "\n").contains { $0.hasPrefix("rule: SCH-0") && rules.contains($0.last!) }
                }.sorted().map { bad + "/" + $0 }
            }
            // Unknown field, missing field, wrong type, value out of its set: all a schema says.
            let expressible = try cases(of: "1234")
            // An id's or a date's form: only partly (not that an id is the file's name, or that a day exists).
            let partly = try cases(of: "56")
            #expect(expressible.count > 30 && partly.count > 5)
            let (status, output) = try runTool(
                "/usr/bin/env", ["python3", fixtures + "/schemas/check_content_schemas.py", schemas, kinds, "--good", exampleContent, generated, "--bad"] + expressible + ["--some"] + partly)
            #expect(status == 0, "\(output)")
            // Each kind was checked against real files, and the corpus cases reached their schemas.
            let summary = output.split(separator: "\n").last.map(String.init) ?? ""
            // (site/bridge.yaml is not content: bridgeSchemaFailsWhereValidateDoes checks its kind.)
            for kind in FieldTables.kinds where kind.name != "bridge" { #expect(summary.contains("\"\(kind.name)\":"), "\(summary)") }
            let lines = output.split(separator: "\n")
            let caught = lines.filter { $0.hasPrefix("CAUGHT ") }.count
            let skipped = lines.filter { $0.hasPrefix("SKIPPED ") }.count
            // Every expressible case a schema covers, and at least one of the partly expressible.
            #expect(skipped == 0 && caught >= expressible.count - skipped + 1, "\(output)")
        }
    }

    /// site/bridge.yaml: the example passes the bridge schema, and each mistake fails it at the
    /// line and column `validate` gives (read from `validate --format json`, not written here).
    @Test func bridgeSchemaFailsWhereValidateDoes() throws {
        try withTemporaryDirectory { directory in
            let made = try ratecard(["init", "repo"], in: directory)
            #expect(made.status == 0, "\(made.err)")
            let repo = directory + "/repo"
            let good = try FileSystem.readFile(repo + "/site/bridge.yaml")
            let text = String(decoding: good, as: UTF8.self)
            let mistakes: [(String, String)] = [
                ("  haptic:\n    since: 2", "  haptic:\n    sinse: 2\n    since: 2"),  // an unknown field
                ("      key: string", "      key: strin"),  // an unknown type
                ("    since: 3", "    since: three"),  // text for a number
                ("{enum: [light,", "{enumm: [light,"),  // an unknown composite type
                ("    reply:\n      opened: boolean", "    replies:\n      opened: boolean"),  // a misspelt key
            ]
            var cases: [String] = []
            for (index, (from, to)) in mistakes.enumerated() {
                #expect(text.contains(from), "\(from)")
                let body = text.replacingOccurrences(of: from, with: to)
                try FileSystem.writeFile(repo + "/site/bridge.yaml", Array(body.utf8))
                let report = try ratecard(["validate", "--format", "json"], in: repo)
                #expect(report.status == 1, "\(report.out)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any])
                let found = try #require((json["diagnostics"] as? [[String: Any]])?.first { $0["path"] as? String == "site/bridge.yaml" }, "\(report.out)")
                let line = try #require(found["line"] as? Int)
                let column = try #require(found["column"] as? Int)
                let rule = try #require(found["rule"] as? String)
                let file = "\(directory)/bridge-\(index).case"
                try FileSystem.writeFile(file, Array("rule: \(rule)\nat: site/bridge.yaml:\(line):\(column)\n--- write site/bridge.yaml\n\(body)".utf8))
                cases.append(file)
            }
            try FileSystem.writeFile(repo + "/site/bridge.yaml", good)
            let schemas = directory + "/schemas"
            #expect(try ratecard(["schema", "--out", schemas], in: directory).status == 0)
            let (status, output) = try runTool(
                "/usr/bin/env", ["python3", fixtures + "/schemas/check_content_schemas.py", schemas, kinds, "--good", repo, "--bad"] + cases)
            #expect(status == 0, "\(output)")
            #expect(output.contains("\"bridge\": 1"), "\(output)")
            #expect(output.split(separator: "\n").filter { $0.hasPrefix("CAUGHT bridge-") }.count == mistakes.count, "\(output)")
        }
    }

    @Test func schemasAreDeterministicDraft202012WithBothLanguages() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["schema", "--out", directory + "/a"], in: directory)
            _ = try ratecard(["schema", "--out", directory + "/b"], in: directory)
            for kind in FieldTables.kinds {
                let a = try FileSystem.readFile("\(directory)/a/\(kind.name).schema.json")
                #expect(a == (try FileSystem.readFile("\(directory)/b/\(kind.name).schema.json")))
                let text = String(decoding: a, as: UTF8.self)
                #expect(text.contains("\"$schema\": \"https://json-schema.org/draft/2020-12/schema\""))
                #expect(text.contains("\"additionalProperties\": false"))
                #expect(text.contains("ratecard validate"))
            }
            let product = String(decoding: try FileSystem.readFile(directory + "/a/product.schema.json"), as: UTF8.self)
            #expect(product.contains("\"multipleOf\": 0.001"))
            #expect(product.contains("단위: 원 (정수)"))
        }
    }
}

/// `ratecard init` sets the editor up; `ratecard schema --check` finds a schema out of date.
@Suite struct EditorSetupTests {
    @Test func initMapsTheSchemasForTheEditorAndCheckFindsAStaleOne() throws {
        try withTemporaryDirectory { directory in
            let made = try ratecard(["init", "repo"], in: directory)
            #expect(made.status == 0, "\(made.err)")
            let repo = directory + "/repo"
            let settings = String(decoding: try FileSystem.readFile(repo + "/.vscode/settings.json"), as: UTF8.self)
            for kind in FieldTables.kinds where kind.name != "terms-front-matter" {
                #expect(settings.contains("\"./.ratecard-schemas/\(kind.name).schema.json\": ["), "\(settings)")
                #expect(FileSystem.exists("\(repo)/.ratecard-schemas/\(kind.name).schema.json"))
            }
            #expect(settings.contains("\"products/*/*/rates/*.yaml\""))
            // Committed with the content, and not content to validate.
            let status = try runTool("/usr/bin/git", ["-C", repo, "status", "--porcelain"])
            #expect(status.1.isEmpty, "\(status.1)")
            let valid = try ratecard(["validate"], in: repo)
            #expect(valid.status == 0, "\(valid.out)")
            #expect(try ratecard(["schema", "--check"], in: repo).status == 0)
            // A schema edited by hand (or written by an older ratecard) is out of date.
            let stale = "\(repo)/.ratecard-schemas/partner.schema.json"
            try FileSystem.writeFile(stale, Array("{}\n".utf8))
            let check = try ratecard(["schema", "--check"], in: repo)
            #expect(check.status == 1)
            #expect(check.err.contains("partner.schema.json") && !check.err.contains("product.schema.json"), "\(check.err)")
            #expect(try ratecard(["schema"], in: repo).status == 0)
            #expect(try ratecard(["schema", "--check"], in: repo).status == 0)
        }
    }
}
