import RatecardCore
public import RatecardLoader

/// The loader's signature check, through libcrypto (the app uses CryptoKit).
public struct LibcryptoSignatureVerifier: SignatureVerifier {
    public init() {}

    public func isValidSignature(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool {
        Ed25519.isValid(signature: signature, of: message, publicKey: publicKey)
    }
}
