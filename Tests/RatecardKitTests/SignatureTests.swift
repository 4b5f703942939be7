import Foundation
import RatecardKit
import RatecardLoader
import Testing

@Suite struct SignatureTests {
    private func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// RFC 8032 section 7.1, TEST 2 (a one-byte message).
    @Test func libcryptoMatchesTheRFCVector() throws {
        let secret = bytes(hex: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
        let publicKey = bytes(hex: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
        let expected = bytes(
            hex: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")
        #expect(Ed25519.publicKey(ofPrivateKey: secret) == publicKey)
        #expect(Ed25519.sign([0x72], privateKey: secret) == expected)
        #expect(Ed25519.isValid(signature: expected, of: [0x72], publicKey: publicKey))
        #expect(!Ed25519.isValid(signature: expected, of: [0x73], publicKey: publicKey))
    }

    @Test func aSignatureChecksOnlyUnderItsOwnKeyAndBytes() throws {
        let pair = try #require(Ed25519.generate())
        let other = try #require(Ed25519.generate())
        #expect(pair.publicKey != other.publicKey)
        let statement = LiveStatement(
            environment: "production", sequence: 7, signedAt: "2026-12-04T18:00:00Z", expiresAt: "2026-12-11T18:00:00Z",
            live: .init(release: "000007-abc", files: String(repeating: "a", count: 64)),
            lines: ["1": .init(release: "000005-def", files: String(repeating: "b", count: 64))])
        let payload = Array(try JSONEncoder().encode(statement))
        let signature = try #require(Ed25519.sign(SignedLiveStatement.signedBytes(payload: payload), privateKey: pair.privateKey))
        let key = try #require(TrustedKey(raw: pair.publicKey))
        let envelope = SignedLiveStatement(payload: payload, signatures: [.init(key: key.text, sig: Data(signature).base64EncodedString())])
        let decoded = try JSONDecoder().decode(SignedLiveStatement.self, from: JSONEncoder().encode(envelope))
        let signed = try #require(decoded.signedBytes)
        let verifier = LibcryptoSignatureVerifier()
        #expect(verifier.isValidSignature(signature, of: signed, by: pair.publicKey))
        #expect(!verifier.isValidSignature(signature, of: signed, by: other.publicKey))
        // The bare payload (no context) does not verify: a signature is only ever a statement's.
        #expect(!verifier.isValidSignature(signature, of: payload, by: pair.publicKey))
        #expect(TrustedKey(key.text) == key)
        #expect(TrustedKey("ed25519:AAAA") == nil)
        #expect(TrustedKey("rsa:" + Data(pair.publicKey).base64EncodedString()) == nil)
        let statementBack = try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(decoded.payloadBytes)))
        #expect(statementBack == statement)
        #expect(statementBack.line(forBridge: 3)?.release == "000005-def")
        #expect(statementBack.line(forBridge: 0) == nil)
    }
}
