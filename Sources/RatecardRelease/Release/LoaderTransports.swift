public import Foundation
import RatecardCore
public import RatecardLoader
import RatecardSupport

/// The loader's HTTP through libcurl, for `ratecard fetch`: one GET per call, TLS peers verified,
/// no redirect followed (the loader follows those that stay on its host).
public struct CurlLoaderTransport: LoaderTransport {
    public let timeoutMilliseconds: Int

    public init(timeoutMilliseconds: Int = 30_000) { self.timeoutMilliseconds = timeoutMilliseconds }

    public func get(_ url: URL) throws -> LoaderResponse {
        let transport = HTTPTransport(connectTimeoutMilliseconds: 5_000, timeoutMilliseconds: timeoutMilliseconds)
        let response = try transport.send(HTTPTransport.Request(method: "GET", url: url.absoluteString))
        return LoaderResponse(status: response.status, location: response.headers["location"], body: response.body)
    }
}

/// The loader's SHA-256 through libcrypto.
public struct LibcryptoDigest: ContentDigest {
    public init() {}

    public func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.digest(bytes) }
}
