import RatecardSupport

/// What the server block of `NginxConfig` answers for a request path, as data: which file of
/// the serve root it serves and with which headers. `ratecard serve` answers by it, so a serve
/// root looks on a laptop as it does behind nginx.
///
/// The path is first normalized as nginx normalizes it: `%XX` decoded (`%2F` too: it is a `/`
/// like any other), repeated slashes merged, `.` and `..` segments resolved (a `..` above the
/// root is a bad request), and a path ending in `/`, `/.` or `/..` names a folder. Then nginx
/// picks a location in this order: an exact (`=`) location, else the first regular expression
/// that matches, else the longest prefix; so does `resolve`.
public struct ServedRoute: Equatable, Sendable {
    /// Where the file comes from, and how a name is looked up.
    public enum Source: Equatable, Sendable {
        /// A file of the live release (`current/...`), looked up as nginx's `try_files` does: a
        /// regular file, or nothing (404). `folder`: the path ended in `/`, so it names a folder
        /// and never a file. `index`: the `/` location's `$uri/index.html`, a folder's
        /// index.html (the only thing a folder path can give). `terms`: the path starts at the
        /// release's `terms` link, the one link followed.
        case live(path: [String], folder: Bool, index: Bool, terms: Bool)
        /// A name below `releases/` (the `/r/` locations; `path` starts with the release id),
        /// looked up as nginx's static and index handlers do: a regular file; a folder named
        /// without its `/` is a 301 to the folder; a folder path gives its index.html, or 403
        /// when it has none; a symlink named is 403, one on the way 404. `terms`: the path is
        /// `<id>/terms/...` and the release's `terms` link is followed.
        case release(path: [String], folder: Bool, terms: Bool)
        /// An object of the store (`objects/<name>`).
        case object(String)
        /// `bridge-lines.json` beside the releases.
        case bridgeLines
        /// `live.json` beside the pointer: the statement of what apps load (`LiveStatements`).
        case liveStatement
        /// Nothing: a 404 with the location's headers.
        case none
    }

    /// The normalized path (`/r/<id>/app/`), as a 301 to a folder names it with its `/` added.
    public var path: String
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
    public static let serverLevel = ServedRoute(path: "", source: .none, cacheControl: nil, cacheOnErrors: false, policy: NginxConfig.dataPolicy)

    /// The path of a request target (`/data/../index.html?x=1` is `/index.html`), normalized as
    /// nginx does, as its segments and whether it names a folder; nil for a bad request (not
    /// starting with `/`, a malformed escape, a NUL, a `..` above the root). `valid`: the
    /// decoded bytes are UTF-8 (no file of a release has a name that is not).
    static func normalize(_ target: String) -> (parts: [String], folder: Bool, valid: Bool)? {
        guard target.hasPrefix("/") else { return nil }
        var raw = Substring(target)
        if let cut = raw.firstIndex(where: { $0 == "?" || $0 == "#" }) { raw = raw[..<cut] }
        guard let bytes = String(raw).percentDecodedBytes, !bytes.contains(0) else { return nil }
        var parts: [String] = []
        var folder = false
        var valid = true
        for segment in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            switch segment.count {
            case 0:
                folder = true
            case 1 where segment.first == UInt8(ascii: "."):
                folder = true
            case 2 where segment.allSatisfy({ $0 == UInt8(ascii: ".") }):
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
                folder = true
            default:
                if String(validating: segment, as: UTF8.self) == nil { valid = false }
                parts.append(String(decoding: segment, as: UTF8.self))
                folder = false
            }
        }
        return (parts, folder, valid)
    }

    /// The route of a request target (`/data/entry.json?x=1`); nil for a bad request (see
    /// `normalize`).
    public static func resolve(_ target: String) -> ServedRoute? {
        guard let (parts, slash, valid) = normalize(target) else { return nil }
        let path = "/" + parts.joined(separator: "/") + (slash && !parts.isEmpty ? "/" : "")
        let page = NginxConfig.pagePolicy
        let data = NginxConfig.dataPolicy
        func route(_ source: Source, _ cache: String?, always: Bool, _ policy: String) -> ServedRoute {
            // A name that is not UTF-8 is no file of a release: the location's 404.
            ServedRoute(path: path, source: valid ? source : .none, cacheControl: cache, cacheOnErrors: always, policy: policy)
        }
        func live(_ folder: Bool = slash, index: Bool = false, terms: Bool = false) -> Source {
            .live(path: parts, folder: folder, index: index, terms: terms)
        }
        // Exact locations.
        switch path {
        case "/version.json": return route(.none, nil, always: false, data)
        case "/index.html": return route(live(), "no-cache", always: true, page)
        case "/data/manifest.json", "/data/entry.json": return route(live(), "no-cache", always: true, data)
        case "/bridge-lines.json": return route(.bridgeLines, "no-cache", always: true, data)
        case "/live.json": return route(.liveStatement, "no-cache", always: true, data)
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
            return route(.release(path: Array(parts[1...]), folder: slash, terms: true), "no-cache", always: true, page)
        }
        // The longest prefix.
        switch parts.first {
        case "o" where path.hasPrefix("/o/"): return route(.none, nil, always: false, data)
        case "data" where path.hasPrefix("/data/"): return route(live(), immutable, always: false, data)
        case "terms" where path.hasPrefix("/terms/"): return route(live(terms: true), "no-cache", always: true, page)
        case "app" where path.hasPrefix("/app/"): return route(live(), "no-cache", always: true, page)
        case "r" where path.hasPrefix("/r/"):
            return route(.release(path: Array(parts.dropFirst()), folder: slash, terms: false), "no-cache", always: true, page)
        default: return route(live(index: true), "no-cache", always: true, page)
        }
    }

    /// `path` with `/` added, percent-encoded for a Location header (every byte but an
    /// unreserved one or `/` escaped, so no header can be written through it).
    public var folderLocation: String {
        var text = ""
        for byte in (path + "/").utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                text.append(Character(Unicode.Scalar(byte)))
            default:
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
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
    /// The bytes of the string with `%XX` escapes decoded; nil for a malformed escape.
    var percentDecodedBytes: [UInt8]? {
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
        return bytes
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
