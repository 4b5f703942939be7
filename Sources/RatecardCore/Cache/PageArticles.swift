import RatecardSupport
import Synchronization

/// The article of each terms page (the body's HTML, `CommonMark.html` of it without its title
/// line) rendered by the load from the parse it makes of every body anyway, for the build of
/// the same run to take instead of parsing the body again. Only a build asks for them
/// (`collect`); each is taken once, by the page it belongs to, which frees it, so the run holds
/// each article once: here until its page is made, then in the page.
package final class PageArticles: Sendable {
    private struct Entry {
        var body: String
        var title: String
        var article: String
    }

    private let kept = Mutex<[String: Entry]>([:])
    private let collecting = Atomic<Bool>(false)

    package init() {}

    /// Whether loads keep articles: on for the load a build renders, off after it.
    package func collect(_ on: Bool) { collecting.store(on, ordering: .relaxed) }

    package var isCollecting: Bool { collecting.load(ordering: .relaxed) }

    /// Keeps the article of the terms file `path` whose body and title are these; the first
    /// one kept for a path stays (the work tree is loaded before the commit it is compared with).
    package func keep(path: String, body: String, title: String, article: String) {
        kept.withLock { kept in
            if kept[path] == nil { kept[path] = Entry(body: body, title: title, article: article) }
        }
    }

    /// The article kept for `path`, when it was made from this body and title; it is not kept
    /// after.
    package func take(path: String, body: String, title: String) -> String? {
        guard let entry = kept.withLock({ $0.removeValue(forKey: path) }) else { return nil }
        return entry.body == body && entry.title == title ? entry.article : nil
    }

    /// Drops what no page took.
    package func clear() {
        let left = kept.withLock { kept in
            defer { kept = [:] }
            return kept.count
        }
        if left > 0 { Trace.note("build: \(left) terms articles not taken") }
    }
}
