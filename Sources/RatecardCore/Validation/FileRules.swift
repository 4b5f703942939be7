/// Rules about files as files: encoding, size, strict YAML, front matter, what git may hold.
///
/// YAML rules are reported by `YAMLParser` and `SourceText` (their ids live in `YAMLError`);
/// this is their registry entry and the place their rationale is kept.
public enum FileRules {
    public static let syntax = Rule("YML-01", .error, "YAML syntax", "A file that does not parse cannot be published; the parser says where it stopped.")
    public static let duplicateKey = Rule("YML-02", .error, "no duplicate keys", "With two values for one key, one is silently lost; YAML 1.2 forbids it.")
    public static let alias = Rule("YML-03", .error, "no anchors or aliases", "Aliases hide values from reviewers and allow expansion bombs.")
    public static let tag = Rule("YML-04", .error, "no custom tags", "Tags change how a value is read; content is plain data.")
    public static let encoding = Rule(
        "YML-05", .error, "UTF-8 text: no BOM, LF or CRLF line endings", "Korean text in another encoding is garbled on every screen; a BOM or bare CR shifts every position.")
    public static let size = Rule("YML-06", .error, "files up to 1 MiB", "A huge file is a mistake or an attack, and slows every check.")
    public static let frontMatter = Rule("YML-07", .error, "Markdown front matter", "A terms document needs its title, version and consent type in a '---' fenced YAML header.")
    public static let depth = Rule("YML-08", .error, "nesting up to 32 levels", "A file nested thousands of levels deep is an attack that exhausts the stack of whatever walks it.")
    public static let symlink = Rule("GIT-01", .error, "no symlinks", "A symlink can point outside the content and is never followed.")
    public static let submodule = Rule("GIT-02", .error, "no submodules", "Content must be in this repository, reviewable in one diff.")

    public static let all = [syntax, duplicateKey, alias, tag, encoding, size, frontMatter, depth, symlink, submodule]

    /// The message for a YAML error in `bytes`, in words a content editor can act on:
    /// libyaml's "found character that cannot start any token" at an indenting tab says so.
    package static func message(for error: YAMLError, in bytes: [UInt8]) -> String {
        guard error.rule == syntax.id, error.message.contains("found character that cannot start any token") else { return error.message }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard error.mark.line >= 1, error.mark.line <= lines.count else { return error.message }
        let line = String(decoding: lines[error.mark.line - 1], as: UTF8.self).unicodeScalars
        let upTo = line.prefix(error.mark.column)
        guard upTo.contains("\t"), upTo.allSatisfy({ $0 == " " || $0 == "\t" }) || line.dropFirst(error.mark.column - 1).first == "\t" else {
            return error.message
        }
        return "tabs are not allowed for indentation in YAML; indent with spaces"
    }

    /// The rule a YAML error breaks.
    package static func rule(for error: YAMLError) -> Rule {
        all.first { $0.id == error.rule } ?? syntax
    }
}
