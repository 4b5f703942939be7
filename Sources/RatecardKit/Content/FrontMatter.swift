/// Splits a Markdown file into its `---` fenced YAML front matter and its body.
enum FrontMatter {
    struct Parts {
        var yaml: String
        var body: String
        /// The 1-based line the body starts on.
        var bodyLine: Int
    }

    static func split(_ text: String) throws(YAMLError) -> Parts {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
        guard lines.first == "---" else {
            throw YAMLError(
                rule: FileRules.frontMatter.id, mark: .start,
                message: "a terms document starts with '---', its YAML front matter, and another '---'")
        }
        guard let close = lines.dropFirst().firstIndex(of: "---") else {
            throw YAMLError(
                rule: FileRules.frontMatter.id, mark: .start,
                message: "the front matter opened on line 1 is never closed with '---'")
        }
        let yaml = lines[1..<close].joined(separator: "\n")
        lines = Array(lines[(close + 1)...])
        return Parts(yaml: yaml, body: lines.joined(separator: "\n"), bodyLine: close + 2)
    }
}
