import Foundation
import Testing

@testable import RatecardKit
@testable import RatecardOutput

/// `terms.json` made of one entry per document, each written on its own (and kept by a build
/// with a memo), is byte for byte the index written whole.
@Suite struct TermsIndexTests {
    @Test func theIndexMadeOfEntriesIsTheIndexWrittenWhole() throws {
        try withTemporaryDirectory { directory in
            let folder = directory + "/content"
            try Fixtures.makeBaseRepository(at: folder)
            let run = ValidationRun(location: try ContentLocation.find(from: folder), context: ValidationContext(asOf: fixtureDay), caches: Caches())
            let content = try run.content(at: nil).served(on: fixtureDay)
            let documents = DataDocuments(content: content, asOf: fixtureDay)
            var hashes: [String: String] = [:]
            // One page without a hash: its entry says null.
            for (index, version) in content.terms.enumerated().dropFirst() {
                hashes[BundleLayout.termsPage(version.documentID, version.fileVersion)] = SHA256.hex(Array("page \(index)".utf8))
            }
            #expect(content.documentIDs.count > 1)
            let whole = documents.terms(pageHashes: hashes).bytes(terminator: "\n")
            let entries = content.documentIDs.map { documents.termsDocument($0, pageHashes: hashes).bytes(indent: 2) }
            #expect(String(decoding: DataDocuments.termsIndexBytes(entries), as: UTF8.self) == String(decoding: whole, as: UTF8.self))
            #expect(DataDocuments.termsIndexBytes([]) == JSON.object(["documents": .array([])]).bytes(terminator: "\n"))
        }
    }
}
