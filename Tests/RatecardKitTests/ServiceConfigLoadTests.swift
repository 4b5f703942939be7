import Foundation
import RatecardKit
import Testing

/// ratecard.yaml read outside a validation run (environments, the web build): a broken file is
/// an error listing each problem at its file:line:column, never a config with parts missing.
@Suite struct ServiceConfigLoadTests {
    static let valid = """
        service_name: 레이트카드
        broker_registration_no: "제2021-0123호"
        timezone: Asia/Seoul
        web: ../site
        environments:
          staging:
            root: ../.serve/staging

        """

    @Test func aValidFileReads() throws {
        let config = try ServiceConfig.load(Array(Self.valid.utf8), path: "content/ratecard.yaml")
        #expect(config.web == "../site")
        #expect(config.environments.map(\.name) == ["staging"])
    }

    @Test func aSchemaErrorIsNamedAtItsValue() throws {
        let text = Self.valid.replacingOccurrences(of: "timezone: Asia/Seoul", with: "timezone: UTC")
        expectThrows(
            OperationalError.self,
            "content/ratecard.yaml is invalid:\n  content/ratecard.yaml:3:11: error SCH-04: 'timezone' is 'UTC'; content dates are in Asia/Seoul\nFix it ('ratecard validate' checks it) and run the command again"
        ) {
            try ServiceConfig.load(Array(text.utf8), path: "content/ratecard.yaml")
        }
    }

    @Test func aSyntaxErrorIsNamedWhereTheParserStopped() throws {
        let text = Self.valid.replacingOccurrences(of: "  staging:\n", with: "  staging: [\n")
        let error = try #require(throws: OperationalError.self) { try ServiceConfig.load(Array(text.utf8), path: "content/ratecard.yaml") }
        #expect(error.message.english.hasPrefix("content/ratecard.yaml is invalid:\n  content/ratecard.yaml:"), "\(error.message)")
        #expect(error.message.english.contains(": error YML-01: "), "\(error.message)")
    }

    @Test func credentialsAreRefusedWithoutTheirValue() throws {
        let text = Self.valid + "    secret_access_key: abc123\n"
        let error = try #require(throws: OperationalError.self) { try ServiceConfig.load(Array(text.utf8), path: "content/ratecard.yaml") }
        #expect(error.message.english.hasPrefix("content/ratecard.yaml holds credentials ('secret_access_key' at line 8)"), "\(error.message)")
        #expect(!error.message.english.contains("abc123") && !error.message.korean.contains("abc123"))
    }
}

/// `signing:` under an environment: the public keys live.json is signed by and how long a
/// statement is good for; a key in another form or an expiry out of range is named where it is.
@Suite struct SigningConfigTests {
    static let key = "ed25519:" + Data(repeating: 7, count: 32).base64EncodedString()

    func load(_ signing: String) throws -> ServiceConfig {
        try ServiceConfig.load(Array((ServiceConfigLoadTests.valid + "    signing:\n" + signing).utf8), path: "content/ratecard.yaml")
    }

    @Test func aSigningBlockReadsAndABadOneIsNamedAtItsValue() throws {
        let config = try load("      keys: [\"\(Self.key)\"]\n      expires_after_days: 7\n")
        #expect(config.environments.first?.signing == ServiceConfig.Signing(keys: [Self.key], expiresAfterDays: 7))
        let bad: [(String, String)] = [
            ("      keys: [\"ed25519:AAAA\"]\n      expires_after_days: 7\n", "content/ratecard.yaml:9:14: error SCH-04: signing key 'ed25519:AAAA'"),
            ("      keys: [\"rsa:\(Self.key.dropFirst(8))\"]\n      expires_after_days: 7\n", "is not a public key as 'ratecard keys generate' writes it"),
            ("      keys: []\n      expires_after_days: 7\n", "'signing' lists no keys"),
            ("      keys: [\"\(Self.key)\"]\n      expires_after_days: 0\n", "'expires_after_days' is 0; a statement is good for 1 to 366 days"),
            ("      keys: [\"\(Self.key)\"]\n", "expires_after_days"),
        ]
        for (block, says) in bad {
            let error = try #require(throws: OperationalError.self) { try load(block) }
            #expect(error.message.english.contains(says), "\(block): \(error.message.english)")
        }
    }
}
