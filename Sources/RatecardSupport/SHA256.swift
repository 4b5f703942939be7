internal import CCrypto

/// SHA-256 through OpenSSL's libcrypto (EVP), as lowercase hex.
public enum SHA256 {
    /// The digest of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String { hex(digest: digest(bytes)) }

    /// The raw 32-byte digest of `bytes`.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }

    package static func digest(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // EVP_Digest is one-shot: it owns and frees its context internally.
        let ok = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(raw.baseAddress, raw.count, out.baseAddress, &length, algorithm ?? EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(sha256) failed")
        return digest
    }

    /// SHA-256 fetched from OpenSSL's providers once. Given `EVP_sha256()`, OpenSSL 3 looks the
    /// implementation up again on every call, which costs more than hashing a small file; a
    /// fetched one is immutable and shared by every thread.
    nonisolated(unsafe) private static let algorithm = EVP_MD_fetch(nil, "SHA256", nil)

    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    /// HMAC-SHA256 of `data` under `key` (the raw 32 bytes), for request signing.
    public static func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hmac(key: key, $0) }
    }

    package static func hmac(key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            digest.withUnsafeMutableBufferPointer { out in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), data.bindMemory(to: UInt8.self).baseAddress, data.count, out.baseAddress, &length)
            }
        }
        precondition(result != nil && length == 32, "HMAC(sha256) failed")
        return digest
    }

    /// Whether two digests are equal, compared in constant time (CRYPTO_memcmp).
    package static func same(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && a.withUnsafeBytes { CRYPTO_memcmp($0.baseAddress, b.baseAddress, a.count) == 0 }
    }

    /// `count` bytes from OpenSSL's random generator (a secret key), or nil when it fails.
    package static func randomBytes(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        return ok == 1 ? bytes : nil
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of a raw digest.
    public static func hex(digest: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
