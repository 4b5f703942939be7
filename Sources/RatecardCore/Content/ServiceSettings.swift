import RatecardSupport

/// ratecard.yaml as a command uses it (its environments, the web build folder, the review
/// window), read from the content folder on disk once per command and passed down. A
/// validation run reads the ratecard.yaml of the content it checks, as part of that content.
public struct ServiceSettings: Sendable {
    /// The folder holding ratecard.yaml.
    public var contentDir: String
    public var config: ServiceConfig
    /// Every environment ratecard.yaml names, in its order.
    public var environments: [Environment]

    /// Reads `contentDir/ratecard.yaml`: the one function that reads it outside a validation
    /// run (`ServiceConfig.load`, which notes each read under `RATECARD_TRACE`). A file that does not read (`apps:` included) is an error naming its
    /// `file:line:column`, rule and problem (`ServiceConfig.load`).
    public static func read(contentDir: String) throws -> ServiceSettings {
        let path = contentDir + "/ratecard.yaml"
        let config = try ServiceConfig.load(try FileSystem.readFile(path), path: path)
        return ServiceSettings(contentDir: contentDir, config: config, environments: config.environments.map { Environment($0, contentDir: contentDir) })
    }

    /// The environment named `name`, if ratecard.yaml names it.
    public func environment(named name: String) -> Environment? {
        environments.first { $0.name == name }
    }
}
