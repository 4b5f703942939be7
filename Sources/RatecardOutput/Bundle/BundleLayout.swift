/// Where things go inside a bundle (docs/bundle-format.md).
public enum BundleLayout {
    public static let manifest = "data/manifest.json"

    public static func dataFolder(_ bundleID: String) -> String { "data/\(bundleID)/" }

    /// The app's entry document (`data/entry.json`): small, served `no-cache`, naming the index
    /// documents and the comparison shards (written beside the manifest, not listed in it).
    public static let entry = "data/entry.json"

    /// A partner's rates page, linked from `rates.html`.
    public static func ratesPage(_ partner: String) -> String { "rates/\(partner).html" }

    public static func termsPage(_ document: String, _ version: String) -> String { "terms/\(document)/\(version).html" }

    /// Whether a release's file was made by `build` (the data, the terms pages and the static
    /// pages), not taken from the web build.
    public static func isBundleFile(_ path: String) -> Bool {
        path.hasPrefix("data/") || path.hasPrefix("terms/") || path.hasPrefix("rates/") || path == "rates.html" || path == "partners.html"
    }

    /// Files that change in place between releases (served with `no-cache`); everything else
    /// is content-addressed or versioned.
    public static func isEntryDocument(_ path: String) -> Bool {
        path == manifest || path == entry || !path.hasPrefix("data/")
    }
}
