import Foundation
import RatecardKit
import Testing

/// A web build that calls `share` (a command apps of bridge 1 lack) in a way the bridge check
/// must see: the files added to site/'s schema and runtime, and the rule and place of the finding.
struct BridgeBypass: CustomTestStringConvertible, Sendable {
    var name: String
    var files: [String: [UInt8]]
    var rule: String
    /// The file the finding is in.
    var file: String
    /// Where the finding is: the first occurrence of this text in `file` ("" for 1:1).
    var at: String

    var testDescription: String { name }

    /// `code` as `app/extra.js`.
    static func script(_ name: String, _ code: String, _ rule: String, at: String, file: String = "app/extra.js") -> BridgeBypass {
        BridgeBypass(name: name, files: [file: Array(code.utf8)], rule: rule, file: file, at: at)
    }

    /// `html` as the page `app/extra.html`, with `extra` files beside it.
    static func page(_ name: String, _ html: String, _ rule: String, at: String, in file: String = "app/extra.html", extra: [String: String] = [:]) -> BridgeBypass {
        var files = extra.mapValues { Array($0.utf8) }
        files["app/extra.html"] = Array(html.utf8)
        return BridgeBypass(name: name, files: files, rule: rule, file: file, at: at)
    }

    /// `line:column` of `at` in `file` (columns in Unicode scalars, lines at `\n`).
    var position: String {
        let text = String(decoding: files[file] ?? [], as: UTF8.self)
        guard !at.isEmpty, let range = text.range(of: at) else { return "1:1" }
        let before = text[..<range.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
        return "\(line):\(text[lineStart..<range.lowerBound].unicodeScalars.count + 1)"
    }

    static let share = #"RatecardBridge.call("share", { title: "t", url: "u" })"#

    /// The thirty variants of the issue, and more.
    static let all: [BridgeBypass] = [
        // The runtime reached other than in its written forms.
        script("computed method", #"RatecardBridge["call"]("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("alias of the runtime", #"var B = RatecardBridge; B.call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("alias of call", #"var c = RatecardBridge.call; c("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("optional chaining", #"RatecardBridge?.call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("parenthesized", #"(RatecardBridge).call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script(".call.call", #"RatecardBridge.call.call(null, "share", {});"#, "BRG-08", at: "RatecardBridge"),
        script(".call.apply", #"RatecardBridge.call.apply(null, ["share", {}]);"#, "BRG-08", at: "RatecardBridge"),
        script(".bind", #"RatecardBridge.call.bind(RatecardBridge)("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("destructuring", #"var { call } = RatecardBridge; call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("with", #"with (RatecardBridge) { call("share", {}); }"#, "BRG-09", at: "with"),
        script("comma operator", #"(0, RatecardBridge.call)("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("array of the runtime", #"[RatecardBridge][0].call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("window.RatecardBridge", #"window.RatecardBridge.call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("globalThis.RatecardBridge", #"globalThis.RatecardBridge.call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("new", #"new RatecardBridge.call("share", {});"#, "BRG-08", at: "RatecardBridge"),
        script("the name as a string", #"var name = "RatecardBridge";"#, "BRG-08", at: "\"RatecardBridge\""),
        script("a tagged template", "RatecardBridge.call`share`;", "BRG-08", at: "RatecardBridge"),
        // Names not written as string literals.
        script("template literal name", "RatecardBridge.call(`share`, {});", "BRG-05", at: "RatecardBridge"),
        script("concatenated name", #"RatecardBridge.call("sh" + "are", {});"#, "BRG-05", at: "RatecardBridge"),
        script("variable name", #"var n = "share"; RatecardBridge.call(n, {});"#, "BRG-05", at: "RatecardBridge"),
        // Code made from text, and the window reached as a value.
        script("eval", #"eval('RatecardBridge.call("share", {})');"#, "BRG-09", at: "eval"),
        script("indirect eval", #"(0, window.eval)("RatecardBridge.call('share', {})");"#, "BRG-09", at: "eval"),
        script("new Function", #"new Function('RatecardBridge.call("share", {})')();"#, "BRG-09", at: "Function"),
        script("the Function constructor", #"[].map.constructor('return RatecardBridge')().call("share", {});"#, "BRG-09", at: "constructor"),
        script("setTimeout with text", #"setTimeout('RatecardBridge.call("share", {})', 0);"#, "BRG-09", at: "setTimeout"),
        script("setInterval given a variable", #"var code = "x"; setInterval(code, 10);"#, "BRG-09", at: "setInterval"),
        script("dynamic import", #"import("./share.js");"#, "BRG-09", at: "import"),
        script("Reflect", #"Reflect.apply(RatecardBridge.call, null, ["share", {}]);"#, "BRG-09", at: "Reflect"),
        script("window indexed by built name", #"window["Ratecard" + "Bridge"].call("share", {});"#, "BRG-09", at: "window"),
        script("self indexed", #"self["Ratecard" + "Bridge"].call("share", {});"#, "BRG-09", at: "self"),
        script("top indexed by a variable", #"var k = "Ratecard" + "Bridge"; top[k].call("share", {});"#, "BRG-09", at: "top"),
        script("frames", #"frames[0].document;"#, "BRG-09", at: "frames"),
        script("alias of window", #"var w = window; w[k].call("share", {});"#, "BRG-09", at: "window"),
        script("window passed", #"Object.getOwnPropertyDescriptor(window, k);"#, "BRG-09", at: "window"),
        script("defaultView", #"document.defaultView["Ratecard" + "Bridge"].call("share", {});"#, "BRG-09", at: "defaultView"),
        script("defaultView destructured", #"var { defaultView: v } = document; v[k].call("share", {});"#, "BRG-09", at: "defaultView"),
        script("this of a plain function", #"(function () { return this; })()[k].call("share", {});"#, "BRG-09", at: "this"),
        script("member name built from pieces", #"var o = document.body; o["Ratecard" + "Bridge"];"#, "BRG-09", at: "["),
        script("member name from a template", "var o = document.body; o[`Ratecard${x}`];", "BRG-09", at: "["),
        script("window.open", #"window.open("https://example.com");"#, "BRG-09", at: "open"),
        script("globalThis?.", #"globalThis?.RatecardBridge.call("share", {});"#, "BRG-09", at: "globalThis"),
        script("for-in over the window", "for (var k in window) {}", "BRG-09", at: "window"),
        script("contentWindow", #"document.createElement("iframe").contentWindow[k];"#, "BRG-09", at: "contentWindow"),
        script("opener", "opener[k].call(\"share\", {});", "BRG-09", at: "opener"),
        script("parent.frames", "parent.frames[0][k];", "BRG-09", at: "frames"),
        script("window.top", "window.top[k];", "BRG-09", at: "top"),
        script("an arrow's this", "(() => this)()[k];", "BRG-09", at: "this"),
        script("async as a plain name given to setTimeout", #"var async = "RatecardBridge.call('share', {})"; setTimeout(async, 0);"#, "BRG-09", at: "setTimeout"),
        script("an alias of setTimeout", #"var st = setTimeout; st("x()");"#, "BRG-09", at: "setTimeout"),
        script("constructor after a number", #"1..constructor.constructor("x")();"#, "BRG-09", at: "constructor"),
        script("javascript: URL in a string", #"location.href = "javascript:void 0";"#, "BRG-09", at: "\"javascript"),
        // Names written with escapes (decoded, then refused).
        script("escaped method", #"RatecardBridge.\u0063all("share", {});"#, "BRG-09", at: "\\u0063all"),
        script("escaped method, braces", #"RatecardBridge.\u{63}all("share", {});"#, "BRG-09", at: "\\u{63}all"),
        script("escaped runtime", #"\u0052atecardBridge.call("share", {});"#, "BRG-09", at: "\\u0052"),
        // The native objects the runtime wraps, in any form (BRG-04).
        script("computed messageHandlers", #"window.webkit["messageHandlers"].ratecard.postMessage({});"#, "BRG-04", at: "webkit"),
        script("computed Native", #"window["Native"].postMessage("{}");"#, "BRG-04", at: "\"Native\""),
        script("Native through an alias of window", #"var w = window; w.Native.postMessage("{}");"#, "BRG-04", at: "Native"),
        script("webkit alone", #"var handlers = webkit.messageHandlers;"#, "BRG-04", at: "webkit"),
        script("messageHandlers as a key", #"var { messageHandlers: h } = x;"#, "BRG-04", at: "messageHandlers"),
        // Guards that do not guard: the call is unguarded (BRG-10 in validate, refused by publish).
        script("|| true", "if (RatecardBridge.has(\"share\") || true) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("negated", "if (!(RatecardBridge.has(\"share\"))) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("=== false", "if (RatecardBridge.has(\"share\") === false) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("the else branch of ?:", "RatecardBridge.has(\"share\") ? 0 : \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("&& false ||", "RatecardBridge.has(\"share\") && false || \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("||", "RatecardBridge.has(\"share\") || \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("empty if", "if (RatecardBridge.has(\"share\")); \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("empty block", "if (RatecardBridge.has(\"share\")) {} \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("else branch", "if (RatecardBridge.has(\"share\")) {} else { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("another command checked", "if (RatecardBridge.has(\"haptic\")) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("after the single statement", "if (RatecardBridge.has(\"share\"))\n  console.log(\"ok\")\n\(share)", "BRG-10", at: "RatecardBridge.call"),
        script("a stored check", "var can = RatecardBridge.has(\"share\"); if (can) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("an early exit", "function f() { if (!RatecardBridge.has(\"share\")) return; \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("while", "while (RatecardBridge.has(\"share\")) { \(share); break; }", "BRG-10", at: "RatecardBridge.call"),
        script("a conditional condition", "if (RatecardBridge.has(\"share\") ? false : true) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("a comma condition", "if (RatecardBridge.has(\"share\"), true) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("a parenthesized check", "if ((RatecardBridge.has(\"share\"))) { \(share); }", "BRG-10", at: "RatecardBridge.call"),
        script("no guard", "\(share);", "BRG-10", at: "RatecardBridge.call"),
        // Text the check must not take for code, or code for text.
        script("a guard in a comment", "/* if (RatecardBridge.has(\"share\")) { */ \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("division, not a regular expression", "var x = 4 / 2; \(share); var y = x / 2;", "BRG-10", at: "RatecardBridge.call"),
        script("escaped quotes", "var s = \"\\\"\"; \(share); var q = \"\\\"\";", "BRG-10", at: "RatecardBridge.call"),
        script("in a template substitution", "var t = `${\(share)}`;", "BRG-10", at: "RatecardBridge.call"),
        script("an escaped command name", #"RatecardBridge.call("\u0073hare", {});"#, "BRG-10", at: "RatecardBridge"),
        script("a regular expression holding quotes", "var re = /\"/; \(share); var q = /\"/;", "BRG-10", at: "RatecardBridge.call"),
        script("a regular expression after an if", "if (a) /x\"/.test(b); \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("a slash in a character class", "var re = /[/\"]/; \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("a line continuation", "var s = \"a\\\nb\"; \(share);", "BRG-10", at: "RatecardBridge.call"),
        script("a hashbang", "#!/usr/bin/env node\n\(share);", "BRG-10", at: "RatecardBridge.call"),
        script("an HTML-like closing comment", "x = 1\n--> hidden?\n\(share);", "BRG-09", at: "-->"),
        script("after U+2028 in a line comment", "// note\u{2028}\(share);", "BRG-10", at: "RatecardBridge.call"),
        script("an HTML-like comment", "<!-- hidden?\n\(share);", "BRG-09", at: "<!--"),
        script("an unclosed template", "var t = `abc\n\(share);", "BRG-09", at: "`"),
        script("a slash after a block", "if (a) {}\n/x/.test(y); \(share);", "BRG-09", at: "/x/"),
        // Every script the browser can run is read.
        script("an upper-case extension", "\(share);", "BRG-10", at: "RatecardBridge", file: "app/extra.JS"),
        script("a mixed-case extension", "\(share);", "BRG-10", at: "RatecardBridge", file: "app/Extra.Js"),
        script(".mjs", "\(share);", "BRG-10", at: "RatecardBridge", file: "app/extra.mjs"),
        script(".cjs", "\(share);", "BRG-10", at: "RatecardBridge", file: "app/extra.CJS"),
        BridgeBypass(
            name: "a UTF-16 script", files: ["app/u16.js": [0xFF, 0xFE] + Array("x".utf8) + [0]], rule: "BRG-09", file: "app/u16.js", at: ""),
        page("an inline script", "<p>hi</p>\n<script>\(share);</script>\n", "BRG-10", at: "RatecardBridge"),
        page("an inline module", "<script type=\"module\">\n  \(share);\n</script>\n", "BRG-10", at: "RatecardBridge"),
        page("a script by its language", "<script language=\"javascript\">\(share);</script>\n", "BRG-10", at: "RatecardBridge"),
        page(
            "an event handler", "<button onclick=\"RatecardBridge.call(&quot;share&quot;, {})\">share</button>\n", "BRG-10", at: "RatecardBridge"),
        page("a handler with a character reference", "<button ONCLICK='&#82;atecardBridge.call(\"share\", {})'>share</button>\n", "BRG-10", at: "&#82;"),
        page("a handler's unknown reference", "<img onerror=\"x&lpar1;\" src=\"x.png\">\n", "BRG-09", at: "&lpar1;"),
        page("a javascript: link", "<a href=\"  java&#x09;script:RatecardBridge.call('share', {})\">x</a>\n", "BRG-09", at: "  java"),
        page("srcdoc", "<iframe srcdoc=\"&lt;script&gt;RatecardBridge.call('share', {})&lt;/script&gt;\"></iframe>\n", "BRG-09", at: "&lt;script"),
        page("inline SVG", "<svg><script>RatecardBridge.call('share', {})</script></svg>\n", "BRG-09", at: "<svg"),
        page("a script holding <!--", "<script><!--<script>x</script> \(share); --></script>\n", "BRG-09", at: "<!--"),
        page("a script after a style", "<style>b::after{content:\"<b title='</style><script>\(share)</script>'\"}</style>\n", "BRG-10", at: "RatecardBridge"),
        page("a script after an abrupt comment", "<!--> <script>\(share)</script> -->\n", "BRG-10", at: "RatecardBridge"),
        page(
            "a script with another extension", "<script src=\"extra.txt\"></script>\n", "BRG-10", at: "RatecardBridge", in: "app/extra.txt",
            extra: ["app/extra.txt": "\(share);\n"]),
        page("a script from elsewhere", "<script src=\"https://cdn.example.com/share.js\"></script>\n", "BRG-09", at: "https"),
        page("a script that is not there", "<script src=\"missing.js\"></script>\n", "BRG-09", at: "missing"),
        BridgeBypass(
            name: "a script in an SVG file", files: ["app/icon.svg": Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>x()</script></svg>\n".utf8)],
            rule: "BRG-09", file: "app/icon.svg", at: "<script"),
    ]
}

/// A web build (site/'s schema and runtime, and `code`) using the bridge in a documented,
/// accepted form: it validates clean and publishes, calling `calls` unguarded and `guarded`
/// behind a capability check.
struct BridgeAccepted: CustomTestStringConvertible, Sendable {
    var name: String
    var file = "app/extra.js"
    var code: String
    var calls: [String] = []
    var guarded: [String] = []

    var testDescription: String { name }

    static let share = BridgeBypass.share

    static let all: [BridgeAccepted] = [
        BridgeAccepted(name: "a bridge-1 command", code: #"RatecardBridge.call("ready", { bundle_id: "b" });"#, calls: ["ready"]),
        BridgeAccepted(name: "if block", code: "if (RatecardBridge.has(\"share\")) {\n  \(share).then(function (r) { return r; });\n}", guarded: ["share"]),
        BridgeAccepted(name: "if statement", code: "if (RatecardBridge.has('share')) \(share);\nvar after = 1;", guarded: ["share"]),
        BridgeAccepted(name: "if with else", code: "if (RatecardBridge.has(\"share\")) \(share); else console.log(\"no share\");", guarded: ["share"]),
        BridgeAccepted(name: "else if", code: "if (a) { b(); } else if (RatecardBridge.has(\"share\")) { \(share); }", guarded: ["share"]),
        BridgeAccepted(
            name: "a conjunction", code: "if (navigator.onLine && RatecardBridge.has(\"share\") && RatecardBridge.has(\"haptic\")) { \(share); }",
            guarded: ["share"]),
        BridgeAccepted(name: "&&", code: "RatecardBridge.has(\"share\") && \(share);", guarded: ["share"]),
        BridgeAccepted(name: "?:", code: "var p = RatecardBridge.has(\"share\") ? \(share) : Promise.resolve({});", guarded: ["share"]),
        BridgeAccepted(
            name: "in a returned &&",
            code: "toNative(function () { return RatecardBridge.has(\"haptic\") && RatecardBridge.call(\"haptic\", { style: \"light\" }); });",
            guarded: ["haptic"]),
        BridgeAccepted(
            name: "a function made in the branch",
            code: "if (RatecardBridge.has(\"share\")) {\n  button.onclick = function () { \(share); };\n}", guarded: ["share"]),
        BridgeAccepted(name: "an event", code: "var stop = RatecardBridge.on(\"identity_verification_finished\", function (e) { console.log(e.result); });"),
        BridgeAccepted(
            name: "ordinary code",
            code: """
                var h = window.location.hash, w = typeof window !== "undefined" ? window.innerWidth : 0;
                window.addEventListener("hashchange", function () {});
                var t = setTimeout(function () {}, 10), u = setInterval(() => tick(), 10), v = setTimeout(async () => {}, 1);
                setTimeout(async function () {}, 1); setTimeout(async x => x, 1); setTimeout(async => async, 1);
                var ratio = (a + b) / 2 / c, re = /a\\/b[/]/g.test(s), q = x[key], r = rows[i + 1][0], o = { top: 1, parent: 2 };
                el.style.top = rect.top + "px"; node.parent = null; opened.opener = null;
                var label = `rate ${ratio}%`, keyed = data["name"], self_ = 1, ok = a ? b : c;
                """),
        BridgeAccepted(
            name: "an inline script and handler", file: "app/extra.html",
            code:
                "<script>if (RatecardBridge.has(\"share\")) \(share);</script>\n<button onclick=\"RatecardBridge.has('haptic') &amp;&amp; RatecardBridge.call('haptic', {style: 'light'})\">x</button>\n",
            guarded: ["haptic", "share"]),
        BridgeAccepted(
            name: "scripts a browser does not run", file: "app/extra.html",
            code: "<script type=\"text/plain\">\(share)</script>\n<noscript><script>\(share)</script></noscript>\n<textarea><script>\(share)</script></textarea>\n"),
    ]
}

@Suite("Bridge gate corpus")
struct BridgeGateCorpusTests {
    static let apps = [ServiceConfig.AppVersion(name: "ios-4.0", bridge: 1), ServiceConfig.AppVersion(name: "ios-5.0", bridge: 3)]

    /// A web build of site/'s schema and generated runtime, and `files`.
    static func webBuild(in directory: String, _ files: [String: [UInt8]]) throws -> String {
        let web = directory + "/web"
        var all = files
        for path in ["bridge.yaml", "app/bridge.js", "app/bridge.d.ts"] { all[path] = try FileSystem.readFile(projectSite + "/" + path) }
        for (path, bytes) in all {
            try FileSystem.makeDirectories(DurableFiles.parent(of: web + "/" + path))
            try FileSystem.writeFile(web + "/" + path, bytes)
        }
        return web
    }

    @Test("the shipped site passes")
    func siteIsClean() throws {
        let check = try BridgeCheck.run(webFolder: projectSite, displayPrefix: "site/", apps: [("production", Self.apps)])
        #expect(check.diagnostics == [], "\(check.diagnostics.map { "\($0.path):\($0.mark) \($0.rule) \($0.message)" })")
        #expect(check.requirement?.calls.keys.sorted() == ["open_product", "open_terms", "ready"])
    }

    @Test(arguments: BridgeBypass.all)
    func refused(_ bypass: BridgeBypass) throws {
        try withTemporaryDirectory { dir in
            let web = try Self.webBuild(in: dir, bypass.files)
            let check = try BridgeCheck.run(webFolder: web, displayPrefix: "", apps: [("production", Self.apps)])
            let found = check.diagnostics.map { "\($0.rule) \($0.path):\($0.mark)" }
            let expected = "\(bypass.rule) \(bypass.file):\(bypass.position)"
            #expect(found.contains(expected), "expected \(expected); got \(check.diagnostics.map { "\($0.rule) \($0.path):\($0.mark) \($0.message)" })")
            let verdict = try BridgeGate.check(web: web, repositoryRoot: nil, apps: Self.apps, environment: "production", cache: nil)
            switch verdict {
            case .refused(let problems): #expect(bypass.rule == "BRG-10" && problems.contains { $0.english.contains("'share'") }, "\(problems)")
            case .invalid(let errors): #expect(bypass.rule != "BRG-10", "\(errors)")
            case .allowed, .unused: Issue.record("the gate let \(bypass.name) through")
            }
        }
    }

    @Test(arguments: BridgeAccepted.all)
    func accepted(_ accepted: BridgeAccepted) throws {
        try withTemporaryDirectory { dir in
            let web = try Self.webBuild(in: dir, [accepted.file: Array(accepted.code.utf8)])
            let check = try BridgeCheck.run(webFolder: web, displayPrefix: "", apps: [("production", Self.apps)])
            #expect(check.diagnostics == [], "\(check.diagnostics.map { "\($0.rule) \($0.path):\($0.mark) \($0.message)" })")
            let verdict = try BridgeGate.check(web: web, repositoryRoot: nil, apps: Self.apps, environment: "production", cache: nil)
            let requirement = try #require(verdict.requirement, "\(verdict)")
            #expect(requirement.calls.keys.sorted() == accepted.calls)
            #expect(requirement.guarded == accepted.guarded)
        }
    }
}

/// A spelling whose reading turns on where JavaScript may end a statement: a `/` that divides
/// or opens a regular expression, or a capability check whose `&&` meets a line break. Each is
/// appended to the app's entry module, site/app/app.js, and checked; node runs it alone (one
/// process for the corpus) with a runtime whose `has` answers false, to show what it does.
struct ScriptSpelling: CustomTestStringConvertible, Sendable {
    enum Verdict: Sendable, Equatable {
        /// Refused as unreadable (BRG-09) at the first occurrence of this text in the spelling.
        case unreadable(at: String)
        /// The `share` call found and unguarded (BRG-10).
        case unguarded
        /// The `share` call found, guarded.
        case guarded
        /// Read without a finding (no call).
        case readable
    }

    var name: String
    var code: String
    var verdict: Verdict
    /// What node does with it alone.
    var node: NodeRun
    /// node reads it as an ES module (else as a classic script).
    var module = false

    enum NodeRun: String, Sendable {
        case calls = "calls share"
        case noCall = "no call"
        /// Read as a division, the spelling is not JavaScript: node refuses it, so it reads it so.
        case syntaxError = "SyntaxError"
    }

    var testDescription: String { name }

    static let share = #"RatecardBridge.call("share", {title: "t", url: "u"});"#
    /// A regular expression holding a quote; read as a division, the call after it is in a string.
    static let hidden = #"/"/; "# + share + #" //""#

    static func unreadable(_ name: String, _ code: String, at: String = #"/"/"#, node: NodeRun = .calls, module: Bool = false) -> ScriptSpelling {
        ScriptSpelling(name: name, code: code, verdict: .unreadable(at: at), node: node, module: module)
    }

    static func found(_ name: String, _ code: String, module: Bool = false) -> ScriptSpelling {
        ScriptSpelling(name: name, code: code, verdict: .unguarded, node: .calls, module: module)
    }

    static func guarded(_ name: String, _ code: String) -> ScriptSpelling {
        ScriptSpelling(name: name, code: code, verdict: .guarded, node: .noCall)
    }

    /// A `/` the lexer cannot place without knowing where a statement ends: refused, or read
    /// as JavaScript reads it (the call it would hide found).
    static let slashes: [ScriptSpelling] = [
        unreadable("after var", "var xx\n\(hidden)"),
        unreadable("after let", "let xx\n\(hidden)"),
        unreadable("after the last of several declarations", "var a1 = 1, b1\n\(hidden)"),
        unreadable("after a comment holding a line break", "var xx /*\n*/ \(hidden)"),
        unreadable("after U+2028", "var xx\u{2028}\(hidden)"),
        unreadable("after import", "import \"./format.js\"\n\(hidden)", module: true),
        unreadable("after import ... from", "import * as f from \"./format.js\"\n\(hidden)", module: true),
        unreadable("after export ... from", "export * from \"./format.js\"\n\(hidden)", module: true),
        unreadable("after yield at a line's end", "function* g() { yield\n\(hidden)\n}\nvar g1 = g(); g1.next(); g1.next();"),
        unreadable("after yield", "function* g() { yield \(hidden)\n}\nvar g1 = g(); g1.next(); g1.next();"),
        unreadable("after await", "async function f() { await \(hidden)\n}\nf();"),
        unreadable("after top-level await", "await \(hidden)", module: true),
        unreadable("after of", "for (var x of /\"/.source) { \(share) } //\""),
        unreadable("after a block", "if (1) {}\n\(hidden)"),
        unreadable("after an object literal", "var o = {}\n\(hidden)", node: .syntaxError),
        unreadable("a division across lines", "var total = 4, count = 2, ratio = total\n  / count;", at: "/ count", node: .noCall),
        ScriptSpelling(name: "a division across lines in parentheses", code: "var total = 4, ratio = (total\n  / 2), half = [ratio\n  / 2], t = `${total\n  / 2}`;", verdict: .readable, node: .noCall),
        unreadable("in a block in parentheses", "(function () { var xx\n\(hidden)\n})();"),
        // Where the reading is certain and a division, node divides too (and the rest is no script).
        ScriptSpelling(name: "after a call", code: "String()\n\(hidden)", verdict: .readable, node: .syntaxError),
        ScriptSpelling(name: "after a template", code: "var tt = `a`\n\(hidden)", verdict: .readable, node: .syntaxError),
        ScriptSpelling(name: "after null", code: "null\n\(hidden)", verdict: .readable, node: .syntaxError),
        found("after export default", "export default \(hidden)", module: true),
        found("after debugger", "debugger\n\(hidden)"),
        found("after break", "for (;;) { if (!1) break\n\(hidden)\nbreak }"),
        found("after break label", "out: { if (!1) break out\n\(hidden)\n}"),
        found("after continue", "for (var i = 0; i < 1; i++) { if (!1) continue\n\(hidden)\n}"),
        found("after continue label", "loop: for (var j = 0; j < 1; j++) { if (!1) continue loop\n\(hidden)\n}"),
        found("after a label", "here:\n\(hidden)"),
        found("after if (...) and a line break", "if (1)\n\(hidden)"),
        found("after while (...)", "while (0) \(hidden)"),
        found("after for (...)", "for (;0;) \(hidden)"),
        found("after do ... while (...)", "do ; while (0) \(hidden)"),
        found("prefix ++ after a line break", "var n1 = 1\nn1\n++\(hidden)".replacingOccurrences(of: "++/\"/;", with: "++/\"/.lastIndex;")),
        found("prefix ++ after an operator", "var n2 = 1 + ++\(hidden)".replacingOccurrences(of: "++/\"/;", with: "++/\"/.lastIndex;")),
    ]

    /// Capability checks against line breaks: guarded where JavaScript cannot end the
    /// statement between the check and the call, else unguarded.
    static let guards: [ScriptSpelling] = [
        found("&& of, then a line break", "var of = 1;\nRatecardBridge.has(\"share\") && of\n\(share)"),
        found("&& yield, then a line break", "var yield = 1;\nRatecardBridge.has(\"share\") && yield\n\(share)"),
        found("&& await, then a line break", "var await = 1;\nRatecardBridge.has(\"share\") && await\n\(share)"),
        found("&& let, then a line break", "var let = 1;\nRatecardBridge.has(\"share\") && let\n\(share)"),
        found("&& async, then a line break", "var async = 1;\nRatecardBridge.has(\"share\") && async\n\(share)"),
        found("&& static, then a line break", "var static = 1;\nRatecardBridge.has(\"share\") && static\n\(share)"),
        found("&& get, then a line break", "var get = 1;\nRatecardBridge.has(\"share\") && get\n\(share)"),
        found("typeof before the check", "var t = typeof\nRatecardBridge.has(\"share\") && \(share)"),
        found("the if's statement ends at the line break", "var x;\nif (RatecardBridge.has(\"share\")) x = of\n\(share)".replacingOccurrences(of: "x;", with: "x, of = 1;")),
        guarded("&& at a line's end", "RatecardBridge.has(\"share\") &&\n  \(share)"),
        guarded("&& at a line's start", "RatecardBridge.has(\"share\")\n  && \(share)"),
        guarded("a chain over lines", "var ready = true;\nRatecardBridge.has(\"share\") && ready\n  && \(share)"),
        guarded("?: over lines", "var p = RatecardBridge.has(\"share\")\n  ? \(share.dropLast())\n  : null;"),
        guarded("the call continued on the next line", "RatecardBridge.has(\"share\") && \(share.dropLast())\n  .then(function () {});"),
        guarded("if, the call on the next line", "if (RatecardBridge.has(\"share\"))\n  \(share)"),
        guarded("after of on the line before", "var of = 1\nof\nRatecardBridge.has(\"share\") && \(share)"),
        guarded("after yield on the line before", "function* g() { yield\nRatecardBridge.has(\"share\") && \(share) }\nvar it = g(); it.next(); it.next();"),
    ]

    static let all = slashes + guards
}

extension BridgeGateCorpusTests {
    /// `line:column` of the first `text` at or after `offset` (in Unicode scalars) in `source`.
    static func position(of text: String, in source: String, from offset: Int) -> String {
        let scalars = Array(source.unicodeScalars)
        let needle = Array(text.unicodeScalars)
        guard let start = (offset...(scalars.count - needle.count)).first(where: { Array(scalars[$0..<($0 + needle.count)]) == needle }) else { return "?" }
        let before = scalars[..<start]
        let line = before.filter { $0 == "\n" }.count + 1
        let column = start - (before.lastIndex(of: "\n").map { $0 + 1 } ?? 0) + 1
        return "\(line):\(column)"
    }

    @Test(arguments: ScriptSpelling.all)
    func spelling(_ spelling: ScriptSpelling) throws {
        let app = String(decoding: try FileSystem.readFile(projectSite + "/app/app.js"), as: UTF8.self)
        let text = app + spelling.code + "\n"
        let offset = app.unicodeScalars.count
        try withTemporaryDirectory { dir in
            let web = try Self.webBuild(in: dir, ["app/app.js": Array(text.utf8)])
            let check = try BridgeCheck.run(webFolder: web, displayPrefix: "", apps: [("production", Self.apps)])
            let found = check.diagnostics.map { "\($0.rule) \($0.path):\($0.mark)" }
            let shown = check.diagnostics.map { "\($0.rule) \($0.path):\($0.mark) \($0.message)" }
            let verdict = try BridgeGate.check(web: web, repositoryRoot: nil, apps: Self.apps, environment: "production", cache: nil)
            switch spelling.verdict {
            case .unreadable(let at):
                let expected = "BRG-09 app/app.js:\(Self.position(of: at, in: text, from: offset))"
                #expect(found.contains(expected), "expected \(expected); got \(shown)")
                guard case .invalid = verdict else {
                    Issue.record("the gate did not refuse the script as unreadable: \(verdict)")
                    return
                }
            case .unguarded:
                let expected = "BRG-10 app/app.js:\(Self.position(of: "RatecardBridge.call", in: text, from: offset))"
                #expect(found.contains(expected), "expected \(expected); got \(shown)")
                guard case .refused(let problems) = verdict, problems.contains(where: { $0.english.contains("'share'") }) else {
                    Issue.record("the gate did not refuse the unguarded call: \(verdict)")
                    return
                }
            case .guarded, .readable:
                #expect(check.diagnostics == [], "\(shown)")
                #expect(verdict.requirement?.guarded == (spelling.verdict == .guarded ? ["share"] : []), "\(verdict)")
            }
        }
    }

    /// What node does with each spelling alone: one process for the corpus.
    @Test func nodeReadsTheSpellingsSo() throws {
        try withTemporaryDirectory { dir in
            var files: [String] = []
            for (number, spelling) in ScriptSpelling.all.enumerated() {
                let file = dir + "/case-\(number)." + (spelling.module ? "mjs" : "js")
                try FileSystem.writeFile(file, Array(spelling.code.utf8))
                files.append(file)
            }
            // What the module spellings import.
            try FileSystem.writeFile(dir + "/format.js", Array("export const f = 1;\n".utf8))
            try FileSystem.writeFile(dir + "/package.json", Array(#"{"type": "module"}"#.utf8))
            try FileSystem.writeFile(
                dir + "/run.mjs",
                Array(
                    """
                    import { readFileSync } from "node:fs";
                    import { pathToFileURL } from "node:url";
                    import vm from "node:vm";
                    const results = [];
                    for (const file of process.argv.slice(2)) {
                      const calls = [];
                      const runtime = { call(name) { calls.push(name); return Promise.resolve({}); }, has() { return false; } };
                      globalThis.RatecardBridge = runtime;
                      try {
                        if (file.endsWith(".mjs")) await import(pathToFileURL(file).href);
                        else vm.runInNewContext(readFileSync(file, "utf8"), { RatecardBridge: runtime }, { filename: file });
                        await new Promise((resolve) => setTimeout(resolve, 0));
                        results.push(calls.includes("share") ? "calls share" : "no call");
                      } catch (error) {
                        results.push(error instanceof SyntaxError || error?.name === "SyntaxError" ? "SyntaxError" : "threw " + error);
                      }
                    }
                    console.log(JSON.stringify(results));

                    """.utf8))
            let (status, output) = try runTool("/usr/bin/env", ["node", dir + "/run.mjs"] + files)
            #expect(status == 0, "\(output)")
            let last = output.split(separator: "\n").last.map(String.init) ?? ""
            let results = try JSONDecoder().decode([String].self, from: Data(last.utf8))
            #expect(results.count == ScriptSpelling.all.count)
            for (spelling, result) in zip(ScriptSpelling.all, results) {
                #expect(result == spelling.node.rawValue, "\(spelling.name): node says \(result)")
            }
        }
    }
}
