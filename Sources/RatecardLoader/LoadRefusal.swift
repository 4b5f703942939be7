// Why the loader did not load what is served: every refusal names its reason, in English and
// Korean, so the app can log it and `ratecard fetch` can print it.

import Foundation

public struct LoadRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Nothing came back (no connection, a timeout): the only kind that is not the server's answer.
        case unreachable
        /// An HTTP status other than 200.
        case status
        /// A redirect to another host, or too many.
        case redirect
        /// live.json is not an envelope this loader reads.
        case envelope
        /// No signature by a trusted key verifies.
        case signature
        /// The statement cannot be read, or its format is unknown.
        case statement
        /// The statement is for another environment.
        case environment
        /// The sequence is lower than one accepted before (a replayed statement).
        case replay
        /// The statement expired (a frozen server), or a signed one has no expiry.
        case expired
        /// No bridge line at or below the app's bridge version.
        case line
        /// The file list does not hash to what the statement says, or does not match it.
        case fileList
        /// A file does not hash to what the file list says, or has another size.
        case file
        /// The release was marked bad on this device.
        case markedBad
        /// A new release did not report ready in time.
        case notReady
        /// The device's own storage failed.
        case storage
    }

    public var kind: Kind
    public var english: String
    public var korean: String

    public init(_ kind: Kind, _ english: String, ko korean: String) {
        self.kind = kind
        self.english = english
        self.korean = korean
    }

    public var description: String { english }
}
