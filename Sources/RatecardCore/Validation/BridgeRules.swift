import RatecardSupport

/// Rules for the native bridge: its schema (`bridge.yaml` in the web build) and the web
/// build's use of it.
public enum BridgeRules {
    public static let schema = Rule(
        "BRG-01", .error, "bridge schema", "The app and the web build are generated from bridge.yaml; a schema that does not say exactly what each message carries cannot be generated.",
        ko: "브리지 스키마", "앱과 웹 빌드의 코드는 bridge.yaml에서 생성됩니다. 메시지마다 무엇을 담는지 정확히 말하지 않는 스키마로는 생성할 수 없습니다.")
    public static let version = Rule(
        "BRG-02", .error, "bridge versions", "Every message names the bridge version that introduced it, no later than the schema's own version, so publish knows which installed apps have it.",
        ko: "브리지 버전", "메시지마다 그 메시지가 추가된 브리지 버전(스키마 자체 버전 이하)을 밝혀야, 게시할 때 설치된 앱 중 어느 것에 그 메시지가 있는지 알 수 있습니다.")
    public static let undeclared = Rule(
        "BRG-03", .error, "only declared messages", "A call the schema does not declare exists in no app: the native side would answer unknown_command.",
        ko: "선언된 메시지만 사용", "스키마에 선언되지 않은 호출은 어느 앱에도 없습니다. 네이티브 쪽은 unknown_command로 응답합니다.")
    public static let rawAccess = Rule(
        "BRG-04", .error, "native calls through the runtime",
        "Native, webkit and messageHandlers used directly, in any form, bypass the typed runtime, its timeouts and the capability check publish relies on.",
        ko: "네이티브 호출은 런타임을 거침", "네이티브 인터페이스, webkit, messageHandlers를 어떤 형태로든 직접 쓰면 타입이 있는 런타임, 그 시간 제한, 게시할 때 기대는 기능 검사를 건너뜁니다.")
    public static let dynamicName = Rule(
        "BRG-05", .error, "literal message names", "A message name computed at run time cannot be checked against the schema or the installed apps.",
        ko: "메시지 이름은 리터럴", "실행 중에 계산한 메시지 이름은 스키마나 설치된 앱과 대조해 검사할 수 없습니다.")
    public static let deprecated = Rule(
        "BRG-06", .warning, "no deprecated messages", "A deprecated message is on its way out of the apps; use what the schema says replaces it.",
        ko: "사용 중단된 메시지 사용 금지", "사용 중단된 메시지는 앱에서 곧 빠집니다. 스키마가 대신 쓰라고 하는 것을 쓰세요.")
    public static let stale = Rule(
        "BRG-07", .error, "generated runtime up to date", "The runtime the web build ships must be the one bridge.yaml generates, or the checks above check something else.",
        ko: "생성된 런타임이 최신", "웹 빌드가 배포하는 런타임은 bridge.yaml에서 생성한 것이어야 합니다. 그렇지 않으면 위의 검사가 엉뚱한 것을 검사합니다.")

    public static let otherReference = Rule(
        "BRG-08", .error, "the runtime only in its written forms",
        "Only RatecardBridge.call(\"name\", ...), .has(\"name\") and .on(\"name\", ...), written out, say what the web build calls; an alias, a computed member or a bound method hides it from the check and the publish gate.",
        ko: "런타임은 정해진 형태로만 사용",
        "RatecardBridge.call(\"name\", ...), .has(\"name\"), .on(\"name\", ...)을 그대로 써야만 웹 빌드가 무엇을 호출하는지 알 수 있습니다. 별칭, 계산된 멤버, 바인딩한 메서드는 검사와 게시 관문에서 호출을 감춥니다."
    )
    public static let unreadable = Rule(
        "BRG-09", .error, "scripts the check can follow",
        "Code made from text (eval, Function, timers given text, import()), the window stored or indexed, computed names and scripts the check cannot read reach the app's bridge without naming it; what the check cannot follow is refused.",
        ko: "검사기가 따라갈 수 있는 스크립트",
        "텍스트로 만든 코드(eval, Function, 텍스트를 넘긴 타이머, import()), 저장하거나 인덱싱한 window, 계산된 이름, 검사기가 읽을 수 없는 스크립트는 이름을 밝히지 않고 앱 브리지에 닿습니다. 검사기가 따라갈 수 없는 것은 거부합니다."
    )
    public static let unsupported = Rule(
        "BRG-10", .error, "calls every supported app can run",
        "A command called outside RatecardBridge.has(...) that an app version listed under apps: lacks fails in that app; publish and promote refuse the web build for that environment.",
        ko: "지원하는 모든 앱이 실행할 수 있는 호출",
        "apps:에 나열된 앱 버전에 없는 명령을 RatecardBridge.has(...) 확인 없이 호출하면 그 앱에서 실패합니다. publish와 promote는 그 환경에 그 웹 빌드를 내보내지 않습니다.")

    public static let all = [schema, version, undeclared, rawAccess, dynamicName, deprecated, stale, otherReference, unreadable, unsupported]
}
