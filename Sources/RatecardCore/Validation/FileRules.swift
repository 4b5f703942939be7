import RatecardSupport

/// Rules about files as files: encoding, size, strict YAML, front matter, what git may hold.
///
/// YAML rules are reported by `YAMLParser` and `SourceText` (their ids live in `YAMLError`);
/// this is their registry entry and the place their rationale is kept.
public enum FileRules {
    public static let syntax = Rule(
        "YML-01", .error, "YAML syntax", "A file that does not parse cannot be published; the parser says where it stopped.",
        ko: "YAML 문법", "읽히지 않는 파일은 게시할 수 없습니다. 파서가 멈춘 위치를 알려 줍니다.")
    public static let duplicateKey = Rule(
        "YML-02", .error, "no duplicate keys", "With two values for one key, one is silently lost; YAML 1.2 forbids it.",
        ko: "키 중복 금지", "한 키에 값이 둘이면 하나는 조용히 사라집니다. YAML 1.2도 금지합니다.")
    public static let alias = Rule(
        "YML-03", .error, "no anchors or aliases", "Aliases hide values from reviewers and allow expansion bombs.",
        ko: "앵커·별칭 금지", "별칭은 검토자에게 값을 감추고, 값을 폭발적으로 부풀리는 공격에 쓰일 수 있습니다.")
    public static let tag = Rule(
        "YML-04", .error, "no custom tags", "Tags change how a value is read; content is plain data.",
        ko: "사용자 태그 금지", "태그는 값을 읽는 방식을 바꿉니다. 콘텐츠는 평범한 데이터여야 합니다.")
    public static let encoding = Rule(
        "YML-05", .error, "UTF-8 text: no BOM, LF or CRLF line endings", "Korean text in another encoding is garbled on every screen; a BOM or bare CR shifts every position.",
        ko: "UTF-8 텍스트: BOM 없이, 줄바꿈은 LF 또는 CRLF", "다른 인코딩의 한글은 모든 화면에서 깨집니다. BOM이나 CR 단독 줄바꿈은 모든 위치를 어긋나게 합니다.")
    public static let size = Rule(
        "YML-06", .error, "files up to 1 MiB", "A huge file is a mistake or an attack, and slows every check.",
        ko: "파일 크기 1 MiB 이하", "지나치게 큰 파일은 실수이거나 공격이며, 모든 검사를 느리게 합니다.")
    public static let frontMatter = Rule(
        "YML-07", .error, "Markdown front matter", "A terms document needs its title, version and consent type in a '---' fenced YAML header.",
        ko: "Markdown 머리말(front matter)", "약관 문서에는 제목, 버전, 동의 유형을 담은 YAML 머리말이 '---' 줄 사이에 있어야 합니다.")
    public static let depth = Rule(
        "YML-08", .error, "nesting up to 32 levels", "A file nested thousands of levels deep is an attack that exhausts the stack of whatever walks it.",
        ko: "중첩은 32단계까지", "수천 단계로 중첩된 파일은 그 파일을 읽는 프로그램의 스택을 고갈시키는 공격입니다.")
    public static let symlink = Rule(
        "GIT-01", .error, "no symlinks", "A symlink can point outside the content and is never followed.",
        ko: "심볼릭 링크 금지", "심볼릭 링크는 콘텐츠 밖을 가리킬 수 있으며, 따라가지 않습니다.")
    public static let submodule = Rule(
        "GIT-02", .error, "no submodules", "Content must be in this repository, reviewable in one diff.",
        ko: "서브모듈 금지", "콘텐츠는 이 저장소 안에 있어야 한 번의 diff로 검토할 수 있습니다.")

    public static let all = [syntax, duplicateKey, alias, tag, encoding, size, frontMatter, depth, symlink, submodule]

    /// The message for a YAML error in `bytes`, in words a content editor can act on:
    /// libyaml's "found character that cannot start any token" at an indenting tab says so.
    package static func message(for error: YAMLError, in bytes: [UInt8]) -> Message {
        guard error.rule == syntax.id, error.message.english.contains("found character that cannot start any token") else { return error.message }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard error.mark.line >= 1, error.mark.line <= lines.count else { return error.message }
        let line = String(decoding: lines[error.mark.line - 1], as: UTF8.self).unicodeScalars
        let upTo = line.prefix(error.mark.column)
        guard upTo.contains("\t"), upTo.allSatisfy({ $0 == " " || $0 == "\t" }) || line.dropFirst(error.mark.column - 1).first == "\t" else {
            return error.message
        }
        return Message("tabs are not allowed for indentation in YAML; indent with spaces", ko: "YAML에서는 탭으로 들여쓸 수 없습니다; 공백으로 들여쓰세요")
    }

    /// The rule a YAML error breaks.
    package static func rule(for error: YAMLError) -> Rule {
        all.first { $0.id == error.rule } ?? syntax
    }
}
