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
        "Native, webkit and messageHandlers used directly, in any form, bypass the typed runtime, its timeouts and the capability check publish relies on.")
    public static let dynamicName = Rule("BRG-05", .error, "literal message names", "A message name computed at run time cannot be checked against the schema or the installed apps.")
    public static let deprecated = Rule("BRG-06", .warning, "no deprecated messages", "A deprecated message is on its way out of the apps; use what the schema says replaces it.")
    public static let stale = Rule("BRG-07", .error, "generated runtime up to date", "The runtime the web build ships must be the one bridge.yaml generates, or the checks above check something else.")

    public static let otherReference = Rule(
        "BRG-08", .error, "the runtime only in its written forms",
        "Only RatecardBridge.call(\"name\", ...), .has(\"name\") and .on(\"name\", ...), written out, say what the web build calls; an alias, a computed member or a bound method hides it from the check and the publish gate."
    )
    public static let unreadable = Rule(
        "BRG-09", .error, "scripts the check can follow",
        "Code made from text (eval, Function, timers given text, import()), the window stored or indexed, computed names and scripts the check cannot read reach the app's bridge without naming it; what the check cannot follow is refused."
    )
    public static let unsupported = Rule(
        "BRG-10", .error, "calls every supported app can run",
        "A command called outside RatecardBridge.has(...) that an app version listed under apps: lacks fails in that app; publish and promote refuse the web build for that environment.")

    public static let all = [schema, version, undeclared, rawAccess, dynamicName, deprecated, stale, otherReference, unreadable, unsupported]
}
