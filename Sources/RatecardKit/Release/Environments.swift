/// Resolves `--env NAME` (from ratecard.yaml) or `--root DIR` to a serve root.
public enum Environments {
    /// The environments of the content found from `directory`.
    public static func configured(from directory: String) throws -> (config: ServiceConfig, contentDir: String) {
        let location = try ContentLocation.find(from: directory)
        guard let contentDir = location.contentDir else { throw OperationalError("--env needs a content folder with ratecard.yaml; pass --root DIR instead") }
        let bytes = try FileSystem.readFile(contentDir + "/ratecard.yaml")
        let diagnostics = Diagnostics()
        guard let node = try YAMLParser.parse(Array(try SourceText.decode(bytes).utf8)),
              let config = ServiceConfig.read(node, path: "ratecard.yaml", diagnostics: diagnostics) else {
            throw OperationalError("ratecard.yaml is invalid; run 'ratecard validate'")
        }
        return (config, contentDir)
    }

    /// An environment named in ratecard.yaml, its serve root resolved against the content folder.
    public struct Resolved: Sendable, Equatable {
        public var name: String
        public var path: String
        public var protected: Bool
    }

    /// Every environment of the content found from `directory`, from one read of ratecard.yaml.
    public static func all(from directory: String) throws -> [Resolved] {
        let (config, contentDir) = try configured(from: directory)
        return config.environments.map { environment in
            let path = environment.root.hasPrefix("/") ? environment.root : contentDir + "/" + environment.root
            return Resolved(name: environment.name, path: lexicallyNormalized(path), protected: environment.protected)
        }
    }

    /// The serve root for an environment name, and whether it is protected.
    public static func root(named name: String, from directory: String) throws -> (path: String, protected: Bool) {
        let environments = try all(from: directory)
        guard let environment = environments.first(where: { $0.name == name }) else {
            let known = environments.map(\.name).joined(separator: ", ")
            throw OperationalError("no environment '\(name)' in ratecard.yaml (known: \(known.isEmpty ? "none" : known))")
        }
        return (environment.path, environment.protected)
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
