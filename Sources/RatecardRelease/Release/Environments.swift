import RatecardCore
import RatecardSupport

/// Resolves `--env NAME` (from ratecard.yaml) or `--root DIR` to a serve root.
public enum Environments {
    /// The environments of the content found from `directory`.
    public static func configured(from directory: String) throws -> (config: ServiceConfig, contentDir: String) {
        let location = try ContentLocation.find(from: directory)
        guard let contentDir = location.contentDir else {
            throw OperationalError("--env needs a content folder with ratecard.yaml; pass --root DIR instead", ko: "--env에는 ratecard.yaml이 있는 콘텐츠 폴더가 필요합니다; 대신 --root DIR을 주세요")
        }
        let path = contentDir + "/ratecard.yaml"
        return (try ServiceConfig.load(try FileSystem.readFile(path), path: path), contentDir)
    }

    /// An environment named in ratecard.yaml: its serve root resolved against the content
    /// folder, or its place in object storage (then `path` is empty).
    public struct Resolved: Sendable, Equatable {
        public var name: String
        public var path: String
        public var protected: Bool
        public var s3: ServiceConfig.ObjectStorage? = nil
        /// `signing:` (nil: live.json is not signed).
        public var signing: ServiceConfig.Signing? = nil

        /// Where its releases are: the serve root, or the bucket prefix with the credentials
        /// found in `environment` (the process's variables and the shared credentials file).
        public func target(environment: [String: String] = ProcessEnvironment.current) throws -> any ReleaseStore {
            var store = try place(environment: environment)
            store.delivery = LiveDelivery(environment: name, signing: signing)
            return store
        }

        private func place(environment: [String: String]) throws -> any ReleaseStore {
            guard let s3 else { return ServeRoot(path: path) }
            let credentials: AWSCredentials
            do {
                credentials = try AWSCredentials.load(environment: environment)
            } catch let error as OperationalError {
                throw OperationalError(
                    "environment '\(name)' is in object storage (s3://\(s3.bucket)/\(s3.prefix)): \(error.message)",
                    ko: "환경 '\(name)'은(는) 오브젝트 스토리지(s3://\(s3.bucket)/\(s3.prefix))에 있습니다: \(error.message)")
            }
            return S3Root(
                location: S3Location(endpoint: s3.endpoint, bucket: s3.bucket, prefix: s3.prefix, region: s3.region),
                credentials: credentials, lockTTL: s3.lockTTLSeconds ?? S3Root.defaultLockTTL, deadlineSeconds: s3.deadlineSeconds ?? S3Root.defaultDeadline,
                lockWaitSeconds: s3.lockWaitSeconds ?? S3Root.defaultLockWait)
        }
    }

    /// Every environment of the content found from `directory`, from one read of ratecard.yaml.
    public static func all(from directory: String) throws -> [Resolved] {
        let (config, contentDir) = try configured(from: directory)
        return config.environments.map { environment in
            if let s3 = environment.s3 { return Resolved(name: environment.name, path: "", protected: environment.protected, s3: s3, signing: environment.signing) }
            let path = environment.root.hasPrefix("/") ? environment.root : contentDir + "/" + environment.root
            return Resolved(name: environment.name, path: lexicallyNormalized(path), protected: environment.protected, signing: environment.signing)
        }
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
