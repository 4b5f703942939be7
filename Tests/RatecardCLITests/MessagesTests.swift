import Foundation
import RatecardCLI
import RatecardKit
import Testing

/// Errors a content editor or a release manager can act on: exit codes, wording, languages,
/// terminals, help and the shell.
@Suite struct MessagesTests {
    /// English whatever the machine's locale says.
    static let english = ["LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""]
    let asOf = ["--as-of", "2026-11-29"]

    // MARK: - Exit codes and usage errors

    @Test(arguments: [
        ["status"], ["releases"], ["verify"], ["prune", "--keep", "1"], ["nginx-conf"], ["publish"],
        ["rollback", "-m", "why"], ["diff"], ["log", "--partner", "acme-bank"],
    ])
    func anUnknownEnvironmentIsAUsageErrorListingTheKnownOnes(_ command: [String]) throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let result = try ratecard(command + ["--env", "nope"], in: fixture.repo, environment: Self.english)
            #expect(result.status == 2, "\(result.err)")
            #expect(result.out == "")
            #expect(result.err.hasPrefix("Error: Unknown environment 'nope'; ratecard.yaml names these environments: staging\n\nUsage: ratecard \(command[0]) "), "\(result.err)")
            let typo = try ratecard(command + ["--env", "stagin"], in: fixture.repo, environment: Self.english)
            #expect(typo.status == 2)
            #expect(typo.err.hasPrefix("Error: Unknown environment 'stagin'; ratecard.yaml names these environments: staging; did you mean 'staging'?\n"), "\(typo.err)")
        }
    }

    @Test func promoteChecksBothEnvironmentsAndRefusesToPromoteToItself() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let unknown = try ratecard(["promote", "--from", "staging", "--to", "production"], in: fixture.repo, environment: Self.english)
            #expect(unknown.status == 2)
            #expect(unknown.err.hasPrefix("Error: Unknown environment 'production'; ratecard.yaml names these environments: staging\n"), "\(unknown.err)")
            let same = try ratecard(["promote", "--from", "staging", "--to", "staging"], in: fixture.repo, environment: Self.english)
            #expect(same.status == 2)
            #expect(same.err.hasPrefix("Error: '--from' and '--to' are the same environment (staging); promote ships a release to another environment\n\nUsage: ratecard promote "), "\(same.err)")
            #expect(!FileSystem.exists(directory + "/serve-staging"))
        }
    }

    @Test func statusBeforeTheFirstPublishSaysNothingWasPublished() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let text = try ratecard(["status", "--env", "staging"], in: fixture.repo, environment: Self.english)
            #expect(text.status == 0, "\(text.err)")
            #expect(text.out == "Nothing has been published to staging yet.\n")
            #expect(text.err == "")
            let json = try ratecard(["status", "--env", "staging", "--format", "json"], in: fixture.repo)
            #expect(json.status == 0)
            #expect(json.out == "{\"live\":null,\"published\":false}\n" || json.out.contains("\"published\""), "\(json.out)")
            let korean = try ratecard(["status", "--env", "staging", "--lang", "ko"], in: fixture.repo)
            #expect(korean.out == "staging에는 아직 게시된 것이 없습니다.\n")
        }
    }

    @Test func logWithAnUnknownKeyNamesTheNearestKeys() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let typo = try ratecard(["log", "--product", "acme-bank/credt"], in: fixture.repo, environment: Self.english)
            #expect(typo.status == 2)
            #expect(typo.err.hasPrefix("Error: no product 'acme-bank/credt' in the content; did you mean 'acme-bank/credit'?\n\nUsage: ratecard log "), "\(typo.err)")
            let far = try ratecard(["log", "--product", "zzz/qqq"], in: fixture.repo, environment: Self.english)
            #expect(far.status == 2)
            #expect(far.err.hasPrefix("Error: no product 'zzz/qqq' in the content; the nearest: "), "\(far.err)")
            let known = try ratecard(["log", "--product", "acme-bank/credit"], in: fixture.repo, environment: Self.english)
            #expect(known.status == 0, "\(known.err)")
            #expect(known.out.contains("Base content"))
        }
    }

    // MARK: - Validation messages

    /// The rules a compliance review asked for (BND-07, REF-06, DSC-06 quotations, DSC-16 with
    /// a partner going live, DSC-18, DSC-19, HIS-06 quotation warnings, HIS-11), tripped at
    /// once in the work tree, in Korean: each message is translated, none left in English.
    @Test func theComplianceRulesSpeakKorean() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit("partners/acme-bank.yaml", "brn: \"202-81-00186\"", "brn: \"２０２-８１-００１８６\"")
            let table = try fixture.read(fixture.table)
            try fixture.write(
                fixture.table,
                table.replacingOccurrences(of: "apr_min_pct: 4.1", with: "apr_min_pct: X").replacingOccurrences(of: "apr_min_pct: 6.9", with: "apr_min_pct: 4.1")
                    .replacingOccurrences(of: "apr_min_pct: X", with: "apr_min_pct: 6.9"))
            try fixture.edit("products/bright-savings/credit/product.yaml", "중신용자를 위한", "신용등급 5~6등급 중신용자를 위한")
            let notice = """
                ---
                title: 청약철회 안내
                version: 1.0.0
                effective_from: 2026-11-01
                consent: none
                requires_reconsent: false
                summary: "청약철회 안내를 제정했습니다."
                ---
                # 청약철회 안내

                대출계약 서류를 제공받은 날부터 7일 이내에 청약을 철회할 수 있습니다.

                > "누구나 대출" 지금 신청하세요!

                """
            try FileSystem.makeDirectories(fixture.repo + "/terms/withdrawal-notice")
            try fixture.write("terms/withdrawal-notice/1.0.0.md", notice)
            let terms = try fixture.read("terms/service-terms/1.1.0.md")
            try fixture.write(
                "terms/service-terms/1.2.0.md",
                terms.replacingOccurrences(of: "version: 1.1.0", with: "version: 1.2.0").replacingOccurrences(of: "effective_from: 2025-09-01", with: "effective_from: 2026-11-20"))
            try fixture.edit("regulatory/phrases.yaml", "신고, 조심]", "신고, 조심, 안내]")
            // A lender going live on 2026-12-20 with no consent naming it, and a product whose
            // first table starts after that day.
            let partner =
                try fixture.read("partners/coral-card.yaml")
                .replacingOccurrences(of: "id: coral-card", with: "id: delta-capital").replacingOccurrences(of: "코랄카드", with: "델타캐피탈")
                .replacingOccurrences(of: "category: card", with: "category: capital") + "go_live: 2026-12-20\n"
            try fixture.write(
                "partners/delta-capital.yaml", partner.replacingOccurrences(of: try #require(partner.split(separator: "\"").first { $0.contains("-81-") }.map(String.init)), with: "218-81-20402"))
            let consent = """
                ---
                title: 개인(신용)정보 제3자 제공 동의
                version: 1.0.0
                effective_from: 2024-03-01
                recipients: partners
                consent: required
                requires_reconsent: false
                summary: "최초 제정했습니다."
                ---
                # [필수] 개인(신용)정보 제3자 제공 동의

                아래 금융회사에 개인(신용)정보를 제공합니다: 에이크미은행, 브라이트저축은행, 코랄카드.

                """
            try FileSystem.makeDirectories(fixture.repo + "/terms/third-party-consent")
            try fixture.write("terms/third-party-consent/1.0.0.md", consent)
            try FileSystem.makeDirectories(fixture.repo + "/products/delta-capital/card-loan/rates")
            try fixture.write(
                "products/delta-capital/card-loan/product.yaml",
                try fixture.read("products/coral-card/card-loan/product.yaml").replacingOccurrences(of: "partner: coral-card", with: "partner: delta-capital"))
            try fixture.write(
                "products/delta-capital/card-loan/rates/2027-01-04.yaml",
                try fixture.read("products/coral-card/card-loan/rates/2026-03-02.yaml").replacingOccurrences(of: "effective_from: 2026-03-02", with: "effective_from: 2027-01-04"))

            let result = try ratecard(["validate", "--lang", "ko"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(result.status == 1)
            let out = result.out
            for korean in [
                "오류 BND-07: 가장 좋은 구간 901-1000의 최저 금리(6.9%)가 가장 낮은 구간 0-800의 최저 금리(4.1%)보다 높습니다. 금리표 전체가 거꾸로 되어 있습니다 (신용점수가 가장 좋은 고객이 가장 높은 금리를 냅니다). 금리를 거꾸로 입력하지 않았는지 확인하세요",
                "오류 REF-06: 사업자등록번호 '２０２-８１-００１８６': 전각 숫자로 쓰여 있습니다 (입력기에서 붙여 넣은 값). ASCII 숫자로 쓰세요: '202-81-00186'",
                "오류 DSC-18: description_ko에 신용등급 표현('신용등급')이 있지만 이 상품은 신용점수로 금리를 정합니다 (2021-07-07.yaml). 신용등급은 2021-01-01부터 0-1000점의 신용점수로 바뀌었으니 신용평점으로 쓰세요",
                "오류 DSC-19: 본문에 청약철회 기간이 7일로 쓰여 있습니다 ('7일이내에청약을철회'). 청약철회 기간은 14일이니 14일로 쓰세요 (regulatory/limits.yaml의 withdrawal_period_days: ",
                "오류 DSC-06: 본문에 인용한 문구('누구나 대출')는 경고 없이 쓰였습니다. ",
                "인용은 regulatory/phrases.yaml의 quotation_warnings 단어(불법, 사기, 주의, 유의, 속지, 피해, 신고, 조심, 안내)가 같은 문장에서 인용 뒤에 오거나",
                "오류 HIS-06: 인용 경고 단어가 추가되어(안내) 그 앞에 인용한 문구는 더 이상 광고 문구로 검사하지 않습니다 (변경 이름: `quotation warnings added: 안내`)",
                "오류 HIS-11: 새 버전의 시행일(2026-11-20)이 소급되어 있습니다 (2026-11-29 이전): 이용자가 이전 버전을 본 날에도 시행 중이었다고 말하게 됩니다. effective_from을 2026-11-29 이후로 하세요",
                "오류 DSC-16: 이 버전이 시행 중인 2026-12-20에 제휴를 시작하는 '델타캐피탈'(partners/delta-capital.yaml)의 이름이 동의서에 없습니다. 2026-12-20 또는 그 전에 시행하는 새 주 버전(requires_reconsent: true)에 이름을 넣거나 go_live를 옮기세요",
                "오류 REF-02: 판매 중인 상품에 제휴 시작일인 2026-12-20에 적용되는 금리표가 없습니다. rates/<date>.yaml을 추가하거나 status: withdrawn으로 바꾸세요",
            ] {
                #expect(out.contains(korean), "missing: \(korean)\n\(out)")
            }
            for english in ["runs the wrong way", "full-width digits", "speaks of credit grades", "states a withdrawal period", "without warning against it", "is backdated", "goes live on"] {
                #expect(!out.contains(english), "left in English: \(english)")
            }
        }
    }

    @Test func unknownFieldsAndValuesSuggestTheNearestKnownOne() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit(fixture.table, "bureau: KCB", "bureau: kcb")
            try fixture.edit(fixture.table, "    apr_max_pct: 7.4", "    apr_max_pc: 7.4")
            let result = try ratecard(["validate"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(result.status == 1)
            #expect(result.out.contains("\(fixture.table):2:9: error SCH-04: 'bureau' is 'kcb', which is not one of: KCB, NICE; did you mean 'KCB'?\n"), "\(result.out)")
            #expect(
                result.out.contains(
                    "error SCH-02: unknown field 'apr_max_pc'; expected one of: apr_max_pct, apr_min_pct, grade_max, grade_min, limit_max_krw, score_max, score_min; "
                        + "did you mean 'apr_max_pct'?\n"),
                "\(result.out)")
        }
    }

    @Test(arguments: [("apr_min_pct: 5.2", "apr_min_pct: \"5.2\""), ("score_min: 801", "score_min: eight hundred one")])
    func aTypeErrorInABandIsReportedAloneNotAsABandGap(_ edit: (String, String)) throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit(fixture.table, edit.0, edit.1)
            let result = try ratecard(["validate"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(result.status == 1)
            let lines = result.out.split(separator: "\n").filter { $0.hasPrefix(fixture.table) }
            #expect(lines.count == 1, "\(result.out)")
            #expect(lines.first?.contains(" error SCH-03: '\(edit.0.prefix { $0 != ":" })' must be ") == true, "\(result.out)")
            for rule in ["BND-02", "BND-03", "BND-04", "BND-05"] { #expect(!result.out.contains(rule), "\(result.out)") }
        }
    }

    @Test func aTabInTheIndentationIsExplained() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let partner = "partners/coral-card.yaml"
            let text = try fixture.read(partner)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let index = try #require(lines.firstIndex { $0.hasPrefix("  ") })
            lines[index] = "\t" + lines[index].dropFirst(2)
            try fixture.write(partner, lines.joined(separator: "\n"))
            let result = try ratecard(["validate"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(result.status == 1)
            let expected = "\(partner):\(index + 1):1: error YML-01: tabs are not allowed for indentation in YAML; indent with spaces\n"
            #expect(result.out.hasPrefix(expected), "\(result.out)")
        }
    }

    @Test func messagesAreInKoreanWithLangKoOrAKoreanLocale() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit("partners/coral-card.yaml", "category: card", "category: crad")
            let expected =
                "partners/coral-card.yaml:4:11: 오류 SCH-04: 'category'의 값 'crad'는 쓸 수 없습니다. 쓸 수 있는 값: bank, internet_bank, savings_bank, card, capital, insurance, p2p; 혹시 'card'를 뜻했습니까?\n"
            let flag = try ratecard(["validate", "--lang", "ko"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(flag.status == 1)
            #expect(flag.out.hasPrefix(expected), "\(flag.out)")
            #expect(flag.out.hasSuffix("유효하지 않음: 오류 1개, 경고 0개 (파일 22개)\n") || flag.out.contains("유효하지 않음: 오류 1개, 경고 0개 (파일 "), "\(flag.out)")
            for (name, value) in [("LANG", "ko_KR.UTF-8"), ("LC_MESSAGES", "ko_KR.UTF-8"), ("LC_ALL", "ko_KR.UTF-8")] {
                var environment = Self.english
                environment[name] = value
                let locale = try ratecard(["validate"] + asOf, in: fixture.repo, environment: environment)
                #expect(locale.out.hasPrefix(expected), "\(name): \(locale.out)")
            }
            // --lang wins over the locale; LC_ALL wins over LANG.
            let english = try ratecard(["validate", "--lang", "en"] + asOf, in: fixture.repo, environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
            #expect(english.out.hasPrefix("partners/coral-card.yaml:4:11: error SCH-04: 'category' is 'crad', which is not one of: "), "\(english.out)")
            let overridden = try ratecard(["validate"] + asOf, in: fixture.repo, environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "en_US.UTF-8", "LC_MESSAGES": ""])
            #expect(overridden.out.contains(" error SCH-04: "))
            // Rule ids and the machine formats' structure stay the same.
            let github = try ratecard(["validate", "--lang", "ko", "--format", "github"] + asOf, in: fixture.repo)
            #expect(github.out.hasPrefix("::error file=partners/coral-card.yaml,line=4,col=11,title=SCH-04::'category'의 값 'crad'는 쓸 수 없습니다."), "\(github.out)")

            let usage = try ratecard(["--lang", "ko", "validate", "--frobnicate"], in: fixture.repo)
            #expect(usage.status == 2)
            #expect(usage.err.hasPrefix("오류: 알 수 없는 옵션 '--frobnicate'\n\n사용법: ratecard validate "), "\(usage.err)")
            #expect(usage.err.hasSuffix("  자세한 내용은 'ratecard validate --help'를 보세요.\n"))
            let badLanguage = try ratecard(["validate", "--lang", "fr"], in: fixture.repo, environment: Self.english)
            #expect(badLanguage.status == 2)
            #expect(badLanguage.err.hasPrefix("Error: Unknown language 'fr'; use one of: en, ko\n"), "\(badLanguage.err)")
        }
    }

    // MARK: - Terminals

    /// Runs the binary under a pseudo-terminal (util-linux `script`), as a person at a terminal would.
    func onTerminal(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> String {
        let quoted = ([Bundle.main.bundleURL.appendingPathComponent("ratecard").path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var env = testEnvironment.merging(Self.english) { $1 }
        env["TERM"] = "xterm"
        env["NO_COLOR"] = nil
        for (key, value) in environment { env[key] = value }
        let command = "cd '\(directory)' && " + quoted.joined(separator: " ")
        return try runTool("/usr/bin/script", ["-qec", command, "/dev/null"], environment: env).1.replacingOccurrences(of: "\r\n", with: "\n")
    }

    @Test func onATerminalEachProblemShowsItsLineAndACaretInColourButNeverInAPipe() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit("partners/coral-card.yaml", "category: card", "category: crad")
            let terminal = try onTerminal(["validate"] + asOf, in: fixture.repo)
            #expect(terminal.contains("\u{1B}[1;31merror\u{1B}[0m SCH-04: 'category' is 'crad'"), "\(terminal)")
            #expect(terminal.contains(" \u{1B}[34m4\u{1B}[0m | category: crad\n   | " + String(repeating: " ", count: 10) + "\u{1B}[1;32m^\u{1B}[0m\n"), "\(terminal)")

            let noColor = try onTerminal(["validate"] + asOf, in: fixture.repo, environment: ["NO_COLOR": "1"])
            #expect(noColor.contains("partners/coral-card.yaml:4:11: error SCH-04: 'category' is 'crad'"), "\(noColor)")
            #expect(!noColor.contains("\u{1B}["))
            #expect(!noColor.contains("| category: crad"))

            let piped = try ratecard(["validate"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(!piped.out.contains("\u{1B}["))
            #expect(!piped.out.contains("| category: crad"))
            #expect(piped.out.hasPrefix("partners/coral-card.yaml:4:11: error SCH-04: "))
        }
    }

    @Test func theCaretLinesUpUnderKoreanText() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            // libyaml stops at the second ':' after the Korean name: column 14 in characters,
            // but the four Hangul syllables take two cells each on a terminal.
            try fixture.edit("partners/coral-card.yaml", "name_ko: 코랄카드\n", "name_ko: 코랄카드: x\n")
            let terminal = try onTerminal(["validate"] + asOf, in: fixture.repo)
            #expect(terminal.contains("partners/coral-card.yaml:2:14:"), "\(terminal)")
            #expect(terminal.contains("| name_ko: 코랄카드: x\n   | " + String(repeating: " ", count: 9 + 8) + "\u{1B}[1;32m^"), "\(terminal)")
        }
    }

    // MARK: - save

    @Test func saveShowsTheWarningsItFound() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            try fixture.edit(fixture.table, "apr_min_pct: 4.1", "apr_min_pct: 0.9")
            let saved = try ratecard(["save", "-m", "Lower the floor", "--author", "Kim Minji <minji@example.com>"] + asOf, in: fixture.repo, environment: Self.english)
            #expect(saved.status == 0, "\(saved.out)\(saved.err)")
            #expect(
                saved.out.hasPrefix(
                    """
                    Warnings (they do not block the save):
                    \(fixture.table):6:18: warning HIS-04: apr_min_pct for scores 901-1000 moved -3.2pp (4.1 -> 0.9), more than 3.0pp; check it is intended

                    """), "\(saved.out)")
            #expect(saved.out.contains("Saved commit "))
        }
    }

    // MARK: - Help, version, completion, hook

    @Test(arguments: RatecardCLI.commands)
    func everyUsageLineListsEveryOptionAndEveryHelpHasAnExample(_ command: Command) throws {
        let help = try ratecard([command.name, "--help"], in: "/")
        #expect(help.status == 0)
        let usage = try #require(help.out.split(separator: "\n").first { $0.hasPrefix("USAGE: ") })
        let words = Set(usage.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init))
        for option in command.ownOptions {
            #expect(words.contains(option.name), "\(command.name): \(usage) does not list \(option.name)")
        }
        let options = try #require(help.out.range(of: "\nOPTIONS:\n"))
        for global in ["-C <dir>", "--lang <lang>", "-h, --help"] {
            #expect(help.out[options.upperBound...].contains("  \(global)"), "\(command.name) help lacks \(global)")
        }
        let examples = try #require(help.out.range(of: "\nEXAMPLES:\n"), "\(command.name) has no examples")
        #expect(help.out[examples.upperBound...].contains("ratecard \(command.name)"), "\(help.out)")
    }

    /// Under `--lang ko` every command's help is Korean: its overview, what each option does, its
    /// discussion and the exit codes; the usage line, the option names and the examples stay as typed.
    @Test(arguments: RatecardCLI.commands)
    func everyHelpIsKoreanUnderLangKo(_ command: Command) throws {
        let help = try ratecard([command.name, "--help", "--lang", "ko"], in: "/")
        #expect(help.status == 0)
        let lines = help.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func korean(_ text: some StringProtocol) -> Bool { text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) } }
        #expect(lines.first.map { $0.hasPrefix("개요: ") && korean($0) } == true, "\(command.name): \(help.out)")
        #expect(lines.contains("사용법: ratecard \(command.name) \(command.usageLine)"), "\(command.name): \(help.out)")
        for option in command.options {
            let label = (option.short.map { "\($0), " } ?? "") + option.name + (option.value.map { " <\($0.lowercased())>" } ?? "")
            let line = lines.first { $0.hasPrefix("  \(label) ") }
            #expect(line.map { korean($0.dropFirst(label.count + 2)) } == true, "\(command.name) \(option.name): \(line ?? "missing")")
        }
        for example in command.examples { #expect(lines.contains("  " + example), "\(command.name): \(example)") }
        if !command.discussion.isEmpty {
            let first = try #require(command.discussion.split(separator: "\n").first)
            #expect(!help.out.contains(first), "\(command.name): the discussion is in English")
        }
        #expect(help.out.contains("\n종료 코드:\n  0  정상\n") && !help.out.contains("EXIT CODES"), "\(command.name): \(help.out)")
        #expect(!help.out.contains(command.abstract), "\(command.name): the overview is in English")
    }

    /// A Korean locale gives the Korean help as `--lang ko` does, the list of commands included.
    @Test func aKoreanLocaleGivesTheKoreanHelp() throws {
        let locale = try ratecard(["--help"], in: "/", environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
        #expect(locale.out.hasPrefix("개요: ") && locale.out.contains("\n명령:\n") && locale.out.contains("  rollback "), "\(locale.out)")
        for command in RatecardCLI.commands { #expect(!locale.out.contains(command.abstract), "\(command.name)") }
        let validate = try ratecard(["validate", "--help"], in: "/", environment: ["LC_ALL": "ko_KR.UTF-8"])
        #expect(validate.out == (try ratecard(["validate", "--help", "--lang", "ko"], in: "/").out), "\(validate.out)")
        let english = try ratecard(["validate", "--help"], in: "/", environment: Self.english)
        #expect(english.out.hasPrefix("OVERVIEW: ") && english.out.contains("\nEXIT CODES:\n"), "\(english.out)")
    }

    /// The parallel steps use the processors the process may run on, not a fixed two.
    @Test func threadsFollowTheProcessorsTheProcessMayUse() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let binary = Bundle.main.bundleURL.appendingPathComponent("ratecard").path
            for (cpus, expected) in [("0", 1), ("0-\(ProcessInfo.processInfo.activeProcessorCount - 1)", min(ProcessInfo.processInfo.activeProcessorCount, 8))] {
                let (status, output) = try runTool("/usr/bin/taskset", ["-c", cpus, binary, "-C", fixture.repo, "validate"] + asOf, environment: ["RATECARD_TRACE": "1", "PATH": "/usr/bin:/bin"])
                #expect(status == 0, "\(output)")
                #expect(output.contains("tree entries, \(expected) threads"), "\(cpus): \(output)")
            }
        }
    }

    @Test func versionPrintsTheVersionAndTheBuildFingerprintOfTheBundles() throws {
        try withTemporaryDirectory { directory in
            let version = try ratecard(["version"], in: "/")
            #expect(version.status == 0)
            let flag = try ratecard(["--version"], in: "/")
            #expect(flag.out == version.out)
            let match = try #require(version.out.wholeMatch(of: /ratecard (\d+\.\d+\.\d+) \(build ([0-9a-f]{16})\)\n/), "\(version.out)")
            #expect(String(match.1) == RatecardCLI.version)
            let fixture = try HistoryFixture(in: directory)
            let built = try ratecard(["build", "--out", directory + "/bundle"] + asOf, in: fixture.repo)
            #expect(built.status == 0, "\(built.err)")
            let manifest = try JSONSerialization.jsonObject(with: Data(try FileSystem.readFile(directory + "/bundle/data/manifest.json"))) as? [String: Any]
            #expect(manifest?["build"] as? String == String(match.2))
        }
    }

    /// What bash completion offers for the words typed so far (the last one being completed).
    func bashCompletion(_ script: String, _ words: [String]) throws -> [String] {
        let array = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let program = "source \"$1\"; COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _ratecard; printf '%s\\n' \"${COMPREPLY[@]}\""
        let (status, output) = try runTool("/bin/bash", ["-c", program, "bash", script], stderrToNull: true)
        #expect(status == 0)
        return output.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletionIsMadeFromTheCommandTable() throws {
        try withTemporaryDirectory { directory in
            let result = try ratecard(["completion", "bash"], in: "/")
            #expect(result.status == 0)
            let script = directory + "/ratecard.bash"
            try FileSystem.writeFile(script, Array(result.out.utf8))
            #expect(try runTool("/bin/bash", ["-n", script]).0 == 0)
            let all = try bashCompletion(script, ["ratecard", ""])
            for command in RatecardCLI.commands { #expect(all.contains(command.name)) }
            #expect(try bashCompletion(script, ["ratecard", "val"]) == ["validate"])
            #expect(try bashCompletion(script, ["ratecard", "-C", "content", "publish", "--app"]) == ["--approve"])
            #expect(try bashCompletion(script, ["ratecard", "validate", "--format", ""]).sorted() == ["github", "json", "junit", "sarif", "text"])
            #expect(try bashCompletion(script, ["ratecard", "diff", "--format", ""]).sorted() == ["json", "markdown", "text"])
            #expect(try bashCompletion(script, ["ratecard", "completion", ""]).sorted() == ["bash", "zsh"])
            #expect(try bashCompletion(script, ["ratecard", "hook", ""]) == ["install"])
            #expect(try bashCompletion(script, ["ratecard", "status", "--lang", ""]).sorted() == ["en", "ko"])
            for command in RatecardCLI.commands {
                let offered = try bashCompletion(script, ["ratecard", command.name, "--"])
                for option in command.options where option.name.hasPrefix("--") { #expect(offered.contains(option.name), "\(command.name) \(option.name)") }
            }
        }
    }

    @Test func zshCompletionNamesEveryCommandAndOption() throws {
        let result = try ratecard(["completion", "zsh"], in: "/")
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("#compdef ratecard\n"))
        for command in RatecardCLI.commands {
            #expect(result.out.contains("        '\(command.name):"))
            let section = try #require(result.out.range(of: "\n                \(command.name))\n"), "\(command.name)")
            let rest = result.out[section.upperBound...]
            let body = rest[..<(rest.range(of: "\n                    ;;\n")?.lowerBound ?? rest.endIndex)]
            for option in command.options { #expect(body.contains(option.name), "\(command.name) \(option.name)") }
        }
        let unknown = try ratecard(["completion", "fish"], in: "/")
        #expect(unknown.status == 2)
    }

    @Test func theHookFindsRatecardOnPathAndQuotesThePaths() throws {
        try withTemporaryDirectory { directory in
            var fixture = try HistoryFixture(in: directory, folder: "it's a repo", contentFolder: "the \"content\" $HOME")
            let content = fixture.repo + "/the \"content\" $HOME"
            let installed = try ratecard(["hook", "install"], in: content)
            #expect(installed.status == 0, "\(installed.err)")
            let hook = String(decoding: try FileSystem.readFile(fixture.repo + "/.git/hooks/pre-commit"), as: UTF8.self)
            #expect(!hook.contains(binaryFolder), "\(hook)")
            #expect(!hook.contains(directory), "\(hook)")
            #expect(hook.contains("-C \"$top\"/'the \"content\" $HOME' validate --staged"), "\(hook)")

            let git = ["-C", fixture.repo, "-c", "user.name=Hook Test", "-c", "user.email=hook@example.com"]
            let table = "the \"content\" $HOME/" + fixture.table
            try fixture.edit(table, "score_min: 801", "score_min: 811")
            #expect(try runTool("/usr/bin/git", git + ["add", "-A"]).0 == 0)
            let blocked = try runTool("/usr/bin/git", git + ["commit", "-m", "bad band"], environment: environmentWithRatecardOnPath)
            #expect(blocked.0 != 0)
            #expect(blocked.1.contains("error BND-02"), "\(blocked.1)")
            try fixture.edit(table, "score_min: 811", "score_min: 801")
            try fixture.edit(table, "apr_min_pct: 5.2", "apr_min_pct: 5.3")
            #expect(try runTool("/usr/bin/git", git + ["add", "-A"]).0 == 0)
            var noRatecard = testEnvironment
            noRatecard["PATH"] = "/usr/bin:/bin"
            noRatecard["RATECARD"] = nil
            let missing = try runTool("/usr/bin/git", git + ["commit", "-m", "good change"], environment: noRatecard)
            #expect(missing.0 != 0)
            #expect(missing.1.contains("ratecard was not found on PATH"), "\(missing.1)")
            let allowed = try runTool("/usr/bin/git", git + ["commit", "-m", "good change"], environment: environmentWithRatecardOnPath)
            #expect(allowed.0 == 0, "\(allowed.1)")
            _ = try fixture.commit("nothing")
        }
    }

    @Test func aRatecardInsideTheRepositoryIsFoundByItsRelativePath() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let tools = fixture.repo + "/tools bin"
            try FileSystem.makeDirectories(tools)
            #expect(try runTool("/bin/cp", [binaryFolder + "/ratecard", tools + "/ratecard"]).0 == 0)
            let (status, output) = try runTool(tools + "/ratecard", ["-C", fixture.repo, "hook", "install"])
            #expect(status == 0, "\(output)")
            let hook = String(decoding: try FileSystem.readFile(fixture.repo + "/.git/hooks/pre-commit"), as: UTF8.self)
            #expect(hook.contains("ratecard=\"$top\"/'tools bin/ratecard'"), "\(hook)")
            #expect(!hook.contains(directory))
            // Moved elsewhere, with no ratecard on PATH, the hook still finds it.
            let moved = directory + "/moved"
            #expect(try runTool("/bin/mv", [fixture.repo, moved]).0 == 0)
            try FileSystem.writeFile(moved + "/tools bin/.gitignore", Array("*\n".utf8))
            let git = ["-C", moved, "-c", "user.name=Hook Test", "-c", "user.email=hook@example.com"]
            let table = moved + "/" + fixture.table
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "score_min: 801", with: "score_min: 811").utf8))
            #expect(try runTool("/usr/bin/git", git + ["add", fixture.table]).0 == 0)
            var noRatecard = testEnvironment
            noRatecard["PATH"] = "/usr/bin:/bin"
            let blocked = try runTool("/usr/bin/git", git + ["commit", "-m", "bad band"], environment: noRatecard)
            #expect(blocked.0 != 0)
            #expect(blocked.1.contains("error BND-02"), "\(blocked.1)")
        }
    }
}
