/// Where things go inside a bundle (docs/bundle-format.md).
public enum BundleLayout {
    public static let manifest = "data/manifest.json"

    public static func dataFolder(_ bundleID: String) -> String { "data/\(bundleID)/" }

    public static func termsPage(_ document: String, _ version: String) -> String { "terms/\(document)/\(version).html" }

    /// Files that change in place between releases (served with `no-cache`); everything else
    /// is content-addressed or versioned.
    public static func isEntryDocument(_ path: String) -> Bool {
        path == manifest || !path.hasPrefix("data/")
    }
}
