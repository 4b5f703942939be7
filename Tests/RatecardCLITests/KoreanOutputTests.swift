import Foundation
import RatecardKit
import Testing

@testable import RatecardCore

/// What a Korean product staffer, a release manager and a CI engineer read: every command's
/// output in Korean with `--lang ko`, and messages that point at the fix.
@Suite struct KoreanOutputTests {
    static let asOf = ["--as-of", "2026-11-29"]
    /// English whatever the machine's locale says.
    static let english = ["LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""]

    /// A content repository as `ratecard init` makes it: the example content and its web app.
    func initialized(_ directory: String, _ options: [String] = []) throws -> String {
        let made = try ratecard(["init", "repo"] + options, in: directory, environment: environmentWithRatecardOnPath)
        #expect(made.status == 0, "\(made.err)")
        return directory + "/repo"
    }

    func read(_ path: String) throws -> String { String(decoding: try FileSystem.readFile(path), as: UTF8.self) }

    func write(_ path: String, _ text: String) throws { try FileSystem.writeFile(path, Array(text.utf8)) }

    func edit(_ path: String, _ old: String, _ new: String) throws {
        let text = try read(path)
        #expect(text.contains(old), "\(path) has no '\(old)'")
        try write(path, text.replacingOccurrences(of: old, with: new))
    }

    // MARK: - Every command's output in Korean

    /// A day's work with `--lang ko`, command by command: nothing in what they print is an
    /// English sentence (values aside), the first commit included.
    @Test func everyCommandSpeaksKoreanWithLangKo() throws {
        try withTemporaryDirectory { directory in
            let repo = try initialized(directory, ["--lang", "ko"])
            let table = repo + "/products/busan-bank/one-credit/rates/2026-06-15.yaml"
            let allowed = ["ratecard bridge generate"]
            var checked: [String] = []
            func run(_ arguments: [String], status: Int32 = 0, in folder: String? = nil) throws -> Execution {
                let result = try ratecard(arguments + ["--lang", "ko"], in: folder ?? repo, environment: environmentWithRatecardOnPath)
                #expect(result.status == status, "\(arguments): \(result.out)\(result.err)")
                let text = result.out + result.err
                #expect(EnglishProse.runs(in: text, allowing: allowed).isEmpty, "\(arguments): \(EnglishProse.runs(in: text, allowing: allowed))\n\(text)")
                #expect(text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }, "\(arguments): \(text)")
                checked.append(arguments[0])
                return result
            }
            _ = try run(["validate"] + Self.asOf)
            _ = try run(["rules"])
            _ = try run(["build", "--out", directory + "/bundle"] + Self.asOf)
            _ = try run(["preview", "--out", directory + "/preview"] + Self.asOf)
            _ = try run(["hook", "install"])
            _ = try run(["publish", "--env", "staging", "-m", "첫 게시", "--dry-run"] + Self.asOf)
            let first = try run(["publish", "--env", "staging", "-m", "첫 게시"] + Self.asOf)
            // What was stored and how many files the release has, in plain words with thousands separators.
            #expect(try first.out.contains(Regex(#"새로 저장한 파일 내용은 \d{1,3}(,\d{3})+바이트입니다"#)), "\(first.out)")
            #expect(!first.out.contains("오브젝트") && !first.out.contains("엔트리") && !first.out.contains("; "), "\(first.out)")
            _ = try run(["publish", "--env", "staging", "-m", "다시 게시"] + Self.asOf)
            // A rate move big enough to warn (HIS-04), then saved: diff, save, log.
            try edit(table, "    apr_min_pct: 4.75\n    apr_max_pct: 6.25\n", "    apr_min_pct: 5.75\n    apr_max_pct: 9.75\n")
            _ = try run(["diff"] + Self.asOf)
            _ = try run(["diff", "--format", "markdown"] + Self.asOf)
            _ = try run(["publish", "--env", "staging", "-m", "금리 조정"] + Self.asOf, status: 1)
            let saved = try run(["save", "-m", "금리 조정", "--author", "김민지 <minji@example.com>"] + Self.asOf)
            #expect(saved.out.contains("저장할 변경: 변경 1건"), "\(saved.out)")
            _ = try run(["log", "--product", "busan-bank/one-credit", "--env", "staging"] + Self.asOf)
            _ = try run(["publish", "--env", "staging", "-m", "금리 조정"] + Self.asOf)
            _ = try run(["status"])
            _ = try run(["status", "--env", "staging"])
            _ = try run(["releases", "--env", "staging"])
            _ = try run(["verify", "--env", "staging"])
            // Production is protected: the rate move needs an approval.
            _ = try run(["promote", "--from", "staging", "--to", "production", "-m", "확인함", "--dry-run"], status: 1)
            _ = try run(["promote", "--from", "staging", "--to", "production", "-m", "확인함"], status: 1)
            _ = try run(["promote", "--from", "staging", "--to", "production", "-m", "확인함", "--approve", "준법감시 검토 완료"])
            _ = try run(["rollback", "--env", "staging", "--dry-run"])
            _ = try run(["rollback", "--env", "staging", "-m", "되돌림"])
            // What made each release live, in Korean words.
            let status = try run(["status", "--env", "staging"])
            #expect(status.out.contains("에서 롤백, 실행한 사람: ") && !status.out.contains("(rollback"), "\(status.out)")
            let releases = try run(["releases", "--env", "staging"])
            #expect(releases.out.contains("[불량 표시]") && !releases.out.contains("bad"), "\(releases.out)")
            _ = try run(["releases", "--env", "staging", "--clear-bad", "2", "-m", "다시 확인함"])
            _ = try run(["prune", "--env", "staging", "--keep", "1", "--dry-run"])
            _ = try run(["prune", "--env", "staging", "--keep", "1"])
            _ = try run(["prune", "--env", "staging"], status: 2)
            _ = try run(["status", "--env", "nope"], status: 2)
            // The web build is inside the content folder: the app's Swift needs a place outside it.
            let refused = try run(["bridge", "generate"], status: 2)
            #expect(refused.err.contains("SCH-07") && refused.err.contains("--swift"), "\(refused.err)")
            _ = try run(["bridge", "generate", "--swift", directory + "/app/RatecardBridge.swift"])
            #expect(FileSystem.exists(directory + "/app/RatecardBridge.swift") && !FileSystem.exists(repo + "/native"))
            _ = try run(["generate", directory + "/generated", "--partners", "2", "--products", "2", "--tables", "2", "--terms", "1", "--history", "1"])
            // An invalid content: each problem, the summary and the refusals.
            try edit(table, "score_min: 801", "score_min: 811")
            _ = try run(["validate"] + Self.asOf, status: 1)
            _ = try run(["save", "-m", "구간 수정"] + Self.asOf, status: 1)
            _ = try run(["build", "--out", directory + "/bundle2"] + Self.asOf, status: 1)
            _ = try run(["preview", "--out", directory + "/preview"] + Self.asOf, status: 1)
            _ = try run(["init", "repo"], status: 3, in: directory)
            #expect(checked.count > 30)
        }
    }

    // MARK: - Messages that point at the fix

    /// A typo in a mandatory sentence of a new terms version (수수료을 for 수수료를, line 35) is
    /// reported where it is, with how it differs, not at the start of the body.
    @Test func aTypoInAMandatoryPhraseIsShownAtItsLineWithTheDifference() throws {
        try withTemporaryDirectory { directory in
            let repo = try initialized(directory)
            var text = try read(repo + "/terms/broker-notice/1.1.0.md")
            text = text.replacingOccurrences(of: "version: 1.1.0", with: "version: 1.2.0")
            text = text.replacingOccurrences(of: "effective_from: 2026-03-01", with: "effective_from: 2026-12-01")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[34] == "대출모집인은 고객에게 어떠한 명목으로도 수수료를 요구하거나 받을 수 없습니다.")
            try write(repo + "/terms/broker-notice/1.2.0.md", text.replacingOccurrences(of: "명목으로도 수수료를", with: "명목으로도 수수료을"))
            let english = try ratecard(["validate"] + Self.asOf, in: repo, environment: Self.english)
            #expect(english.status == 1)
            #expect(
                english.out.contains(
                    "terms/broker-notice/1.2.0.md:35:23: error DSC-02: the mandatory phrase 'broker-no-fee' is not written exactly: this line comes nearest, and differs in '수수료을' -> '수수료를'; write it as regulatory/phrases.yaml has it: \"대출모집인은 고객에게 어떠한 명목으로도 수수료를 요구하거나 받을 수 없습니다.\"\n"
                ), "\(english.out)")
            #expect(!english.out.contains("1.2.0.md:9:1"), "\(english.out)")
            let korean = try ratecard(["validate", "--lang", "ko"] + Self.asOf, in: repo)
            #expect(
                korean.out.contains(
                    "terms/broker-notice/1.2.0.md:35:23: 오류 DSC-02: 필수 문구 'broker-no-fee'가 글자 그대로 쓰여 있지 않습니다: 가장 비슷한 이 줄과 다른 곳은 '수수료을' -> '수수료를'입니다. regulatory/phrases.yaml에 있는 그대로 쓰세요:"
                ), "\(korean.out)")
        }
    }

    /// The sign-off line HIS-05 and HIS-06 suggest is valid YAML, whatever the change holds
    /// (quotes, a backslash), and pasted into regulatory/signoffs.yaml with its date written in,
    /// it signs off exactly that change.
    @Test(arguments: [Language.en, .ko])
    func theSuggestedSignOffParsesAndSignsTheChangeOff(_ language: Language) throws {
        try withTemporaryDirectory { directory in
            let repo = try initialized(directory)
            try edit(
                repo + "/regulatory/phrases.yaml", "ko: \"대출모집인은 고객에게 어떠한 명목으로도 수수료를 요구하거나 받을 수 없습니다.\"",
                "ko: '대출모집인은 \"어떠한\" 명목으로도 수수료를 받지 않습니다 \\ (고지)'")
            let limits = try read(repo + "/regulatory/limits.yaml")
            let cap = try #require(limits.range(of: "    value: 20.0\n"))
            try write(repo + "/regulatory/limits.yaml", limits.replacingCharacters(in: cap, with: "    value: 20.5\n"))
            let first = try ratecard(["validate", "--lang", language.rawValue] + Self.asOf, in: repo)
            #expect(first.status == 1)
            let marker = language == .ko ? "근거를 채우세요: " : "with who approved it, when and on what: "
            var snippets: [String: String] = [:]
            for line in first.out.split(separator: "\n") {
                for rule in ["HIS-05", "HIS-06"] where line.contains(" \(rule): ") {
                    let snippet = try #require(line.range(of: marker).map { String(line[$0.upperBound...]) }, "\(line)")
                    snippets[rule] = snippet
                }
            }
            #expect(snippets.count == 2, "\(first.out)")
            var file = "signoffs:\n"
            for (rule, snippet) in snippets.sorted(by: { $0.key < $1.key }) {
                // Parsed as printed, it is one list item: a mapping of the five fields.
                let parsed = try #require(try YAMLParser.parse(Array(("signoffs:\n  " + snippet + "\n").utf8)), "\(rule): \(snippet)")
                guard case .mapping(let top) = parsed.kind, case .sequence(let items) = top.first?.value.kind, case .mapping(let fields) = items.first?.kind else {
                    Issue.record("\(rule): not a list of one mapping: \(snippet)")
                    continue
                }
                #expect(fields.compactMap(\.key.scalarText) == ["file", "change", "approved_by", "approved_on", "reference"], "\(snippet)")
                file += "  " + snippet.replacingOccurrences(of: "YYYY-MM-DD", with: "2026-11-20") + "\n"
            }
            try write(repo + "/regulatory/signoffs.yaml", file)
            let second = try ratecard(["validate", "--lang", language.rawValue] + Self.asOf, in: repo)
            #expect(!second.out.contains("HIS-05") && !second.out.contains("HIS-06"), "\(file)\n\(second.out)")
            #expect(!second.out.contains("YML-01"), "\(second.out)")
        }
    }

    /// As printed, the date placeholder keeps the sign-off from counting: someone must write it.
    @Test func theSignOffAsPrintedDoesNotValidate() throws {
        let snippet = HistoryRules.signoffSnippet(file: "regulatory/phrases.yaml", change: "phrase a ko: \"x\" -> \"y\\\\z\"", language: .en)
        #expect(snippet == #"- {file: "regulatory/phrases.yaml", change: "phrase a ko: \"x\" -> \"y\\\\z\"", approved_by: "who approved it", approved_on: YYYY-MM-DD, reference: "review number"}"#)
        let node = try #require(try YAMLParser.parse(Array(snippet.utf8)))
        guard case .sequence(let items) = node.kind, case .mapping(let fields) = items.first?.kind else {
            Issue.record("\(node)")
            return
        }
        #expect(fields.first { $0.key.scalarText == "change" }?.value.scalarText == "phrase a ko: \"x\" -> \"y\\\\z\"")
        #expect(fields.first { $0.key.scalarText == "approved_on" }.flatMap { Day($0.value.scalarText ?? "") } == nil)
    }

    /// A legal cap cannot be met by splitting a band: the message says to lower the rate.
    @Test func anAPROverTheCapSaysToLowerItToTheCap() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit(fixture.table, "    apr_max_pct: 7.4", "    apr_max_pct: 21.5")
            let english = try ratecard(["validate"] + Self.asOf, in: fixture.repo, environment: Self.english)
            let line = try #require(english.out.split(separator: "\n").first { $0.contains(" CAP-01: ") }, "\(english.out)")
            #expect(line.contains("apr_max_pct 21.5 is above the legal cap 20.0 in force since 2021-07-07 ("), "\(line)")
            #expect(line.hasSuffix("; lower it to 20.0 or less"), "\(line)")
            #expect(!english.out.contains("split the band"))
            let korean = try ratecard(["validate", "--lang", "ko"] + Self.asOf, in: fixture.repo)
            let koreanLine = try #require(korean.out.split(separator: "\n").first { $0.contains(" CAP-01: ") }, "\(korean.out)")
            #expect(koreanLine.contains("오류 CAP-01: apr_max_pct 21.5가 2021-07-07부터 시행 중인 법정 최고금리 20.0을 넘습니다 ("), "\(koreanLine)")
            #expect(koreanLine.hasSuffix("; 20.0 이하로 낮추세요"), "\(koreanLine)")
        }
    }

    /// Publish refuses uncommitted content and says how a content editor commits it.
    @Test func publishingUncommittedContentPointsAtSave() throws {
        try withTemporaryDirectory { directory in
            let repo = try initialized(directory)
            try edit(repo + "/partners/busan-bank.yaml", "status: active", "status: active  # edited")
            let english = try ratecard(["publish", "--env", "staging", "-m", "x"] + Self.asOf, in: repo, environment: Self.english)
            #expect(english.status == 1)
            #expect(
                english.err
                    == "Error: the content has uncommitted changes (partners/busan-bank.yaml); save them with 'ratecard save -m \"why\"' (it validates them and commits the content), then publish again, or pass --rev to publish a commit as it is\n",
                "\(english.err)")
            let korean = try ratecard(["publish", "--env", "staging", "-m", "x", "--lang", "ko"] + Self.asOf, in: repo)
            #expect(korean.err.hasPrefix("오류: 콘텐츠에 커밋하지 않은 변경이 있습니다 (partners/busan-bank.yaml). 'ratecard save -m \"변경 이유\"'로 저장한 다음"), "\(korean.err)")
            // Saved as it says, it publishes.
            #expect(try ratecard(["save", "-m", "메모"] + Self.asOf, in: repo).status == 0)
            #expect(try ratecard(["publish", "--env", "staging", "-m", "x"] + Self.asOf, in: repo).status == 0)
        }
    }

    /// `init` names ratecard as a shell can run it: by its path, with how to put it on PATH,
    /// when it is not there; as `ratecard` when it is.
    @Test func initPrintsANextStepThatRuns() throws {
        try withTemporaryDirectory { directory in
            var noRatecard = testEnvironment
            noRatecard["PATH"] = "/usr/bin:/bin"
            noRatecard.merge(Self.english) { $1 }
            let binary = binaryFolder + "/ratecard"
            let off = try ratecard(["init", "off"], in: directory, environment: noRatecard)
            #expect(off.status == 0, "\(off.err)")
            #expect(off.out.contains("\nNext: cd off && \(binary) validate\n"), "\(off.out)")
            #expect(off.out.contains("ratecard is not on PATH, so the line above names it by its path; to type just 'ratecard', run: export PATH=\(binaryFolder):\"$PATH\"\n"), "\(off.out)")
            // The step as printed runs, in a shell without ratecard on PATH.
            let next = try #require(off.out.split(separator: "\n").first { $0.hasPrefix("Next: ") }).dropFirst("Next: ".count)
            let (status, output) = try runTool("/bin/sh", ["-c", "cd '\(directory)' && \(next) --as-of 2026-11-29"], environment: noRatecard)
            #expect(status == 0, "\(output)")
            var onPath = environmentWithRatecardOnPath
            onPath.merge(Self.english) { $1 }
            let on = try ratecard(["init", "on"], in: directory, environment: onPath)
            #expect(on.out.hasSuffix("\nNext: cd on && ratecard validate\n"), "\(on.out)")
            let korean = try ratecard(["init", "ko", "--lang", "ko"], in: directory, environment: noRatecard)
            #expect(korean.out.contains("\n다음 단계: cd ko && \(binary) validate\n"), "\(korean.out)")
            #expect(korean.out.contains("ratecard가 PATH에 없어 위 줄에서는 경로로 적었습니다. 'ratecard'만 입력해 쓰려면 다음을 실행하세요: export PATH="), "\(korean.out)")
        }
    }

    /// `prune` without `--keep` says the option is required and what it means.
    @Test func pruneWithoutKeepSaysWhatKeepIs() throws {
        try withTemporaryDirectory { directory in
            let repo = try initialized(directory)
            let english = try ratecard(["prune", "--env", "staging"], in: repo, environment: Self.english)
            #expect(english.status == 2)
            #expect(
                english.err.hasPrefix(
                    "Error: Missing expected option '--keep <n>': how many of the newest releases to keep (the live one and the newest good one before it are always kept)\n\nUsage: ratecard prune "
                ), "\(english.err)")
            let wrong = try ratecard(["prune", "--env", "staging", "--keep", "all"], in: repo, environment: Self.english)
            #expect(wrong.err.hasPrefix("Error: '--keep' is how many of the newest releases to keep, a whole number (0 or more), not 'all'\n"), "\(wrong.err)")
            let korean = try ratecard(["prune", "--env", "staging", "--lang", "ko"], in: repo)
            #expect(korean.err.hasPrefix("오류: '--keep <n>' 옵션이 필요합니다: 남겨 둘 최신 릴리스의 수입니다"), "\(korean.err)")
        }
    }
}
