import Foundation
import RatecardKit
import Testing

private func read(_ path: String) throws -> String { String(decoding: try FileSystem.readFile(path), as: UTF8.self) }
private func write(_ path: String, _ text: String) throws { try FileSystem.writeFile(path, Array(text.utf8)) }

/// A publish fixture whose web build is a copy of site/ and whose ratecard.yaml names
/// staging (no apps listed) and production (apps of bridge 1 and 3).
struct BridgeFixture {
    let base: PublishFixture
    var production: String { base.directory + "/production" }
    var staging: String { base.directory + "/staging" }
    var appJS: String { base.web + "/app/app.js" }

    init(in directory: String) throws {
        base = try PublishFixture(in: directory, commits: 3)
        try FileSystem.removeTree(base.web)
        try FileSystem.copyTree(from: projectSite, to: base.web)
        try write(
            base.repo + "/ratecard.yaml",
            """
            service_name: 레이트카드
            broker_registration_no: "제2021-0123호"
            timezone: Asia/Seoul
            web: ../web
            environments:
              staging:
                root: \(directory)/staging
              production:
                root: \(directory)/production
                apps:
                  ios-4.0: 1
                  ios-5.0: 3

            """)
    }

    func publish(_ env: String, commit: Int) throws -> Execution {
        try ratecard(["publish", "--env", env, "--rev", base.commits[commit], "--as-of", "2026-11-29", "-m", "test"], in: base.repo)
    }

    /// Adds `code` at the end of app.js (the entry module); returns the line it starts on.
    @discardableResult
    func addToApp(_ code: String) throws -> Int {
        let text = try read(appJS)
        let line = text.filter { $0 == "\n" }.count + 1
        try write(appJS, text + code + "\n")
        return line
    }
}

@Suite("Native bridge")
struct BridgeTests {
    @Test("bridge generate is byte-identical on rerun and equals what site/ ships")
    func deterministic() throws {
        try withTemporaryDirectory { dir in
            try FileSystem.copyTree(from: projectSite, to: dir + "/web")
            var outputs: [[UInt8]] = []
            for run in 0..<2 {
                let swift = dir + "/Bridge\(run).swift"
                let result = try ratecard(["bridge", "generate", "--web", dir + "/web", "--swift", swift], in: dir)
                #expect(result.status == 0, "\(result.err)")
                outputs.append(try FileSystem.readFile(swift) + FileSystem.readFile(dir + "/web/app/bridge.js") + FileSystem.readFile(dir + "/web/app/bridge.d.ts"))
            }
            #expect(outputs[0] == outputs[1])
            #expect(try FileSystem.readFile(dir + "/web/app/bridge.js") == FileSystem.readFile(projectSite + "/app/bridge.js"))
            #expect(try FileSystem.readFile(dir + "/web/app/bridge.d.ts") == FileSystem.readFile(projectSite + "/app/bridge.d.ts"))
        }
    }

    @Test("the generated Swift compiles with swiftc and its dispatcher decodes, validates and always replies")
    func swiftRoundTrip() throws {
        try withTemporaryDirectory { dir in
            try FileSystem.copyTree(from: projectSite, to: dir + "/web")
            let generated = try ratecard(["bridge", "generate", "--web", dir + "/web", "--swift", dir + "/RatecardBridge.swift"], in: dir)
            try #require(generated.status == 0)
            try write(
                dir + "/main.swift",
                #"""
                import Foundation

                @MainActor final class App: RatecardBridgeHandler {
                    var opened: [String] = []
                    func ready(_ params: ReadyParams) async throws -> ReadyReply { ReadyReply() }
                    func openProduct(_ params: OpenProductParams) async throws -> OpenProductReply { opened.append(params.key); return OpenProductReply() }
                    func openTerms(_ params: OpenTermsParams) async throws -> OpenTermsReply { OpenTermsReply() }
                    func openExternalUrl(_ params: OpenExternalUrlParams) async throws -> OpenExternalUrlReply { OpenExternalUrlReply(opened: true) }
                    func share(_ params: ShareParams) async throws -> ShareReply { ShareReply(completed: true, activity: params.text) }
                    func haptic(_ params: HapticParams) async throws -> HapticReply {
                        if params.style == .error { throw RatecardBridgeError(code: "busy", message: "vibrating") }
                        return HapticReply()
                    }
                    func analyticsEvent(_ params: AnalyticsEventParams) async throws -> AnalyticsEventReply { AnalyticsEventReply() }
                    func startIdentityVerification(_ params: StartIdentityVerificationParams) async throws -> StartIdentityVerificationReply {
                        StartIdentityVerificationReply(sessionId: "s-\(params.purpose.rawValue)")
                    }
                }

                @MainActor func run() async {
                    let app = App()
                    let dispatcher = RatecardBridgeDispatcher(handler: app)
                    for line in readLine().map({ [$0] }) ?? [] { _ = line }
                    for body in CommandLine.arguments.dropFirst() {
                        print(String(decoding: await dispatcher.handle(Data(body.utf8)), as: UTF8.self))
                    }
                    print(try! RatecardBridgeDispatcher.script(for: .identityVerificationFinished(IdentityVerificationFinishedEvent(sessionId: "s-1", result: .verified))))
                    print(app.opened)
                }
                await run()
                """#)
            let (status, output) = try runTool("/usr/bin/env", ["swiftc", "-swift-version", "6", "-warnings-as-errors", dir + "/RatecardBridge.swift", dir + "/main.swift", "-o", dir + "/app"])
            try #require(status == 0, "\(output)")
            let (ran, replies) = try runTool(
                dir + "/app",
                [
                    #"{"v":3,"id":1,"command":"open_product","params":{"key":"kbank/credit"}}"#,
                    #"{"v":3,"id":2,"command":"share","params":{"title":"t","url":"https://example.com","text":"hi"}}"#,
                    #"{"v":3,"id":3,"command":"teleport","params":{}}"#,
                    #"{"v":3,"id":4,"command":"haptic","params":{"style":"loud"}}"#,
                    #"{"v":3,"id":5,"command":"open_product","params":{"key":"a","extra":1}}"#,
                    #"{"v":3,"id":6,"command":"open_product","params":{}}"#,
                    #"{"v":3,"id":7,"command":"haptic","params":{"style":"error"}}"#,
                    #"not json"#,
                    #"{"v":3,"id":8,"command":"analytics_event","params":{"name":"x","properties":[{"key":"a","value":1}]}}"#,
                    #"{"v":3,"id":9,"command":"start_identity_verification","params":{"purpose":"limit_inquiry"}}"#,
                ])
            #expect(ran == 0)
            #expect(
                replies == #"""
                    {"id":1,"ok":true,"result":{}}
                    {"id":2,"ok":true,"result":{"activity":"hi","completed":true}}
                    {"error":{"code":"unknown_command","message":"this app (bridge 3) has no command 'teleport'"},"id":3,"ok":false}
                    {"error":{"code":"bad_params","message":"params.style: Cannot initialize HapticParamsStyle from invalid String value loud"},"id":4,"ok":false}
                    {"error":{"code":"bad_params","message":"params.extra: unknown field"},"id":5,"ok":false}
                    {"error":{"code":"bad_params","message":"params.key: missing"},"id":6,"ok":false}
                    {"error":{"code":"busy","message":"vibrating"},"id":7,"ok":false}
                    {"error":{"code":"bad_request","message":"not a bridge message: The given data was not valid JSON."},"ok":false}
                    {"error":{"code":"bad_params","message":"params.properties[0].value: expected String"},"id":8,"ok":false}
                    {"id":9,"ok":true,"result":{"session_id":"s-limit_inquiry"}}
                    window.RatecardBridge && window.RatecardBridge._receive({"v":3,"event":"identity_verification_finished","payload":{"result":"verified","session_id":"s-1"}});
                    ["kbank/credit"]

                    """#)
        }
    }

    @Test("the .d.ts type-checks typed usage with tsc and rejects wrong params, replies and names")
    func typeScript() throws {
        try withTemporaryDirectory { dir in
            try FileSystem.copyTree(from: projectSite + "/app", to: dir + "/app")
            try write(
                dir + "/usage.ts",
                """
                async function use(): Promise<void> {
                  const reply = await RatecardBridge.call("share", { title: "금리", url: "https://example.com" });
                  const done: boolean = reply.completed;
                  const activity: string | null | undefined = reply.activity;
                  await window.RatecardBridge.call("haptic", { style: "success" });
                  if (RatecardBridge.has("start_identity_verification")) {
                    const session: string = (await RatecardBridge.call("start_identity_verification", { purpose: "loan_application" })).session_id;
                    console.log(session);
                  }
                  const stop = RatecardBridge.on("identity_verification_finished", (event) => {
                    const result: "verified" | "cancelled" | "failed" = event.result;
                    console.log(result, event.failure_reason);
                  });
                  stop();
                  console.log(done, activity);
                  // @ts-expect-error: an undeclared command
                  await RatecardBridge.call("teleport", {});
                  // @ts-expect-error: a value outside the enum
                  await RatecardBridge.call("haptic", { style: "loud" });
                  // @ts-expect-error: a missing required param
                  await RatecardBridge.call("open_product", {});
                  // @ts-expect-error: a reply field that does not exist
                  (await RatecardBridge.call("open_external_url", { url: "https://example.com" })).closed;
                }
                use();

                """)
            let (status, output) = try runTool("/usr/bin/env", ["tsc", "--noEmit", "--strict", "--lib", "es2017,dom", dir + "/app/bridge.d.ts", dir + "/usage.ts"])
            #expect(status == 0, "\(output)")
            // The same file without the expectations must fail: the types really constrain.
            try write(dir + "/usage.ts", try read(dir + "/usage.ts").replacingOccurrences(of: "// @ts-expect-error", with: "//"))
            let (failed, errors) = try runTool("/usr/bin/env", ["tsc", "--noEmit", "--strict", "--lib", "es2017,dom", dir + "/app/bridge.d.ts", dir + "/usage.ts"])
            #expect(failed != 0)
            #expect(errors.components(separatedBy: "error TS").count - 1 == 4, "\(errors)")
        }
    }

    @Test("the runtime rejects on timeout, on a command the app lacks and on an error reply; old shells get window.Native")
    func runtimeInNode() throws {
        try withTemporaryDirectory { dir in
            try write(
                dir + "/test.js",
                """
                globalThis.window = globalThis;
                const fs = require("fs");
                const out = [];
                const sent = [];
                window.RatecardNative = { version: 2, commands: ["ready", "share", "open_product", "haptic"] };
                window.webkit = { messageHandlers: { ratecard: { postMessage(message) {
                  sent.push(message);
                  if (message.command === "share") return new Promise(() => {});
                  if (message.command === "haptic") return Promise.resolve({ id: message.id, ok: false, error: { code: "busy", message: "vibrating" } });
                  return Promise.resolve({ id: message.id, ok: true, result: { echoed: message.params.key } });
                } } } };
                eval(fs.readFileSync(process.argv[2], "utf8"));
                const B = window.RatecardBridge;
                const show = (p) => p.then((r) => "ok " + JSON.stringify(r), (e) => "error " + e.code + ": " + e.message);
                (async () => {
                  out.push(await show(B.call("open_product", { key: "kbank/credit" })));
                  out.push(await show(B.call("share", { title: "t", url: "u" }, { timeoutMs: 50 })));
                  out.push(await show(B.call("start_identity_verification", { purpose: "loan_application" })));
                  out.push(await show(B.call("haptic", { style: "error" })));
                  out.push(await show(B.call("teleport", {})));
                  out.push("has share " + B.has("share") + ", has start_identity_verification " + B.has("start_identity_verification"));
                  out.push("sent " + JSON.stringify(sent.map((m) => [m.v, m.command])));
                  delete window.webkit; delete window.RatecardNative;
                  const legacy = [];
                  window.Native = { postMessage(text) { legacy.push(text); } };
                  out.push(await show(B.call("ready", { bundle_id: "b1" })));
                  out.push(await show(B.call("share", { title: "t", url: "u" })));
                  out.push("legacy " + JSON.stringify(legacy));
                  delete window.Native;
                  out.push(await show(B.call("ready", { bundle_id: "b1" })));
                  console.log(out.join("\\n"));
                })();

                """)
            let (status, output) = try runTool("/usr/bin/env", ["node", dir + "/test.js", projectSite + "/app/bridge.js"])
            #expect(status == 0)
            #expect(
                output == """
                    ok {"echoed":"kbank/credit"}
                    error timeout: 'share' got no reply within 50 ms
                    error unimplemented: 'start_identity_verification' needs bridge 3 but this app has bridge 2; check RatecardBridge.has("start_identity_verification") first
                    error busy: 'haptic': vibrating
                    error unknown_command: 'teleport' is not a command of bridge ratecard 3
                    has share true, has start_identity_verification false
                    sent [[3,"open_product"],[3,"share"],[3,"haptic"]]
                    ok {}
                    error unimplemented: 'share' needs bridge 2 but this app has bridge 1; check RatecardBridge.has("share") first
                    legacy ["{\\"type\\":\\"ready\\",\\"bundle_id\\":\\"b1\\"}"]
                    error no_native: 'ready': this page is not running inside the app

                    """)
        }
    }

    @Test("validate reports undeclared and direct native calls at file:line:column, schema errors at their value, and a stale runtime")
    func validateChecksTheWebBuild() throws {
        try withTemporaryDirectory { dir in
            let fixture = try BridgeFixture(in: dir)
            let clean = try ratecard(["validate"], in: fixture.base.repo)
            #expect(clean.status == 0, "\(clean.out)")
            let line = try fixture.addToApp(
                """
                  RatecardBridge.call("teleport", {});
                  window.Native.postMessage("{}");
                  RatecardBridge.call(name, {});
                  RatecardBridge.call("open_terms", { document: "a", version: "1" });
                """)
            let bad = try ratecard(["validate"], in: fixture.base.repo)
            #expect(bad.status == 1)
            #expect(bad.out.contains("app/app.js:\(line):3: error BRG-03: 'teleport' is not a command in bridge.yaml (bridge 3)"), "\(bad.out)")
            #expect(bad.out.contains("app/app.js:\(line + 1):10: error BRG-04: 'Native' is the app's native interface, used directly"))
            #expect(bad.out.contains("app/app.js:\(line + 2):3: error BRG-05:"))
            #expect(!bad.out.contains("app/app.js:\(line + 3):"))
            // The schema: an unknown type, at its value.
            let schema = try read(fixture.base.web + "/bridge.yaml")
            try write(fixture.base.web + "/bridge.yaml", schema.replacingOccurrences(of: "      bundle_id: string", with: "      bundle_id: strng"))
            let typo = try ratecard(["validate"], in: fixture.base.repo)
            let typoLine = schema.components(separatedBy: "\n").firstIndex(of: "      bundle_id: string")! + 1
            #expect(typo.out.contains("bridge.yaml:\(typoLine):18: error BRG-01: unknown type 'strng'"), "\(typo.out)")
            // A message introduced after the schema's own version, at its 'since' value.
            let openProduct = "  open_product:\n    since: 1\n"
            try #require(schema.contains(openProduct))
            try write(fixture.base.web + "/bridge.yaml", schema.replacingOccurrences(of: openProduct, with: "  open_product:\n    since: 5\n"))
            let early = try ratecard(["validate"], in: fixture.base.repo)
            let sinceLine = schema.components(separatedBy: "\n").firstIndex(of: "  open_product:")! + 2
            #expect(early.out.contains("bridge.yaml:\(sinceLine):12: error BRG-02: 'open_product' is since bridge 5, after the schema's own version 3; raise 'bridge.version' to 5"), "\(early.out)")
            // A deprecated message still called: a warning at the call.
            try write(fixture.base.web + "/bridge.yaml", schema.replacingOccurrences(of: openProduct, with: openProduct + "    deprecated: use open_terms instead\n"))
            let deprecated = try ratecard(["validate", "--lang", "en"], in: fixture.base.repo)
            #expect(try deprecated.out.contains(Regex(#"app/screens/product\.js:\d+:\d+: warning BRG-06: 'open_product' is deprecated: use open_terms instead"#)), "\(deprecated.out)")
            // A runtime that is not what the schema generates.
            try write(fixture.base.web + "/bridge.yaml", schema.replacingOccurrences(of: "  version: 3", with: "  version: 4"))
            let stale = try ratecard(["validate"], in: fixture.base.repo)
            #expect(stale.out.contains("app/bridge.js:1:1: error BRG-07: app/bridge.js is not what bridge.yaml generates"), "\(stale.out)")
        }
    }

    @Test("publish refuses a web build calling, unguarded, what a supported app version lacks, and records what it needs")
    func publishGate() throws {
        try withTemporaryDirectory { dir in
            let fixture = try BridgeFixture(in: dir)
            let line = try fixture.addToApp(
                """
                  function shareRates() { toNative(function () { return RatecardBridge.call("share", { title: "금리", url: "https://example.com" }); }); }
                """)
            let refused = try fixture.publish("production", commit: 0)
            #expect(refused.status == 1)
            #expect(
                refused.err.contains("the web build calls 'share' at app/app.js:\(line):57, which needs bridge 2; app versions supported in production lack it: ios-4.0 (bridge 1)"), "\(refused.err)")
            #expect(!FileSystem.exists(fixture.production + "/current"))
            // Guarded by the capability check, it may go out.
            var text = try read(fixture.appJS)
            text = text.replacingOccurrences(of: "function shareRates() { toNative(", with: "function shareRates() { if (RatecardBridge.has(\"share\")) toNative(")
            try write(fixture.appJS, text)
            let published = try fixture.publish("production", commit: 0)
            #expect(published.status == 0, "\(published.err)")
            let live = try FileSystem.realPath(fixture.production + "/current")
            let requirement = try #require(try BridgeRequirement.recorded(in: live))
            #expect(requirement.requires == 1)
            #expect(requirement.calls == ["ready": 1, "open_product": 1, "open_terms": 1])
            #expect(requirement.guarded == ["share"])
        }
    }

    @Test("every script the web build can run is read (any extension case, inline handlers); validate and publish name each unguarded call; version.json records them")
    func everyScriptIsRead() throws {
        try withTemporaryDirectory { dir in
            let fixture = try BridgeFixture(in: dir)
            try write(fixture.base.web + "/app/extra.JS", "RatecardBridge.call(\"share\", { title: \"t\", url: \"u\" });\n")
            var index = try read(fixture.base.web + "/index.html")
            index = index.replacingOccurrences(of: "</head>", with: "<script src=\"app/extra.JS\" defer></script>\n</head>")
            index = index.replacingOccurrences(of: "<body>\n", with: "<body>\n<button onclick=\"RatecardBridge.call(&quot;haptic&quot;, {style: &quot;light&quot;})\">x</button>\n")
            try write(fixture.base.web + "/index.html", index)
            let handlerLine = try #require(index.components(separatedBy: "\n").firstIndex { $0.hasPrefix("<button onclick") }) + 1
            let wrongWay = "  RatecardBridge.has(\"share\") ? 0 : RatecardBridge.call(\"share\", { title: \"t\", url: \"u\" });"
            let guardLine = try fixture.addToApp(wrongWay)
            let guardColumn = wrongWay.distance(from: wrongWay.startIndex, to: try #require(wrongWay.range(of: "RatecardBridge.call")).lowerBound) + 1
            let validate = try ratecard(["validate"], in: fixture.base.repo)
            #expect(validate.status == 1)
            let lacking = "needs bridge 2; app versions supported in production lack it: ios-4.0 (bridge 1)"
            #expect(validate.out.contains("app/extra.JS:1:1: error BRG-10: 'share' \(lacking)"), "\(validate.out)")
            #expect(validate.out.contains("index.html:\(handlerLine):18: error BRG-10: 'haptic' \(lacking)"))
            #expect(validate.out.contains("app/app.js:\(guardLine):\(guardColumn): error BRG-10: 'share' \(lacking)"))
            let refused = try fixture.publish("production", commit: 0)
            #expect(refused.status == 1)
            #expect(refused.err.contains("the web build calls 'haptic' at index.html:\(handlerLine):18, which needs bridge 2"), "\(refused.err)")
            #expect(refused.err.contains("the web build calls 'share' at app/app.js:\(guardLine):\(guardColumn), which needs bridge 2"))
            #expect(!FileSystem.exists(fixture.production + "/current"))
            // Staging lists no apps: published, with the calls of every script recorded.
            let published = try fixture.publish("staging", commit: 0)
            #expect(published.status == 0, "\(published.err)")
            let requirement = try #require(try BridgeRequirement.recorded(in: try FileSystem.realPath(fixture.staging + "/current")))
            #expect(requirement.calls == ["ready": 1, "open_product": 1, "open_terms": 1, "share": 2, "haptic": 2])
            #expect(requirement.requires == 2)
        }
    }

    @Test("a bypass validate and publish refuse at its place, exit 1")
    func bypassRefusedEndToEnd() throws {
        try withTemporaryDirectory { dir in
            let fixture = try BridgeFixture(in: dir)
            let line = try fixture.addToApp(
                """
                  var c = RatecardBridge.call; c("share", {});
                  window["Ratecard" + "Bridge"].call("share", {});
                var xx
                /"/; RatecardBridge.call("share", {title: "t", url: "u"}); //"
                var of = 1;
                RatecardBridge.has("share") && of
                RatecardBridge.call("share", {title: "t", url: "u"});
                """)
            let validate = try ratecard(["validate"], in: fixture.base.repo)
            #expect(validate.status == 1)
            #expect(validate.out.contains("app/app.js:\(line):11: error BRG-08: RatecardBridge may be used only as"), "\(validate.out)")
            #expect(validate.out.contains("app/app.js:\(line + 1):3: error BRG-09: 'window' can hold the page's window"))
            // A regular expression after a line break the statement ends at, and a guard across one.
            #expect(validate.out.contains("app/app.js:\(line + 3):1: error BRG-09: a '/' at the start of a line after 'xx' may divide or start a regular expression"))
            #expect(validate.out.contains("app/app.js:\(line + 6):1: error BRG-10: 'share' needs bridge 2"))
            let refused = try fixture.publish("staging", commit: 0)
            #expect(refused.status == 1)
            #expect(refused.err.contains("app/app.js:\(line):11: error BRG-08:"), "\(refused.err)")
            #expect(refused.err.contains("Error: the web build's use of the native bridge is invalid; nothing was published"))
            #expect(!FileSystem.exists(fixture.staging + "/current"))
        }
    }

    @Test("a web build a check by older rules passed is checked again: the rules' version is in the cache key")
    func olderRulesAreNotTrusted() throws {
        try withTemporaryDirectory { dir in
            let web = dir + "/web"
            try FileSystem.copyTree(from: projectSite, to: web)
            try write(web + "/app/extra.js", "var B = RatecardBridge; B.call(\"share\", {});\n")
            let cache = BuildCache(folder: dir + "/cache", limit: 1 << 20, warn: { _ in })
            // Kept as a passed check was kept before the rules had a version: the same parts without it.
            var builder = BuildCache.Key.Builder("bridge-check")
            builder.append("")
            for path in try ReleaseFiles.list(web) {
                builder.append(path)
                builder.append(SHA256.hex(try FileSystem.readFile(web + "/" + path)))
            }
            cache.write(builder.key, BridgeGate.encode(nil))
            let verdict = try BridgeGate.check(web: web, repositoryRoot: nil, apps: [], environment: "staging", cache: cache)
            guard case .invalid(let errors) = verdict else {
                Issue.record("a check kept by older rules was trusted: \(verdict)")
                return
            }
            #expect(errors.map { "\($0.rule) \($0.path):\($0.mark)" } == ["BRG-08 app/extra.js:1:9"])
            // Fixed, the check passes and is kept under the current key, which the next check reads.
            try write(web + "/app/extra.js", "RatecardBridge.call(\"share\", {});\n")
            let passed = try #require(try BridgeGate.check(web: web, repositoryRoot: nil, apps: [], environment: "staging", cache: cache).requirement)
            let key = try #require(BridgeGate.cacheKey(web: web, prefix: ""))
            let kept = try #require(cache.read(key))
            #expect(BridgeGate.decode(kept) == .some(passed))
        }
    }

    @Test("a passed bridge check kept in the build cache gives what a fresh check gives, where each call is made included")
    func keptBridgeCheck() throws {
        try withTemporaryDirectory { dir in
            let fixture = try BridgeFixture(in: dir)
            _ = try fixture.addToApp(
                """
                  function shareRates() { toNative(function () { return RatecardBridge.call("share", { title: "금리", url: "https://example.com" }); }); }
                """)
            let fresh = try #require(try BridgeCheck.run(webFolder: fixture.base.web, displayPrefix: "").requirement)
            #expect(fresh.firstUse["share"]?.hasPrefix("app/app.js:") == true, "\(fresh.firstUse)")
            #expect(BridgeGate.decode(BridgeGate.encode(fresh)) == .some(fresh))
            #expect(BridgeGate.decode(BridgeGate.encode(nil)) == .some(nil))
            #expect(BridgeGate.decode(Array("{}".utf8)) == nil)
            // Every file's bytes and the prefix findings are shown under are in the key.
            let key = try #require(BridgeGate.cacheKey(web: fixture.base.web, prefix: ""))
            #expect(BridgeGate.cacheKey(web: fixture.base.web, prefix: "web/") != key)
            try write(fixture.base.web + "/index.html", try read(fixture.base.web + "/index.html") + "\n")
            #expect(BridgeGate.cacheKey(web: fixture.base.web, prefix: "") != key)
        }
    }

    @Test("promote refuses a release the target's apps cannot run; bridge-lines.json, status and prune keep each line's release")
    func promoteLinesStatusPrune() throws {
        try withTemporaryDirectory { dir in
            let fixture = try BridgeFixture(in: dir)
            #expect(try fixture.publish("staging", commit: 0).status == 0)
            let first = try FileSystem.realPath(fixture.staging + "/current").split(separator: "/").last.map(String.init)!
            try fixture.addToApp(
                """
                  RatecardBridge.call("haptic", { style: "light" });
                """)
            #expect(try fixture.publish("staging", commit: 1).status == 0)
            let second = try FileSystem.realPath(fixture.staging + "/current").split(separator: "/").last.map(String.init)!
            let promote = try ratecard(["promote", "--from", "staging", "--to", "production", "-m", "go"], in: fixture.base.repo)
            #expect(promote.status == 1)
            #expect(promote.err.contains("the web build calls 'haptic', which needs bridge 2; app versions supported in production lack it: ios-4.0 (bridge 1)"), "\(promote.err)")
            #expect(!FileSystem.exists(fixture.production + "/current"))
            // Staging lists no apps; its lines say which release each bridge version loads.
            #expect(try BridgeLines.read(root: ServeRoot(path: fixture.staging)) == [1: first, 2: second])
            // Rolled back from the second (now bad): no line names it any more, the live first
            // serves both lines; its mark cleared, the lines are recomputed again.
            #expect(try ratecard(["rollback", "--env", "staging", "-m", "haptic misfires"], in: fixture.base.repo).status == 0)
            #expect(try BridgeLines.read(root: ServeRoot(path: fixture.staging)) == [1: first, 2: first])
            #expect(try ratecard(["releases", "--env", "staging", "--clear-bad", second, "-m", "fixed on the native side"], in: fixture.base.repo).status == 0)
            #expect(try BridgeLines.read(root: ServeRoot(path: fixture.staging)) == [1: first, 2: first])
            // Promote the first release: production's apps can run it.
            #expect(try ratecard(["promote", "--from", "staging", "--to", "production", "--release", first, "-m", "go"], in: fixture.base.repo).status == 0)
            let status = try ratecard(["status", "--env", "production"], in: fixture.base.repo)
            #expect(status.out.contains("apps:\n  ios-4.0 (bridge 1): release \(first)\n  ios-5.0 (bridge 3): release \(first)\n"), "\(status.out)")
            // A third release on staging; prune --keep 1 keeps the line-1 release.
            #expect(try fixture.publish("staging", commit: 2).status == 0)
            let prune = try ratecard(["prune", "--env", "staging", "--keep", "1"], in: fixture.base.repo)
            #expect(prune.status == 0, "\(prune.err)")
            #expect(FileSystem.isDirectory(fixture.staging + "/releases/" + first))
        }
    }
}
