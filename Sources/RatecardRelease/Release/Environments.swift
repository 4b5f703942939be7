import RatecardCore
import RatecardSupport

extension Environment {
    /// Where its releases are: the serve root, or the bucket prefix with the credentials found
    /// in `environment` (the process's variables and the shared credentials file); its
    /// `delivery` names it and its `signing:`.
    public func store(environment: [String: String] = ProcessEnvironment.current) throws -> any ReleaseStore {
        var store = try place(environment: environment)
        store.delivery = LiveDelivery(environment: name, signing: signing)
        return store
    }

    private func place(environment: [String: String]) throws -> any ReleaseStore {
        switch kind {
        case .folder(let path): return ServeRoot(path: path)
        case .bucket(let s3):
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
}
