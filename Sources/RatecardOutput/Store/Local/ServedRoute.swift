import RatecardSupport

/// What the server block of `NginxConfig` answers for a request path, as data: which file of
/// the serve root it serves and with which headers. `ratecard serve` answers by it, so a serve
/// root looks on a laptop as it does behind nginx.
///
/// nginx picks a location in this order: an exact (`=`) location, else the first regular
/// expression that matches, else the longest prefix; so does `resolve`.
public struct ServedRoute: Equatable, Sendable {
    /// Where the file comes from.
    public enum Source: Equatable, Sendable {
        /// A file of the live release (`current/...`). `index`: a path ending in `/` (or naming a
        /// folder) serves the folder's index.html (`try_files $uri $uri/index.html`).
        /// `terms`: the path starts at the release's `terms` link, the one link followed.
        case live(path: [String], index: Bool, terms: Bool)
        /// A file of a kept release (`releases/<id>/...`, the `/r/` locations).
        case release(id: String, path: [String], index: Bool, terms: Bool)
        /// An object of the store (`objects/<name>`).
        case object(String)
        /// `bridge-lines.json` beside the releases.
        case bridgeLines
        /// A kept release's folder named without its `/`: a 301 to this path (as nginx answers
        /// for a folder), so the page's relative URLs resolve inside the release.
        case redirect(String)
        /// Nothing: a 404 with the location's headers.
        case none
    }

    public var source: Source
    /// The Cache-Control of a found file (nil: none).
    public var cacheControl: String?
    /// Whether a 404 carries the Cache-Control too (nginx's `always`).
    public var cacheOnErrors: Bool
    /// The Content-Security-Policy: `NginxConfig.pagePolicy` or `.dataPolicy`.
    public var policy: String

    static let immutable = "public, max-age=31536000, immutable"

    /// The headers every response of this location carries (nginx's `add_header ... always`).
    public var securityHeaders: [(String, String)] {
        [("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", policy), ("Referrer-Policy", "no-referrer")]
    }

    /// What the server-level headers give a response no location answers (a bad request).
    public static let serverLevel = ServedRoute(source: .none, cacheControl: nil, cacheOnErrors: false, policy: NginxConfig.dataPolicy)

    /// The route of a request target (`/data/entry.json?x=1`); nil for a target that is no path
    /// inside the site (not starting with `/`, a NUL, `.` or `..` segments): a bad request.
    public static func resolve(_ target: String) -> ServedRoute? {
        guard target.hasPrefix("/") else { return nil }
        var raw = Substring(target)
        if let cut = raw.firstIndex(where: { $0 == "?" || $0 == "#" }) { raw = raw[..<cut] }
        guard let decoded = String(raw).removingPercentEncodingStrictly, !decoded.contains("\0") else { return nil }
        let slash = decoded.hasSuffix("/")
        // Repeated slashes are one (nginx's merge_slashes); `.` and `..` are refused, not resolved.
        let parts = decoded.split(separator: "/").map(String.init)
        guard !parts.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        let path = "/" + parts.joined(separator: "/") + (slash && !parts.isEmpty ? "/" : "")
        let page = NginxConfig.pagePolicy
        let data = NginxConfig.dataPolicy
        func route(_ source: Source, _ cache: String?, always: Bool, _ policy: String) -> ServedRoute {
            ServedRoute(source: source, cacheControl: cache, cacheOnErrors: always, policy: policy)
        }
        // Exact locations.
        switch path {
        case "/version.json": return route(.none, nil, always: false, data)
        case "/index.html": return route(.live(path: ["index.html"], index: false, terms: false), "no-cache", always: true, page)
        case "/data/manifest.json", "/data/entry.json": return route(.live(path: parts, index: false, terms: false), "no-cache", always: true, data)
        case "/bridge-lines.json": return route(.bridgeLines, "no-cache", always: true, data)
        default: break
        }
        // Regular expressions, in the block's order.
        if path.contains("/.") { return route(.none, nil, always: false, data) }
        if parts.count == 2, parts[0] == "o", !slash, ObjectLayout.isServedObjectName(parts[1]) {
            return route(.object(parts[1]), immutable, always: false, data)
        }
        if parts.count == 3, parts[0] == "r", parts[2] == "version.json", !slash { return route(.none, nil, always: false, data) }
        if parts.count == 4, parts[0] == "r", parts[2] == "o", !slash, ObjectLayout.isServedObjectName(parts[3]) {
            return route(.object(parts[3]), immutable, always: false, data)
        }
        if parts.count >= 4, parts[0] == "r", parts[2] == "terms" {
            return route(.release(id: parts[1], path: Array(parts[2...]), index: false, terms: true), "no-cache", always: true, page)
        }
        // The longest prefix.
        switch parts.first {
        case "o" where path.hasPrefix("/o/"): return route(.none, nil, always: false, data)
        case "data" where path.hasPrefix("/data/"): return route(.live(path: parts, index: false, terms: false), immutable, always: false, data)
        case "terms" where path.hasPrefix("/terms/"): return route(.live(path: parts, index: false, terms: true), "no-cache", always: true, page)
        case "app" where path.hasPrefix("/app/"): return route(.live(path: parts, index: false, terms: false), "no-cache", always: true, page)
        case "r" where path.hasPrefix("/r/"):
            guard parts.count >= 2 else { return route(.none, "no-cache", always: true, page) }
            if parts.count == 2 && !slash { return route(.redirect("/r/\(parts[1])/"), "no-cache", always: true, page) }
            return route(.release(id: parts[1], path: Array(parts[2...]), index: slash, terms: false), "no-cache", always: true, page)
        default: return route(.live(path: parts, index: true, terms: false), "no-cache", always: true, page)
        }
    }
}

extension ObjectLayout {
    /// A name the block's object locations match: 64 lower-case hex digits, then an optional
    /// extension of 1-8 lower-case letters or digits.
    static func isServedObjectName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 64, bytes[..<64].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return false }
        if bytes.count == 64 { return true }
        let ext = bytes[65...]
        return bytes[64] == UInt8(ascii: ".") && (1...8).contains(ext.count) && ext.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }
    }
}

extension String {
    /// The string with `%XX` escapes decoded as UTF-8; nil for a malformed escape or bytes that
    /// are not UTF-8.
    var removingPercentEncodingStrictly: String? {
        var bytes: [UInt8] = []
        var iterator = Array(utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
