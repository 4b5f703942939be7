import RatecardOutput
import RatecardSupport

/// What a bucket serves of a release: the files of its folder `r/<id>/`, and the entry document
/// at the prefix (`S3Root` rewrites it after each flip).
extension ObjectLayout {
    /// Whether a file of a release is in its folder `r/<id>/` of a bucket (else it is an object
    /// only). From format 3 only the web build and `data/entry.json` are: the app finds every
    /// other file by its hash, so a release costs the few files of its web build, not a copy of
    /// every page (format 2 copied every entry file, pages and logos included).
    public static func inBucketEntryFolder(_ path: String, format: Int) -> Bool {
        guard format >= 3 else { return inEntryFolder(path) }
        return path == BundleLayout.entry || !BundleLayout.isBundleFile(path)
    }

    /// The entry document a bucket serves at its prefix (`index.html`): the live release's own
    /// page with `<base href="r/<id>/">` first in its head (after `<head ...>`, else first of
    /// all), so every relative URL of the page resolves into that release's folder.
    public static func servedEntry(_ page: [UInt8], release: String) -> [UInt8] {
        let base = Array("<base href=\"r/\(release)/\">".utf8)
        let lower = page.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if let start = Bytes.find(Array("<head".utf8), in: lower, from: 0), let end = lower[start...].firstIndex(of: UInt8(ascii: ">")) {
            return Array(page[...end]) + base + Array(page[(end + 1)...])
        }
        return base + page
    }

    /// The page a served entry document was made from by `servedEntry(_:release:)`: the document
    /// less the first `<base href="r/<id>/">` in it (nil when it has none). Only a candidate: the
    /// caller checks it against the page's hash, and the document against `servedEntry` of it.
    public static func page(ofServedEntry served: [UInt8], release: String) -> [UInt8]? {
        let base = Array("<base href=\"r/\(release)/\">".utf8)
        guard let start = Bytes.find(base, in: served, from: 0) else { return nil }
        return Array(served[..<start]) + Array(served[(start + base.count)...])
    }
}
