internal import CCrypto

/// Ed25519 through OpenSSL's libcrypto (EVP): key pairs, signatures and their checks, on raw
/// 32-byte keys (the private key is its 32-byte seed) and 64-byte signatures.
public enum Ed25519 {
    /// A new key pair from OpenSSL's random generator, or nil when it fails.
    public static func generate() -> (privateKey: [UInt8], publicKey: [UInt8])? {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &key) == 1, let key else { return nil }
        defer { EVP_PKEY_free(key) }
        guard let privateKey = raw(key, EVP_PKEY_get_raw_private_key), let publicKey = raw(key, EVP_PKEY_get_raw_public_key) else { return nil }
        return (privateKey, publicKey)
    }

    /// The public key of a private key (its seed), or nil when it is not 32 bytes.
    public static func publicKey(ofPrivateKey privateKey: [UInt8]) -> [UInt8]? {
        guard let key = privateKeyObject(privateKey) else { return nil }
        defer { EVP_PKEY_free(key) }
        return raw(key, EVP_PKEY_get_raw_public_key)
    }

    /// The 64-byte signature of `message`, or nil when the private key is not 32 bytes.
    public static func sign(_ message: [UInt8], privateKey: [UInt8]) -> [UInt8]? {
        guard let key = privateKeyObject(privateKey), let context = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            EVP_PKEY_free(key)
        }
        // Ed25519 hashes the message itself: no digest is given, and the one-shot call is required.
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        let ok = message.withUnsafeBufferPointer { input in
            signature.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, input.baseAddress, input.count) }
        }
        return ok == 1 && length == 64 ? signature : nil
    }

    /// Whether `signature` is `publicKey`'s signature of `message` (false for a key or signature
    /// of the wrong size).
    public static func isValid(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32 else { return false }
        let key = publicKey.withUnsafeBufferPointer { EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }
        guard let key, let context = EVP_MD_CTX_new() else {
            EVP_PKEY_free(key)
            return false
        }
        defer {
            EVP_MD_CTX_free(context)
            EVP_PKEY_free(key)
        }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        return message.withUnsafeBufferPointer { input in
            signature.withUnsafeBufferPointer { EVP_DigestVerify(context, $0.baseAddress, 64, input.baseAddress, input.count) }
        } == 1
    }

    /// A private key (its 32-byte seed) as a PKCS#8 PEM document, the form `openssl pkey` reads.
    public static func privateKeyPEM(_ privateKey: [UInt8]) -> [UInt8]? {
        guard let key = privateKeyObject(privateKey), let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer {
            BIO_free(bio)
            EVP_PKEY_free(key)
        }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { return nil }
        var pem = [UInt8](repeating: 0, count: BIO_ctrl_pending(bio))
        let read = pem.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        return read == pem.count ? pem : nil
    }

    /// The 32-byte seed of an Ed25519 private key in a PEM document (PKCS#8, as `privateKeyPEM`
    /// and `openssl genpkey -algorithm ed25519` write it), nil for anything else.
    public static func privateKey(pem: [UInt8]) -> [UInt8]? {
        let bio = pem.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        guard let bio else { return nil }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return nil }
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 else { return nil }
        return raw(key, EVP_PKEY_get_raw_private_key)
    }

    private static func privateKeyObject(_ privateKey: [UInt8]) -> OpaquePointer? {
        guard privateKey.count == 32 else { return nil }
        return privateKey.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }
    }

    private static func raw(
        _ key: OpaquePointer, _ get: (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?) -> Int32
    ) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = 32
        let ok = bytes.withUnsafeMutableBufferPointer { get(key, $0.baseAddress, &length) }
        return ok == 1 && length == 32 ? bytes : nil
    }
}
