import Foundation
import RatecardGenerate
import RatecardKit
import Testing

/// What the web app fetches, screen by screen, from a published release (served as nginx-conf
/// serves it: the entry folder, objects under /o/), in headless Chromium: the comparison reads
/// the entry document, the two documents every screen shows and the comparison shards (and the
/// logos on show), nothing else; a product's screen fetches that product's document (through its shard's list), and the
/// terms screen the terms index, each only when it opens.
@Suite(.serialized) struct PhoneLoadingTests {
    static let day = "2026-11-29"

    struct Release {
        let repo: String
        let serve: ServeRoot
        let info: ReleaseInfo
        /// Object URL (`/o/<name>`) -> the path of the file in the release.
        let paths: [String: String]

        var folder: String { serve.folder(of: info.id) }
        var data: String { BundleLayout.dataFolder(info.bundleID) }

        /// The data files (paths below the data folder, `entry` for data/entry.json) behind the
        /// data requests among `requests`.
        func dataDocuments(_ requests: [String]) throws -> Set<String> {
            var documents: Set<String> = []
            for request in requests where request.hasPrefix("/o/") || request.hasPrefix("/data/") {
                if request == "/" + BundleLayout.entry {
                    documents.insert("entry")
                    continue
                }
                let path = try #require(paths[request], "\(request) is not a file of the release")
                documents.insert(path.hasPrefix(data) ? String(path.dropFirst(data.count)) : path)
            }
            return documents
        }
    }

    /// Generated content of several comparison shards, published with this source tree's web app.
    func publish(in directory: String) throws -> Release {
        let repo = directory + "/content"
        _ = try LargeContentGenerator(.init(partners: 14, products: 150, rateTables: 300, termsVersions: 6, history: 0, seed: 5)).generate(into: repo)
        let web = String(exampleContent.dropLast("/content".count)) + "/site"
        let published = try ratecard(["publish", "--root", directory + "/serve", "--web", web, "--as-of", Self.day, "-m", "phone"], in: repo)
        try #require(published.status == 0, "\(published.out)\(published.err)")
        let serve = ServeRoot(path: directory + "/serve")
        let info = try ReleaseInfo.read(from: serve.folder(of: #require(try serve.live())))
        let paths = Dictionary(info.files.map { ("/o/" + ObjectLayout.objectName($0), $0.path) }, uniquingKeysWith: { first, _ in first })
        return Release(repo: repo, serve: serve, info: info, paths: paths)
    }

    /// The release the two tests of a published release read (neither changes it): generated
    /// and published once per test process.
    static let shared = Result { () throws -> Release in
        let directory = SharedFixtures.folder + "/phone-loading"
        try FileSystem.makeDirectories(directory)
        return try PhoneLoadingTests().publish(in: directory)
    }

    @Test func theComparisonLoadsOnlyTheEntryDocumentAndTheComparisonShards() throws {
        let release = try Self.shared.get()
        let shards = Set(release.info.files.map(\.path).filter { $0.hasPrefix(release.data + "compare/") }.map { String($0.dropFirst(release.data.count)) })
        #expect(shards.count >= 3, "the content must have several shards: \(shards)")
        let server = try RecordingServer(root: release.folder, objects: release.serve.objectsFolder)
        let dom = try Browser.dumpDOM(server.base + "index.html#/compare?score=750&amount=3000")
        #expect(dom.contains("신용점수 750점 · "), "the comparison did not render: \(dom.prefix(300))")
        let requests = try server.takeRequests()
        // And of the logos (each named by its object in the shards), only those of the rows
        // within a screen of the window (Chromium's default 800x600): not the forty rows'.
        let documents = try release.dataDocuments(requests)
        #expect(documents.filter { !$0.hasPrefix("assets/") } == Set(["entry", "service.json", "phrases.json"]).union(shards), "\(requests)")
        let logos = documents.filter { $0.hasPrefix("assets/") }.count
        #expect(logos >= 1 && logos < 10, "\(logos) logos: \(requests)")
        // Every data request is an object (cached for a year) but the entry document.
        #expect(requests.filter { $0.hasPrefix("/data/") } == ["/" + BundleLayout.entry])
        #expect(!requests.contains("/" + BundleLayout.manifest))
    }

    @Test func aProductsScreenFetchesItsOwnDocumentWhenItOpens() throws {
        let release = try Self.shared.get()
        // A product of the last shard's partners, whose document only its shard's list names.
        let shards = release.info.files.map(\.path).filter { $0.hasPrefix(release.data + "compare/") }.sorted()
        let lastShard = try #require(shards.last)
        let firstPartner = String(lastShard.dropFirst((release.data + "compare/").count).dropLast(".json".count))
        let product = try #require(release.info.files.map(\.path).filter { $0.hasPrefix(release.data + "products/" + firstPartner + "/") }.first)
        let key = String(product.dropFirst((release.data + "products/").count).dropLast(".json".count))
        let document = try JSONReader.parse(try #require(try release.serve.readFile(product, of: release.info.id)))
        let name = try #require(document["name_ko"]?.stringValue)
        let description = try #require(document["description_ko"]?.stringValue)

        let server = try RecordingServer(root: release.folder, objects: release.serve.objectsFolder)
        let dom = try Browser.dumpDOM(server.base + "index.html#/product/" + key)
        #expect(dom.contains(">\(name)</h1>"), "the product screen did not render: \(dom.prefix(300))")
        #expect(dom.contains(description), "its description (from its document) is not shown")
        // The disclosure its document carries, as the published release serves it.
        let disclosure = try #require(document["disclosure"])
        for field in ["review_no", "rate_composition_ko", "interest_timing_ko", "incidental_costs_ko", "required_credit_ko"] {
            let value = try #require(disclosure[field]?.stringValue, "\(field)")
            #expect(dom.contains(BrowserComparisonTests.escaped(value)), "\(field) '\(value)' is not on the product's screen")
        }
        #expect(dom.contains("id=\"review-no\"") && dom.contains("id=\"product-example\""))
        let shard = String(lastShard.dropFirst(release.data.count))
        let expected: Set<String> = [
            "entry", "service.json", "phrases.json", "documents.json", "documents/" + shard.dropFirst("compare/".count),
            "products/\(key).json", "partners.json", "limits.json",
        ]
        let requests = try server.takeRequests()
        #expect(try release.dataDocuments(requests) == expected, "\(requests)")

        // The terms screen: the terms index, and the page of the version shown.
        let terms = try Browser.dumpDOM(server.base + "index.html#/terms")
        #expect(terms.contains("id=\"documents\""), "the terms list did not render")
        let termsRequests = try server.takeRequests()
        #expect(try release.dataDocuments(termsRequests) == ["entry", "service.json", "phrases.json", "terms.json"], "\(termsRequests)")
    }

    /// The same screens from a built folder (`preview`, no object store) read the data folder.
    @Test func aPreviewReadsTheSameDocumentsFromItsDataFolder() throws {
        try withTemporaryDirectory { directory in
            let created = try ratecard(["init", "repo"], in: directory)
            try #require(created.status == 0)
            let web = String(exampleContent.dropLast("/content".count)) + "/site"
            let built = try ratecard(["preview", "--as-of", Self.day, "--web", web, "--out", directory + "/preview"], in: directory + "/repo")
            try #require(built.status == 0, "\(built.out)\(built.err)")
            let entry = try JSONReader.parse(try FileSystem.readFile(directory + "/preview/" + BundleLayout.entry))
            let folder = try #require(entry["data"]?.stringValue)
            #expect(entry["objects"] == nil)
            let server = try RecordingServer(root: directory + "/preview")
            let dom = try Browser.dumpDOM(server.base + "index.html#/product/ibk/worker-credit")
            #expect(dom.contains("재직 6개월 이상 직장인을 위한 비대면 신용대출"), "\(dom.prefix(300))")
            let requests = Set(try server.takeRequests().filter { $0.hasPrefix("/data/") })
            #expect(
                requests == Set(["/data/entry.json"] + ["service.json", "phrases.json", "products/ibk/worker-credit.json", "partners.json", "limits.json"].map { "/" + folder + $0 }),
                "\(requests.sorted())")
        }
    }
}
