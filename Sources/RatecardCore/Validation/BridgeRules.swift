/// Rules for the native bridge: its schema (`bridge.yaml` in the web build) and the web
/// build's use of it.
public enum BridgeRules {
    public static let schema = Rule(
        "BRG-01", .error, "bridge schema", "The app and the web build are generated from bridge.yaml; a schema that does not say exactly what each message carries cannot be generated.")
    public static let version = Rule(
        "BRG-02", .error, "bridge versions", "Every message names the bridge version that introduced it, no later than the schema's own version, so publish knows which installed apps have it.")
    public static let undeclared = Rule("BRG-03", .error, "only declared messages", "A call the schema does not declare exists in no app: the native side would answer unknown_command.")
    public static let rawAccess = Rule(
        "BRG-04", .error, "native calls through the runtime",
        "window.Native and webkit.messageHandlers used directly bypass the typed runtime, its timeouts and the capability check publish relies on.")
    public static let dynamicName = Rule("BRG-05", .error, "literal message names", "A message name computed at run time cannot be checked against the schema or the installed apps.")
    public static let deprecated = Rule("BRG-06", .warning, "no deprecated messages", "A deprecated message is on its way out of the apps; use what the schema says replaces it.")
    public static let stale = Rule("BRG-07", .error, "generated runtime up to date", "The runtime the web build ships must be the one bridge.yaml generates, or the checks above check something else.")

    public static let all = [schema, version, undeclared, rawAccess, dynamicName, deprecated, stale]
}
