import Foundation
import RatecardKit
import Testing

/// The machine formats, checked by real validators (jsonschema with the SARIF 2.1.0 schema,
/// xmlschema with the JUnit XSD, junitparser), over a report that has errors and warnings.
@Suite struct ReportFormatTests {
    /// A copy of the example content with one error and one warning.
    func brokenContent(in directory: String) throws -> String {
        _ = try ratecard(["init", "repo"], in: directory)
        let root = directory + "/repo"
        let partner = root + "/partners/kbank.yaml"
        let text = String(decoding: try FileSystem.readFile(partner), as: UTF8.self)
        try FileSystem.writeFile(partner, Array((text + "unknown_field: \"<&>\"\n").utf8))
        return root
    }

    @Test func sarifValidatesAgainstTheSchema() throws {
        try withTemporaryDirectory { directory in
            let root = try brokenContent(in: directory)
            let result = try ratecard(["validate", "--format", "sarif", "--as-of", "2026-11-29"], in: root)
            #expect(result.status == 1)
            try FileSystem.writeFile(directory + "/report.sarif", Array(result.out.utf8))
            let (status, output) = try runTool("/usr/bin/env", ["python3", schemaChecker, "sarif", directory + "/report.sarif"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("1 result(s)"))
        }
    }

    @Test func junitValidatesAgainstTheXSDAndParses() throws {
        try withTemporaryDirectory { directory in
            let root = try brokenContent(in: directory)
            let result = try ratecard(["validate", "--format", "junit", "--as-of", "2026-11-29"], in: root)
            #expect(result.status == 1)
            try FileSystem.writeFile(directory + "/report.xml", Array(result.out.utf8))
            let (status, output) = try runTool("/usr/bin/env", ["python3", schemaChecker, "junit", directory + "/report.xml"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("1 failure(s)"))
        }
    }

    @Test func githubAnnotationsNameFileLineAndColumn() throws {
        try withTemporaryDirectory { directory in
            let root = try brokenContent(in: directory)
            let result = try ratecard(["validate", "--format", "github", "--as-of", "2026-11-29"], in: root)
            #expect(result.status == 1)
            let lines = result.out.split(separator: "\n")
            #expect(lines.first?.hasPrefix("::error file=partners/kbank.yaml,line=") == true)
            #expect(lines.first?.contains(",title=SCH-02::unknown field 'unknown_field'") == true)
        }
    }

    @Test func jsonReportCarriesEveryDiagnostic() throws {
        try withTemporaryDirectory { directory in
            let root = try brokenContent(in: directory)
            let result = try ratecard(["validate", "--format", "json", "--as-of", "2026-11-29"], in: root)
            #expect(result.status == 1)
            let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as! [String: Any]
            #expect(object["valid"] as? Bool == false)
            #expect(object["errors"] as? Int == 1)
            let diagnostics = object["diagnostics"] as! [[String: Any]]
            #expect(diagnostics.first?["rule"] as? String == "SCH-02")
            #expect(diagnostics.first?["path"] as? String == "partners/kbank.yaml")
        }
    }
}
