import Foundation
import RatecardKit

/// The base content plus four commits of the kind people make every week:
/// an APR change in one band, a partner paused, a consent needing re-consent, a scheduled table.
struct ScriptedHistory {
    let fixture: PublishFixture
    let base: String
    let commits: [String]

    init(in directory: String) throws {
        let fixture = try PublishFixture(in: directory, commits: 1)
        let repository = try Repository.open(at: fixture.repo)
        let author = Signature(name: "Kim Minji", email: "minji@example.com", time: 1_767_225_600, offsetMinutes: 540)
        var ids: [String] = []
        func edit(_ path: String, _ change: (String) -> String) throws {
            let full = fixture.repo + "/" + path
            try FileSystem.writeFile(full, Array(change(String(decoding: try FileSystem.readFile(full), as: UTF8.self)).utf8))
        }
        func commit(_ message: String) throws {
            ids.append(try repository.commitAll(message: message, author: author).hex)
        }
        try edit("products/acme-bank/credit/rates/2026-01-15.yaml") { $0.replacingOccurrences(of: "apr_min_pct: 5.2", with: "apr_min_pct: 5.7") }
        try commit("Raise Acme Bank 801-900 floor")
        try edit("partners/coral-card.yaml") { $0.replacingOccurrences(of: "status: active", with: "status: paused\nstatus_reason: \"전산 점검으로 신규 접수 일시 중단\"") }
        try commit("Pause Coral Card")
        let consent = String(decoding: try FileSystem.readFile(fixture.repo + "/terms/credit-inquiry-consent/1.0.0.md"), as: UTF8.self)
            .replacingOccurrences(of: "version: 1.0.0", with: "version: 2.0.0")
            .replacingOccurrences(of: "effective_from: 2024-03-01", with: "effective_from: 2026-12-01")
            .replacingOccurrences(of: "requires_reconsent: false", with: "requires_reconsent: true")
            .replacingOccurrences(of: "summary: \"대출 한도·금리 조회를 위한 개인(신용)정보 조회 동의서를 최초 제정했습니다.\"", with: "summary: \"조회 대상 금융회사에 코랄카드를 추가했습니다.\"")
        try FileSystem.writeFile(fixture.repo + "/terms/credit-inquiry-consent/2.0.0.md", Array(consent.utf8))
        try commit("Credit inquiry consent 2.0.0")
        let table = String(decoding: try FileSystem.readFile(fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"), as: UTF8.self)
            .replacingOccurrences(of: "effective_from: 2026-01-15", with: "effective_from: 2027-01-04")
        try FileSystem.writeFile(fixture.repo + "/products/acme-bank/credit/rates/2027-01-04.yaml", Array(table.utf8))
        try commit("Schedule Acme Bank January table")
        self.fixture = fixture
        self.base = fixture.commits[0]
        self.commits = ids
    }
}
