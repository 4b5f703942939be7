import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// The native bridge at publish and promote: what the web build needs from the app, refused
/// when an app version the environment supports lacks an unguarded call.
public enum BridgeGate {
    /// What the gate found in a web build.
    public enum Verdict {
        /// The web build does not use the bridge (or there is no web build).
        case unused
        /// Every supported app version can run it; the requirement is recorded in the release.
        case allowed(BridgeRequirement)
        /// The web build's use of the bridge is invalid.
        case invalid([Diagnostic])
        /// Some supported app version lacks a call the web build makes.
        case refused([Message])

        public var requirement: BridgeRequirement? {
            if case .allowed(let requirement) = self { return requirement }
            return nil
        }
    }

    /// Checks the web build against the app versions the environment supports; a passed check
    /// is kept in `cache`.
    public static func check(web: String?, repositoryRoot: String?, apps: [ServiceConfig.AppVersion], environment: String, cache: BuildCache?) throws -> Verdict {
        guard let web else { return .unused }
        let prefix = BridgeCheck.displayPrefix(webFolder: web, repositoryRoot: repositoryRoot)
        // A web build that passed is kept in the build cache by the bytes of its files: every
        // publish checks the same few files, which change far less often than the content.
        let key = cache == nil ? nil : cacheKey(web: web, prefix: prefix)
        let requirement: BridgeRequirement?
        if let key, let bytes = cache?.read(key), let cached = decode(bytes) {
            requirement = cached
        } else {
            let check = try BridgeCheck.run(webFolder: web, displayPrefix: prefix)
            let errors = check.diagnostics.filter { $0.severity == .error }
            if !errors.isEmpty { return .invalid(errors) }
            requirement = check.requirement
            if let key { cache?.write(key, encode(requirement)) }
        }
        guard let requirement else { return .unused }
        return Self.check(requirement, apps: apps, environment: environment)
    }

    /// The cache key of a web folder's check: the version of the scanner's rules, every file's
    /// path and hash (the schema, the generated files and the scripts are among them), and the
    /// prefix its findings are shown under. Nil when the folder cannot be listed (the check
    /// then runs and says why).
    package static func cacheKey(web: String, prefix: String) -> BuildCache.Key? {
        guard let paths = try? ReleaseFiles.list(web) else { return nil }
        var builder = BuildCache.Key.Builder("bridge-check")
        builder.append("scanner \(BridgeUsageScanner.version)")
        builder.append(prefix)
        for path in paths {
            guard let bytes = try? FileSystem.readFile(web + "/" + path) else { return nil }
            builder.append(path)
            builder.append(SHA256.hex(bytes))
        }
        return builder.key
    }

    /// A passed check as kept: the requirement's JSON with where each call is first made, or
    /// `none` for a web build without the bridge.
    package static func encode(_ requirement: BridgeRequirement?) -> [UInt8] {
        guard let requirement else { return Array("none".utf8) }
        let record = JSON.object(["requirement": requirement.json, "first_use": .object(requirement.firstUse.mapValues(JSON.string))])
        return Array(record.serialized(pretty: false).utf8)
    }

    /// What `encode` kept; nil (the check runs again) for anything else.
    package static func decode(_ bytes: [UInt8]) -> BridgeRequirement?? {
        if bytes == Array("none".utf8) { return .some(nil) }
        guard let json = try? JSONReader.parse(bytes), var requirement = BridgeRequirement(json: json["requirement"]),
            case .object(let places)? = json["first_use"]
        else { return nil }
        requirement.firstUse = places.compactMapValues(\.stringValue)
        return .some(requirement)
    }

    /// A recorded requirement (a release being promoted) against the app versions supported.
    public static func check(_ requirement: BridgeRequirement, apps: [ServiceConfig.AppVersion], environment: String) -> Verdict {
        let problems = requirement.problems(apps: apps, environment: environment)
        return problems.isEmpty ? .allowed(requirement) : .refused(problems)
    }
}
