import RatecardSupport

/// An environment named in ratecard.yaml, as a command uses it: read once (`ServiceSettings`)
/// and passed down. Its kind says where its releases are; nothing else does.
public struct Environment: Sendable, Equatable {
    /// Where an environment's releases are.
    public enum Kind: Sendable, Equatable {
        /// A serve root folder (resolved against the content folder, `..` resolved by name).
        case folder(String)
        /// A prefix of an S3-compatible bucket (`s3:`).
        case bucket(ServiceConfig.ObjectStorage)
    }

    public var name: String
    public var kind: Kind
    /// A risky change needs `--approve` here.
    public var protected: Bool
    /// The app versions in the field it serves (`apps:`), which the bridge gate checks.
    public var apps: [ServiceConfig.AppVersion]
    /// `signing:` (nil: live.json is not signed).
    public var signing: ServiceConfig.Signing?

    public init(name: String, kind: Kind, protected: Bool = false, apps: [ServiceConfig.AppVersion] = [], signing: ServiceConfig.Signing? = nil) {
        self.name = name
        self.kind = kind
        self.protected = protected
        self.apps = apps
        self.signing = signing
    }

    /// An environment of ratecard.yaml, its `root:` resolved against `contentDir`.
    init(_ configured: ServiceConfig.Environment, contentDir: String) {
        let kind: Kind
        if let s3 = configured.s3 {
            kind = .bucket(s3)
        } else {
            let root = configured.root.hasPrefix("/") ? configured.root : contentDir + "/" + configured.root
            kind = .folder(Self.lexicallyNormalized(root))
        }
        self.init(name: configured.name, kind: kind, protected: configured.protected, apps: configured.apps, signing: configured.signing)
    }

    /// The serve root folder, or nil for an environment in object storage.
    public var folder: String? {
        if case .folder(let path) = kind { return path }
        return nil
    }

    /// `/a/content/../production` as `/a/production`: messages name the folder a person would
    /// type (`..` resolved by name, symlinks left alone).
    public static func lexicallyNormalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if let last = parts.last, last != ".." { parts.removeLast() } else if !path.hasPrefix("/") { parts.append(part) }
            default: parts.append(part)
            }
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }
}
