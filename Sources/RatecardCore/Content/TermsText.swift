import Synchronization

/// A terms file's text and its body (the Markdown below the front matter), shared by the
/// version and the content's `termsText`. Made from the file's bytes (a version taken from the
/// build cache), it decodes them into the text, and copies the body out of it, only when one of
/// them is first asked for: a warm build reads every terms file, but its pages and checks come
/// from the cache and the history rules compare the files by their bytes, so after a one-table
/// edit no body is decoded (16 MB of UTF-8 checked and copied twice on every run before).
public final class TermsText: Sendable, Equatable {
    private enum State: Sendable {
        case bytes([UInt8], body: Range<Int>)
        case decoded(text: String, body: String)
    }

    private let state: Mutex<State>

    /// No text: what a version read back from its record holds until the file's bytes are
    /// given to it (one value shared, not one made per record).
    package static let unread = TermsText(text: "", body: "")

    /// A text already decoded, and its body.
    package init(text: String, body: String) {
        state = Mutex(.decoded(text: text, body: body))
    }

    /// A file's bytes and where its body lies in them (UTF-8 offsets between two scalars, as the
    /// parse that recorded them found them).
    package init(bytes: [UInt8], body: Range<Int>) {
        state = Mutex(.bytes(bytes, body: body))
    }

    /// The file's text.
    public var text: String { decoded().text }

    /// The body: the Markdown below the front matter.
    public var body: String { decoded().body }

    private func decoded() -> (text: String, body: String) {
        state.withLock { state in
            switch state {
            case .decoded(let text, let body):
                return (text, body)
            case .bytes(let bytes, let range):
                let decoded = (text: String(decoding: bytes, as: UTF8.self), body: String(decoding: bytes[range], as: UTF8.self))
                state = .decoded(text: decoded.text, body: decoded.body)
                return decoded
            }
        }
    }

    /// The bytes, while they are not decoded.
    private var bytes: [UInt8]? {
        state.withLock { state in
            if case .bytes(let bytes, _) = state { return bytes }
            return nil
        }
    }

    /// Equal texts, as Strings compare: the same bytes are (without decoding them), else the
    /// decoded texts are compared.
    public static func == (lhs: TermsText, rhs: TermsText) -> Bool {
        if lhs === rhs { return true }
        if let left = lhs.bytes, let right = rhs.bytes, left == right { return true }
        return lhs.text == rhs.text
    }
}
