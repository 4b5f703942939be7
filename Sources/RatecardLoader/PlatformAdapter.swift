// The loader's thin platform half, compiled only where the platform has it: CryptoKit's
// Ed25519 and SHA-256, the Keychain for the highest accepted sequence, URLSession refusing
// redirects to another host, and a WKURLSchemeHandler that serves the web view only bytes the
// loader checked. On Linux (the CLI) none of it is compiled; the core above does not need it.

#if canImport(CryptoKit)
    import CryptoKit
    import Foundation

    /// Ed25519 through CryptoKit's `Curve25519.Signing.PublicKey`.
    public struct CryptoKitSignatureVerifier: SignatureVerifier {
        public init() {}

        public func isValidSignature(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool {
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
            return key.isValidSignature(signature, for: message)
        }
    }

    /// SHA-256 through CryptoKit.
    public struct CryptoKitDigest: ContentDigest {
        public init() {}

        public func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(CryptoKit.SHA256.hash(data: bytes)) }
    }
#endif

#if canImport(Security)
    import Foundation
    import Security

    /// The highest accepted sequence in the Keychain (this device only, readable after the first
    /// unlock): outside the app's caches, so clearing them never lets an older statement back in.
    public struct KeychainSequenceStore: AcceptedSequenceStore {
        public struct Failure: Error, Sendable {
            public var status: OSStatus
        }

        public let service: String

        public init(service: String = "ratecard.loader.sequence") { self.service = service }

        private func query(_ environment: String) -> [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: environment]
        }

        public func highestSequence(environment: String) throws -> Int? {
            var search = query(environment)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data, let value = Int(String(decoding: data, as: UTF8.self)) else {
                throw Failure(status: status)
            }
            return value
        }

        public func record(sequence: Int, environment: String) throws {
            if let current = try highestSequence(environment: environment), current >= sequence { return }
            let data = Data(String(sequence).utf8)
            let updated = SecItemUpdate(query(environment) as CFDictionary, [kSecValueData as String: data] as CFDictionary)
            if updated == errSecSuccess { return }
            guard updated == errSecItemNotFound else { throw Failure(status: updated) }
            var item = query(environment)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw Failure(status: added) }
        }
    }
#endif

#if canImport(WebKit)
    import Foundation
    import WebKit

    /// The loader's HTTP through URLSession: no redirect is followed (the loader follows those
    /// that stay on its host), nothing is answered from URLSession's cache.
    public final class URLSessionLoaderTransport: LoaderTransport {
        private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest
            ) async -> URLRequest? { nil }
        }

        private final class Box: @unchecked Sendable {
            let lock = NSLock()
            var result: Result<LoaderResponse, any Error>?
        }

        private let session: URLSession
        public let timeout: TimeInterval

        public init(timeout: TimeInterval = 20) {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
            self.timeout = timeout
        }

        /// Blocks until the response: call it off the main thread (the controller does).
        public func get(_ url: URL) throws -> LoaderResponse {
            let box = Box()
            let done = DispatchSemaphore(value: 0)
            let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
            session.dataTask(with: request) { data, response, error in
                let result: Result<LoaderResponse, any Error>
                if let http = response as? HTTPURLResponse {
                    result = .success(LoaderResponse(status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"), body: Array(data ?? Data())))
                } else {
                    result = .failure(error ?? URLError(.badServerResponse))
                }
                box.lock.lock()
                box.result = result
                box.lock.unlock()
                done.signal()
            }.resume()
            done.wait()
            box.lock.lock()
            defer { box.lock.unlock() }
            return try box.result!.get()
        }
    }

    /// Serves `ratecard-app://app/<path>` from the release the loader checked, each file's bytes
    /// checked against its sha256 again as they are read: nothing unchecked reaches the web view.
    @MainActor public final class RatecardSchemeHandler: NSObject, WKURLSchemeHandler {
        public static let scheme = "ratecard-app"
        public static let entry = URL(string: "ratecard-app://app/index.html")!

        public let loader: ReleaseLoader
        /// The release being served; nil: every request is a 404.
        public var release: LoadedRelease?

        public init(loader: ReleaseLoader) { self.loader = loader }

        public func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
            let url = urlSchemeTask.request.url ?? Self.entry
            guard let release, let bytes = loader.contents(of: url.path, in: release) else {
                urlSchemeTask.didReceive(HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: [:])!)
                urlSchemeTask.didReceive(Data())
                urlSchemeTask.didFinish()
                return
            }
            let headers = [
                "Content-Type": ReleaseLoader.mediaType(forPath: url.path), "Content-Length": String(bytes.count), "Cache-Control": "no-store",
                "Content-Security-Policy": ReleaseLoader.contentSecurityPolicy(forPath: url.path), "X-Content-Type-Options": "nosniff",
            ]
            urlSchemeTask.didReceive(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!)
            urlSchemeTask.didReceive(Data(bytes))
            urlSchemeTask.didFinish()
        }

        public func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {}
    }

    /// What the app holds: install the scheme handler in the web view's configuration, `start`,
    /// and call `ready()` from the bridge handler's `ready`. A new release that does not report
    /// ready within `readyTimeout` seconds is marked bad on this device and the last good one is
    /// opened instead; every refusal goes to `onRefusal`.
    @MainActor public final class RatecardLoaderController {
        public let loader: ReleaseLoader
        public let schemeHandler: RatecardSchemeHandler
        public let readyTimeout: Double
        public var onRefusal: ((LoadRefusal) -> Void)?
        private weak var webView: WKWebView?
        private var waiting: LoadedRelease?

        public init(loader: ReleaseLoader, readyTimeout: Double = 10) {
            self.loader = loader
            self.schemeHandler = RatecardSchemeHandler(loader: loader)
            self.readyTimeout = readyTimeout
        }

        /// Call on the configuration before the web view is made from it.
        public func install(in configuration: WKWebViewConfiguration) {
            configuration.setURLSchemeHandler(schemeHandler, forURLScheme: RatecardSchemeHandler.scheme)
        }

        /// Loads what is served (off the main thread) and opens it, or the last good release.
        public func start(_ webView: WKWebView) {
            self.webView = webView
            let loader = self.loader
            Task.detached {
                let outcome = loader.load(now: Date())
                await self.apply(outcome)
            }
        }

        /// The page sent the bridge's `ready`: the release it runs is the last good one now.
        public func ready() {
            guard let release = waiting else { return }
            waiting = nil
            do {
                try loader.confirmReady(release)
            } catch {
                onRefusal?(LoadRefusal(.storage, "cannot record release \(release.release) as good: \(error)", ko: "릴리스 \(release.release)을(를) 정상으로 기록할 수 없습니다: \(error)"))
            }
        }

        private func apply(_ outcome: ReleaseLoader.Outcome) {
            switch outcome {
            case .loaded(let release, let isNew):
                open(release, waitForReady: isNew)
            case .kept(let release, let why):
                onRefusal?(why)
                open(release, waitForReady: false)
            case .failed(let why):
                onRefusal?(why)
            }
        }

        private func open(_ release: LoadedRelease, waitForReady: Bool) {
            schemeHandler.release = release
            waiting = waitForReady ? release : nil
            webView?.load(URLRequest(url: RatecardSchemeHandler.entry))
            guard waitForReady else { return }
            let timeout = readyTimeout
            Task { @MainActor [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                self?.readyTimedOut(release)
            }
        }

        private func readyTimedOut(_ release: LoadedRelease) {
            guard waiting == release else { return }
            waiting = nil
            switch loader.rollBack(release, afterSeconds: readyTimeout) {
            case .kept(let good, let why):
                onRefusal?(why)
                open(good, waitForReady: false)
            case .failed(let why):
                onRefusal?(why)
                schemeHandler.release = nil
            case .loaded:
                break
            }
        }
    }
#endif
