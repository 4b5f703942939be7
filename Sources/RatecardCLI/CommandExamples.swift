/// The EXAMPLES section of each command's `--help`: command lines to copy, with what each does.
enum CommandExamples {
    static func of(_ name: String) -> [String] { table[name] ?? [] }

    static let table: [String: [String]] = [
        "init": ["ratecard init my-content           # a new repository with the example content, committed"],
        "validate": [
            "ratecard validate                                   # the work tree, history rules against HEAD",
            "ratecard validate --range origin/main..HEAD --format github   # CI: annotations on HEAD's lines",
            "ratecard validate --rev HEAD --lang ko              # one commit, messages in Korean",
        ],
        "schema": ["ratecard schema --out .ratecard-schemas      # one JSON Schema per kind of file, for the editor"],
        "rules": ["ratecard rules --format json         # every rule id, severity, title and rationale"],
        "build": ["ratecard build --out /tmp/bundle --as-of 2026-11-29   # the bundle as it will be on that day"],
        "preview": [
            "ratecard preview --watch            # http://127.0.0.1:8000/, rebuilt on every save; Ctrl-C stops it",
            "ratecard preview && cd .preview && python3 -m http.server 8000 --bind 127.0.0.1",
        ],
        "diff": [
            "ratecard diff                        # HEAD against the work tree",
            "ratecard diff HEAD~3 HEAD --format markdown   # for a pull-request comment",
            "ratecard diff --env production       # what is live against HEAD",
        ],
        "save": [
            "ratecard save -m \"Raise the 801-900 floor\"",
            "ratecard save -m \"Fix a typo in the loan terms\" --author \"Kim Minji <minji@example.com>\"",
        ],
        "log": ["ratecard log --product kbank/credit --env staging   # who changed it, and which release shipped it"],
        "show": [
            "ratecard show --env production --at \"2027-03-02 14:30\" --product kbank/credit   # the rates a borrower saw then",
            "ratecard show --env production --at \"2027-03-02 14:30\" --terms service-terms --format json",
        ],
        "hook": ["ratecard hook install                # then every 'git commit' validates the staged content first"],
        "publish": [
            "ratecard publish --env staging -m \"December rates\" --dry-run   # the diff and the file changes, nothing touched",
            "ratecard publish --env staging -m \"December rates\"",
        ],
        "promote": ["ratecard promote --from staging --to production -m \"checked on staging\""],
        "rollback": ["ratecard rollback --env production -m \"wrong band for 701-800\""],
        "rollout": [
            "ratecard publish --env production --rollout 10 -m \"December rates\"   # 10% of installs first",
            "ratecard rollout --env production --percent 50 -m \"no complaints after a day\"",
            "ratecard rollout --env production --complete -m \"everyone\"",
        ],
        "status": ["ratecard status --env production --format json"],
        "releases": ["ratecard releases --env production   # newest first, with live and bad marks"],
        "verify": ["ratecard verify --env production     # exit 1 if a live file changed on disk"],
        "prune": ["ratecard prune --env staging --keep 10"],
        "keys": ["ratecard keys generate --out ~/.ratecard-keys --name production   # then paste the signing: block it prints"],
        "sign": ["ratecard sign --env production --signing-key ~/.ratecard-keys/production.key   # daily, beside publish --if-stale"],
        "repair": ["ratecard repair --env production   # what status calls stale, and missing entry files, put back"],
        "nginx-conf": ["ratecard nginx-conf --env production --listen 127.0.0.1:8080 > /etc/nginx/conf.d/ratecard.conf"],
        "serve": [
            "ratecard serve --env staging         # what is live in staging, at http://127.0.0.1:8080/",
            "ratecard serve --root /srv/ratecard/production --port 0   # any free port; the address is printed",
        ],
        "bridge": [
            "ratecard bridge generate             # site/app/bridge.js, bridge.d.ts, native/RatecardBridge.swift, native/RatecardLoader.swift",
            "ratecard bridge generate --swift ../ios/Sources/Bridge/RatecardBridge.swift   # straight into the app",
        ],
        "fetch": [
            "ratecard fetch https://cdn.example.com/production --trust keys/production.pub --bridge 3 --state ~/.ratecard-probe",
            "ratecard fetch http://127.0.0.1:8080 --bridge 3   # hashes only: the statement is reported unsigned",
        ],
        "generate": ["ratecard generate /tmp/big --partners 300 --history 200   # what 'make bench' measures against"],
        "version": ["ratecard version                     # ratecard 0.1.0 (build 3f2a9c0d1e4b5a67)"],
        "completion": [
            "source <(ratecard completion bash)   # in ~/.bashrc",
            "ratecard completion zsh > \"${fpath[1]}/_ratecard\"   # zsh; then start a new shell",
        ],
    ]
}
