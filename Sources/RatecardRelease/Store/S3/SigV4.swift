import Glibc
import RatecardCore
import RatecardSupport

/// AWS Signature Version 4 for S3 requests, computed here over libcrypto's HMAC-SHA256.
///
/// libcurl 7.88 (Debian 12) can sign, but its canonical query is wrong for any value with an
/// escaped character (a listing's `prefix=app%2F` fails with SignatureDoesNotMatch; fixed in
/// curl 8.3), it adds no payload hash, and it signs an `Expect:` line that removes a header
/// and is never sent. Signing here keeps the canonical request exactly as the specification
/// (docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html) says.
public struct SigV4: Sendable {
    public var accessKey: String
    public var secretKey: String
    public var sessionToken: String?
    public var region: String
    public var service = "s3"

    public init(credentials: AWSCredentials, region: String) {
        accessKey = credentials.accessKey
        secretKey = credentials.secretKey
        sessionToken = credentials.sessionToken
        self.region = region
    }

    /// The headers to send with a request: the given ones plus `host`, `x-amz-date`,
    /// `x-amz-content-sha256`, the session token, and `Authorization` signing all of them.
    /// `path` is already URI-encoded (`/bucket/key`); `query` pairs are raw, encoded here.
    public func sign(method: String, host: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, time: Int) -> (headers: [(String, String)], query: String)
    {
        let stamp = Self.amzDate(seconds: time)
        let day = String(stamp.prefix(8))
        var all = headers.map { ($0.0.lowercased(), $0.1.trimmingCharacters(in: " \t")) }
        all.append(("host", host))
        all.append(("x-amz-date", stamp))
        all.append(("x-amz-content-sha256", payloadHash))
        if let sessionToken { all.append(("x-amz-security-token", sessionToken)) }
        all.sort { $0.0 < $1.0 }
        let canonicalQuery = query.map { (S3Client.encode($0.0), S3Client.encode($0.1)) }.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let signedHeaders = all.map(\.0).joined(separator: ";")
        let canonicalRequest = [method, path, canonicalQuery, all.map { "\($0.0):\($0.1)\n" }.joined(), signedHeaders, payloadHash].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = "AWS4-HMAC-SHA256\n\(stamp)\n\(scope)\n\(SHA256.hex(canonicalRequest))"
        var key = SHA256.hmac(key: Array("AWS4\(secretKey)".utf8), Array(day.utf8))
        for part in [region, service, "aws4_request"] { key = SHA256.hmac(key: key, Array(part.utf8)) }
        let signature = SHA256.hex(digest: SHA256.hmac(key: key, Array(stringToSign.utf8)))
        // Host is sent as signed, not left for libcurl to spell.
        var sent = all
        sent.append(("authorization", "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"))
        return (sent, canonicalQuery)
    }

    /// `20261129T063000Z`.
    static func amzDate(seconds: Int) -> String {
        let iso = Timestamp.format(seconds: seconds)
        return iso.filter { $0 != "-" && $0 != ":" }
    }
}
