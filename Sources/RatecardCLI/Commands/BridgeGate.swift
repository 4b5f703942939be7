import RatecardKit

/// The native bridge at publish and promote: what the web build needs from the app, refused
/// when an app version the environment supports lacks an unguarded call.
enum BridgeGate {
    /// The app versions `environment` supports (`apps:` in ratecard.yaml); none for a bare root.
    static func apps(of environment: String, _ invocation: Invocation) -> [ServiceConfig.AppVersion] {
        guard let (config, _) = try? Environments.configured(from: invocation.directory) else { return [] }
        return config.environments.first { $0.name == environment }?.apps ?? []
    }

    /// Checks the web build; returns its requirement (nil without a bridge schema), or nil and
    /// prints why when it must not be published.
    static func check(web: String?, environment: String, _ invocation: Invocation) throws -> (ok: Bool, requirement: BridgeRequirement?) {
        guard let web else { return (true, nil) }
        let location = try? ContentLocation.find(from: invocation.directory)
        let prefix = BridgeCheck.displayPrefix(webFolder: web, repositoryRoot: location?.repository?.workdir)
        let check = try BridgeCheck.run(webFolder: web, displayPrefix: prefix)
        let errors = check.diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty {
            for item in errors { invocation.console.err("\(item.path):\(item.mark): error \(item.rule): \(item.message)\n") }
            invocation.console.err("Error: the web build's use of the native bridge is invalid; nothing was published\n")
            return (false, nil)
        }
        guard let requirement = check.requirement else { return (true, nil) }
        return (refuse(requirement, environment: environment, invocation), requirement)
    }

    /// Prints each problem and returns false when some supported app version lacks a call.
    static func refuse(_ requirement: BridgeRequirement, environment: String, _ invocation: Invocation) -> Bool {
        let problems = requirement.problems(apps: apps(of: environment, invocation), environment: environment)
        for problem in problems { invocation.console.err("Error: \(problem)\n") }
        if !problems.isEmpty { invocation.console.err("Error: installed apps cannot run this web build; nothing was changed\n") }
        return problems.isEmpty
    }

    /// Rewrites the serve root's bridge lines after a release went live (under the root's lock).
    static func updateLines(_ root: any ReleaseTarget, _ invocation: Invocation) {
        do {
            let lock = try root.acquireLock(command: "bridge-lines", wait: true, onWait: { _ in })
            defer { lock.release() }
            try BridgeLines.update(root: root)
        } catch {
            invocation.console.err("warning: \(BridgeLines.fileName) was not updated: \(error)\n")
        }
    }

    /// `status`: which release each supported app version gets.
    static func status(root: any ReleaseTarget, environment: String, _ invocation: Invocation) -> (JSON, String)? {
        let apps = apps(of: environment, invocation)
        guard !apps.isEmpty else { return nil }
        let lines = (try? BridgeLines.read(root: root)) ?? [:]
        var objects: [String: JSON] = [:]
        var text = "apps:\n"
        for app in apps {
            let chosen = BridgeLines.release(for: app.bridge, in: lines)
            objects[app.name] = .object(["bridge": .int(app.bridge), "release": chosen.map { .string($0.release) } ?? .null])
            text += "  \(app.name) (bridge \(app.bridge)): \(chosen.map { "release \($0.release)" } ?? "no release it can run")\n"
        }
        return (.object(objects), text)
    }
}
