import RatecardSupport

/// Credentials for S3-compatible storage, only from where AWS tools look for them: the
/// `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` variables, else the
/// shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`) and its
/// `AWS_PROFILE` section (default `default`). Never from ratecard.yaml; never printed (the
/// description hides the secret).
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKey: String
    public var secretKey: String
    public var sessionToken: String?

    public init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
    }

    public var description: String { "access key \(accessKey) (secret hidden)" }

    /// The credentials `environment` points at, or an error that says where they were looked for.
    public static func load(environment: [String: String]) throws -> AWSCredentials {
        if let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty {
            guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw OperationalError(
                    "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both (or neither, to use the shared credentials file)",
                    ko: "AWS_ACCESS_KEY_ID는 설정되어 있는데 AWS_SECRET_ACCESS_KEY가 없습니다; 둘 다 설정하세요 (공유 자격 증명 파일을 쓰려면 둘 다 비워 두세요)")
            }
            let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            return AWSCredentials(accessKey: key, secretKey: secret, sessionToken: token)
        }
        let home = environment["HOME"] ?? ""
        let file = environment["AWS_SHARED_CREDENTIALS_FILE"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.aws/credentials"
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        guard FileSystem.exists(file) else {
            throw OperationalError(
                "no credentials for object storage: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or put a [\(profile)] section in \(file)",
                ko: "오브젝트 스토리지 자격 증명이 없습니다: AWS_ACCESS_KEY_ID와 AWS_SECRET_ACCESS_KEY를 설정하거나, \(file)에 [\(profile)] 구역을 두세요")
        }
        let text = String(decoding: try FileSystem.readFile(file), as: UTF8.self)
        let values = section(profile, of: text)
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw OperationalError(
                "\(file) has no aws_access_key_id and aws_secret_access_key in a [\(profile)] section (AWS_PROFILE chooses the section)",
                ko: "\(file)의 [\(profile)] 구역에 aws_access_key_id와 aws_secret_access_key가 없습니다 (AWS_PROFILE로 구역을 고릅니다)")
        }
        return AWSCredentials(accessKey: key, secretKey: secret, sessionToken: values["aws_session_token"])
    }

    /// `key = value` lines of one `[name]` section of an INI-style credentials file.
    static func section(_ name: String, of text: String) -> [String: String] {
        var values: [String: String] = [:]
        var inside = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw).trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                inside = String(line.dropFirst().dropLast()).trimmingCharacters(in: " \t") == name
                continue
            }
            guard inside, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingCharacters(in: " \t").lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingCharacters(in: " \t")
            values[key] = value
        }
        return values
    }
}
