/// The example content that ships with ratecard (the project's own `content/` folder).
public enum ExampleContent {
    /// The folder holding the example content: `RATECARD_EXAMPLE` if set, else the `content/`
    /// folder of the source tree this binary was built from.
    public static func folder(environment: [String: String]) throws -> String {
        if let configured = environment["RATECARD_EXAMPLE"], !configured.isEmpty {
            return configured
        }
        // #filePath is this file in the source tree: <root>/Sources/RatecardKit/Content/ExampleContent.swift.
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        let folder = parts.joined(separator: "/") + "/content"
        guard FileSystem.exists(folder + "/ratecard.yaml") else {
            throw OperationalError("the example content is not at \(folder); set RATECARD_EXAMPLE to a folder holding it")
        }
        return folder
    }

    /// The example web build: the `site/` folder beside the example content.
    public static func webBuild(besides content: String) throws -> String {
        let folder = DurableFiles.parent(of: content) + "/site"
        guard FileSystem.exists(folder + "/index.html") else {
            throw OperationalError("the example web build is not at \(folder) (beside the example content)")
        }
        return folder
    }
}
