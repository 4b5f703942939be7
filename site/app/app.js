/*
 * ratecard web view.
 *
 * Plain JS, no dependencies, no external requests. The page reads the bundle described in
 * docs/bundle-format.md: data/entry.json once per load (no-cache), then only the immutable data
 * documents the screen on show needs, each named there (or in a document named there) by path
 * and sha256: from a published release as its content-addressed object (`objects` + sha256 +
 * extension, cached for a year and shared by every release), from a built folder (no
 * `objects`) in the one data folder the entry document names. The comparison reads the shards
 * of the comparison index; a product's document, the partner list and the terms index are
 * fetched when their screen opens.
 *
 * Routes (hash):
 *   #/compare[?score=<0-1000>&amount=<만원>]   comparison (default route)
 *   #/partners                                  partner list
 *   #/product/<partner>/<product>               product detail
 *   #/terms[/<doc>[/<version>]]                 terms viewer
 *
 * The DOM is built only with createElement/textContent; href/src values that come from data
 * are checked first (bundle-relative paths, or https:// for partner websites).
 */
(function () {
  "use strict";

  var FETCH_TIMEOUT_MS = 20000;
  var SCORE_MIN = 0;
  var SCORE_MAX = 1000;
  var AMOUNT_MAX_MAN = 1000000; // 100억원 (in 만원) — sanity bound for the input

  var REPAYMENT_KO = {
    equal_installment: "원리금균등분할상환",
    equal_principal: "원금균등분할상환",
    bullet: "만기일시상환",
    revolving: "한도대출(마이너스통장)"
  };
  var CONSENT_KO = { required: "필수", optional: "선택", none: "안내" };
  var CONSENT_CLASS = { required: "badge-required", optional: "badge-optional", none: "badge-info" };
  var PRODUCT_STATUS_KO = { active: "판매 중", paused: "일시 중단", withdrawn: "판매 종료" };

  var state = {
    loading: false,
    data: null,          // the entry document and the service and phrase documents, once loaded
    fetched: new Map(),  // data URL -> promise of its JSON, each fetched once per load
    view: 0,             // bumped per navigation: a screen whose data arrives late is not drawn
    readySent: false,
    lastQuery: { score: "", amount: "" }
  };

  // ---------------------------------------------------------------- helpers

  function $(id) {
    return document.getElementById(id);
  }

  /** createElement with className and text only. Never takes HTML. */
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function append(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (typeof child === "string") child = document.createTextNode(child);
      parent.appendChild(child);
    }
    return parent;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function isObj(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  function str(v) {
    return typeof v === "string" ? v : "";
  }

  function arr(v) {
    return Array.isArray(v) ? v : [];
  }

  /**
   * A path inside the bundle: relative, no scheme, no leading "/" or "//", no "." / ".."
   * segments, only [A-Za-z0-9._-] in segment names.
   */
  var SAFE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
  function isSafeRelPath(p) {
    if (typeof p !== "string" || p.length === 0 || p.length > 512) return false;
    var parts = p.split("/");
    for (var i = 0; i < parts.length; i++) {
      if (!SAFE_SEGMENT.test(parts[i])) return false;
    }
    return true;
  }

  /** The data folder from the entry document: "data/<id>/" (trailing slash optional in input). */
  function safeDataFolder(p) {
    if (typeof p !== "string") return null;
    var folder = p.charAt(p.length - 1) === "/" ? p.slice(0, -1) : p;
    if (!isSafeRelPath(folder)) return null;
    if (folder.split("/")[0] !== "data") return null;
    return folder + "/";
  }

  /** The object prefix from the entry document: "o/" (a relative folder), or null. */
  function safeObjectsPrefix(p) {
    if (typeof p !== "string" || !/^[a-z0-9_-]{1,32}\/$/.test(p)) return null;
    return p;
  }

  /** ".json" for "compare/x.json": the extension an object name keeps (ObjectLayout). */
  function objectExtension(path) {
    var name = path.slice(path.lastIndexOf("/") + 1);
    var dot = name.lastIndexOf(".");
    if (dot < 0) return "";
    var ext = name.slice(dot + 1).toLowerCase();
    return /^[a-z0-9]{1,8}$/.test(ext) ? "." + ext : "";
  }

  /**
   * Where a data file is fetched from, given its path in the data folder and its sha256: its
   * object when the entry document says where objects are, else the data folder. Null for a
   * path or hash that is not one.
   */
  function dataUrl(path, sha256) {
    var d = state.data;
    if (!d || !isSafeRelPath(path)) return null;
    if (d.objects) return /^[0-9a-f]{64}$/.test(str(sha256)) ? d.objects + sha256 + objectExtension(path) : null;
    return d.folder + path;
  }

  /** A `{"path", "sha256"}` reference of a data document, as a URL. */
  function refUrl(ref) {
    return isObj(ref) ? dataUrl(ref.path, ref.sha256) : null;
  }

  function safeHttpsUrl(u) {
    if (typeof u !== "string" || u.length > 2048) return null;
    if (!/^https:\/\/[^\s\/?#\\]+/i.test(u)) return null;
    if (/[\s\u0000-\u001f\u007f\\]/.test(u)) return null;
    try {
      var parsed = new URL(u);
      if (parsed.protocol !== "https:" || !parsed.hostname) return null;
      return parsed.href;
    } catch (e) {
      return null;
    }
  }

  function withCommas(n) {
    var s = String(Math.floor(Math.abs(n)));
    var out = "";
    while (s.length > 3) {
      out = "," + s.slice(-3) + out;
      s = s.slice(0, -3);
    }
    return (n < 0 ? "-" : "") + s + out;
  }

  /**
   * A rate/number with at least `minDecimals` and at most 3 decimals, exact for inputs with
   * up to 3 decimals (the content allows 3): 6.9 -> "6.90", 12.45 -> "12.45", 5.125 -> "5.125".
   */
  function fmtDecimal(v, minDecimals) {
    if (!isNum(v)) return "-";
    var neg = v < 0;
    var thousandths = Math.round(Math.abs(v) * 1000);
    var intPart = Math.floor(thousandths / 1000);
    var frac = String(thousandths % 1000);
    while (frac.length < 3) frac = "0" + frac;
    while (frac.length > minDecimals && frac.charAt(frac.length - 1) === "0") frac = frac.slice(0, -1);
    return (neg ? "-" : "") + String(intPart) + (frac.length ? "." + frac : "");
  }

  function fmtApr(v) {
    return fmtDecimal(v, 2);
  }

  function aprRange(min, max) {
    if (!isNum(min) && !isNum(max)) return "금리 정보 없음";
    if (isNum(min) && isNum(max) && min === max) return "연 " + fmtApr(min) + "%";
    return "연 " + fmtApr(min) + "% ~ " + fmtApr(max) + "%";
  }

  /** KRW in Korean units: 120000000 -> "1억 2,000만원", 50000000 -> "5,000만원". */
  function fmtKrw(krw) {
    if (!isNum(krw)) return "-";
    krw = Math.floor(krw);
    if (krw <= 0) return "0원";
    var eok = Math.floor(krw / 100000000);
    var man = Math.floor((krw % 100000000) / 10000);
    var won = krw % 10000;
    var parts = [];
    if (eok) parts.push(withCommas(eok) + "억");
    if (man) parts.push(withCommas(man) + "만");
    if (won) parts.push(withCommas(won));
    return parts.join(" ") + "원";
  }

  function fmtDate(d) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(str(d));
    if (!m) return str(d) || "-";
    return m[1] + "년 " + Number(m[2]) + "월 " + Number(m[3]) + "일";
  }

  function compareStr(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // Every call to the app goes through the generated runtime (app/bridge.js, from
  // bridge.yaml): RatecardBridge.call("command", params). The page must keep working whatever
  // the app does with a call, and outside the app, so a failure is logged, never thrown.
  function toNative(call) {
    try {
      call().catch(function (e) {
        if (e && e.code !== "no_native" && typeof console !== "undefined") console.warn(e.message);
      });
    } catch (e) {
      /* the runtime did not load: the page still works */
    }
  }

  // ---------------------------------------------------------------- loading

  function fetchJson(url, options) {
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timer = controller ? setTimeout(function () { controller.abort(); }, FETCH_TIMEOUT_MS) : null;
    var opts = {};
    if (options && options.cache) opts.cache = options.cache;
    if (controller) opts.signal = controller.signal;
    opts.credentials = "same-origin";
    return fetch(url, opts).then(function (res) {
      if (!res.ok) throw new Error("HTTP " + res.status);
      return res.json();
    }).then(function (json) {
      if (timer) clearTimeout(timer);
      return json;
    }, function (err) {
      if (timer) clearTimeout(timer);
      var reason = err && err.name === "AbortError" ? "시간 초과" : (err && err.message ? err.message : String(err));
      throw new Error(url + ": " + reason);
    });
  }

  /** A data document by its URL, fetched once per load (it never changes under its URL). */
  function fetchData(url, what) {
    if (!url) return Promise.reject(new Error(what + ": not named by the entry document"));
    if (!state.fetched.has(url)) {
      var pending = fetchJson(url).then(function (json) {
        if (!isObj(json)) throw new Error(what + ": not an object");
        return json;
      });
      // A failed fetch is not kept: a retry fetches again.
      pending.catch(function () { state.fetched.delete(url); });
      state.fetched.set(url, pending);
    }
    return state.fetched.get(url);
  }

  /** One of the index documents the entry document names (service, phrases, limits, partners, terms, documents). */
  function loadDocument(name) {
    var documents = state.data.documents;
    var ref = Object.prototype.hasOwnProperty.call(documents, name) ? documents[name] : null;
    return fetchData(refUrl(ref), name + ".json");
  }

  /** Reads the entry document, then the two documents every screen shows (service name, phrases). */
  function loadEntry() {
    return fetchJson("data/entry.json", { cache: "no-cache" }).then(function (entry) {
      if (!isObj(entry)) throw new Error("entry: not an object");
      var bundleId = str(entry.bundle_id);
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(bundleId)) throw new Error("entry: bad bundle_id");
      var folder = safeDataFolder(entry.data);
      if (!folder) throw new Error("entry: bad data folder");
      if (!isObj(entry.documents) || !Array.isArray(entry.compare)) throw new Error("entry: no documents");
      // Every data file is one this entry document names, directly or through a document it
      // names: a page never mixes releases.
      state.fetched = new Map();
      state.data = {
        bundleId: bundleId,
        folder: folder,
        objects: safeObjectsPrefix(entry.objects),
        asOf: str(entry.as_of),
        documents: entry.documents,
        compare: entry.compare,
        service: {},
        phrases: [],
        phrasesById: new Map(),
        index: null
      };
      return Promise.all([loadDocument("service"), loadDocument("phrases")]);
    }).then(function (docs) {
      if (!Array.isArray(docs[1].phrases)) throw new Error("phrases.json: no phrases");
      state.data.service = docs[0];
      state.data.phrases = docs[1].phrases.filter(isObj);
      state.data.phrases.forEach(function (p) { state.data.phrasesById.set(str(p.id), p); });
    });
  }

  /**
   * The comparison index: every shard the entry document names, decoded into one product list
   * (each with its partner's name and the bands of its table in force, docs/bundle-format.md).
   */
  function loadIndex() {
    var d = state.data;
    if (d.index) return d.index;
    d.index = Promise.all(d.compare.map(function (ref, i) {
      return fetchData(refUrl(ref), "comparison shard " + (i + 1));
    })).then(function (shards) {
      var products = [];
      shards.forEach(function (shard) { decodeShard(shard, products); });
      return products;
    });
    d.index.catch(function () { d.index = null; });
    return d.index;
  }

  /** Appends the products of one comparison shard (columns, bands delta-coded) to `out`. */
  function decodeShard(shard, out) {
    var units = isObj(shard.units) ? shard.units : {};
    var perPct = units.apr_per_pct;
    var unit = units.krw_per_unit;
    var partners = isObj(shard.partners) ? shard.partners : {};
    var products = isObj(shard.products) ? shard.products : {};
    var bands = isObj(shard.bands) ? shard.bands : {};
    if (shard.format !== 1 || [1000, 100, 10].indexOf(perPct) < 0 || !isNum(unit) || unit <= 0) {
      throw new Error("comparison shard: unknown format");
    }
    var ids = arr(products.id);
    var column = {};
    ["score_gap", "score_span", "apr_min", "apr_spread", "limit_max"].forEach(function (name) { column[name] = arr(bands[name]); });
    var position = 0;
    var index = 0;
    arr(partners.id).forEach(function (partnerId, p) {
      var count = arr(partners.products)[p];
      var partnerName = str(arr(partners.name_ko)[p]);
      for (var k = 0; isNum(count) && k < count && index < ids.length; k++, index++) {
        var n = arr(products.bands)[index];
        var ceiling = arr(products.score_max)[index];
        // Rates are summed in their stored step and divided once: an exact decimal, as written.
        var aprMin = 0, spread = 0, limit = 0;
        var list = [];
        for (var b = 0; isNum(n) && b < n; b++, position++) {
          var scoreMax = ceiling - column.score_gap[position];
          var scoreMin = scoreMax - column.score_span[position];
          aprMin += column.apr_min[position];
          spread += column.apr_spread[position];
          limit += column.limit_max[position];
          list.push({
            score_min: scoreMin,
            score_max: scoreMax,
            apr_min_pct: aprMin / perPct,
            apr_max_pct: (aprMin + spread) / perPct,
            limit_max_krw: limit * unit
          });
          ceiling = scoreMin - 1;
        }
        out.push({
          key: str(partnerId) + "/" + str(ids[index]),
          id: str(ids[index]),
          partner: str(partnerId),
          partner_name_ko: partnerName,
          name_ko: str(arr(products.name_ko)[index]),
          limit: { max_krw: arr(products.limit_max)[index] * unit },
          current: { bands: list }
        });
      }
    });
  }

  /**
   * A product's document, through the list of its shard's documents (the last list starting at
   * or before its partner, in documents.json); from a built folder, straight from its path.
   */
  function loadProduct(key) {
    var parts = key.split("/");
    if (parts.length !== 2 || !isSafeRelPath(key)) return Promise.resolve(null);
    if (!state.data.objects) {
      return fetchData(dataUrl("products/" + key + ".json"), key).catch(function (err) {
        if (/HTTP 404/.test(String(err && err.message))) return null;
        throw err;
      });
    }
    return loadDocument("documents").then(function (index) {
      var chosen = null;
      arr(index.lists).forEach(function (list) {
        if (isObj(list) && str(list.from) <= parts[0]) chosen = list;
      });
      if (!chosen) return null;
      return fetchData(refUrl(chosen), "documents of " + str(chosen.from)).then(function (list) {
        var ref = isObj(list.products) && Object.prototype.hasOwnProperty.call(list.products, key) ? list.products[key] : null;
        return ref ? fetchData(refUrl(ref), key) : null;
      });
    });
  }

  /** partners.json, with a lookup by id. */
  function loadPartners() {
    return loadDocument("partners").then(function (raw) {
      if (!Array.isArray(raw.partners)) throw new Error("partners.json: no partners");
      var list = raw.partners.filter(isObj);
      var byId = new Map();
      list.forEach(function (p) { byId.set(str(p.id), p); });
      return { list: list, byId: byId };
    });
  }

  /** terms.json, with a lookup by document id. */
  function loadTerms() {
    return loadDocument("terms").then(function (raw) {
      if (!Array.isArray(raw.documents)) throw new Error("terms.json: no documents");
      var list = raw.documents.filter(isObj);
      var byId = new Map();
      list.forEach(function (d) { byId.set(str(d.id), d); });
      return { list: list, byId: byId };
    });
  }

  /** Tells the app, once, that the first screen is drawn. */
  function sendReady() {
    if (state.readySent) return;
    state.readySent = true;
    var bundleId = state.data.bundleId;
    toNative(function () { return RatecardBridge.call("ready", { bundle_id: bundleId }); });
  }

  function start() {
    if (state.loading) return;
    state.loading = true;
    state.data = null;
    renderLoading();
    loadEntry().then(function () {
      state.loading = false;
      renderChrome();
      route();
    }, function (err) {
      state.loading = false;
      renderLoadError(err, start);
    });
  }

  /**
   * Draws a screen once its data has arrived, unless the reader has moved on meanwhile. A data
   * file that is gone (a rollback between reading the entry document and the file) reads the
   * entry document once more.
   */
  function show(loading, draw, retried) {
    var view = ++state.view;
    renderLoading();
    loading().then(function (result) {
      if (view !== state.view) return;
      draw(result);
      sendReady();
    }, function (err) {
      if (view !== state.view) return;
      if (!retried && /HTTP 404/.test(String(err && err.message))) {
        loadEntry().then(function () { show(loading, draw, true); }, function (again) { renderLoadError(again, start); });
        return;
      }
      renderLoadError(err, route);
    });
  }

  // ---------------------------------------------------------------- chrome

  function main() {
    return $("main");
  }

  function renderLoading() {
    var m = main();
    clear(m);
    append(m, el("p", "notice", "불러오는 중…"));
    m.lastChild.setAttribute("role", "status");
  }

  function renderLoadError(err, retryWith) {
    var m = main();
    clear(m);
    var box = el("section", "error-box");
    box.setAttribute("role", "alert");
    var retry = el("button", "button", "다시 시도");
    retry.type = "button";
    retry.addEventListener("click", retryWith || start);
    append(box,
      el("h1", null, "정보를 불러오지 못했습니다"),
      el("p", null, "네트워크 연결을 확인한 뒤 다시 시도해 주세요. 문제가 계속되면 잠시 후 다시 이용해 주세요."),
      retry,
      el("p", "error-detail", "오류 정보: " + (err && err.message ? err.message : String(err)))
    );
    append(m, box);
    retry.focus();
  }

  function renderChrome() {
    var d = state.data;
    var name = str(d.service.service_name);
    if (name) {
      $("service-name").textContent = name;
      document.title = name + " — 대출 금리 비교";
    }
    var footer = $("footer");
    clear(footer);
    var reg = str(d.service.broker_registration_no);
    if (name || reg) {
      append(footer, el("p", null, (name ? name : "") + (reg ? " · 대출모집인 등록번호 " + reg : "")));
    }
    if (d.asOf) append(footer, el("p", null, "금리 기준일 " + fmtDate(d.asOf)));
  }

  function setActiveTab(tab) {
    ["compare", "partners", "terms"].forEach(function (t) {
      var a = $("tab-" + t);
      if (!a) return;
      if (t === tab) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    });
  }

  /** Move focus to the view's heading after navigation (not on first render). */
  var firstRender = true;
  function focusHeading(h) {
    h.setAttribute("tabindex", "-1");
    h.classList.add("view-title");
    if (firstRender) {
      firstRender = false;
      return;
    }
    window.scrollTo(0, 0);
    try {
      h.focus({ preventScroll: true });
    } catch (e) {
      h.focus();
    }
  }

  // ---------------------------------------------------------------- routing

  function parseHash() {
    var h = window.location.hash || "";
    if (h.charAt(0) === "#") h = h.slice(1);
    var q = "";
    var qi = h.indexOf("?");
    if (qi >= 0) {
      q = h.slice(qi + 1);
      h = h.slice(0, qi);
    }
    var segs = h.split("/").filter(function (s) { return s.length > 0; }).map(function (s) {
      try {
        return decodeURIComponent(s);
      } catch (e) {
        return s;
      }
    });
    var params;
    try {
      params = new URLSearchParams(q);
    } catch (e) {
      params = new URLSearchParams("");
    }
    return { segs: segs, params: params };
  }

  function route() {
    if (!state.data) return;
    var r = parseHash();
    var s = r.segs;
    var view = s[0] || "compare";
    if (view === "partners" && s.length === 1) {
      show(function () { return loadPartners(); }, renderPartners);
    } else if (view === "product" && s.length === 3) {
      var key = s[1] + "/" + s[2];
      show(function () {
        return Promise.all([loadProduct(key), loadPartners(), loadDocument("limits")]);
      }, function (loaded) { renderProduct(loaded[0], loaded[1], loaded[2]); });
    } else if (view === "terms" && s.length <= 3) {
      show(function () { return loadTerms(); }, function (terms) {
        if (s.length === 1) renderTermsList(terms);
        else renderTermsDoc(terms, s[1], s[2]);
      });
    } else if (view === "compare" && s.length <= 1) {
      show(loadIndex, function (products) { renderCompare(r.params, products); });
    } else {
      ++state.view;
      renderNotFound();
      sendReady();
    }
  }

  function renderNotFound() {
    setActiveTab(null);
    var m = main();
    clear(m);
    var h = el("h1", null, "페이지를 찾을 수 없습니다");
    var back = el("a", "back-link", "금리 비교로 이동");
    back.href = "#/compare";
    append(m, h, el("p", null, "주소가 올바르지 않거나 더 이상 제공되지 않는 정보입니다."), back);
    focusHeading(h);
  }

  // ---------------------------------------------------------------- comparison

  function parseScore(text) {
    var t = String(text).trim();
    if (t === "") return { empty: true };
    if (!/^\d{1,4}$/.test(t)) return { error: "0부터 1000 사이의 정수로 입력해 주세요." };
    var n = Number(t);
    if (n < SCORE_MIN || n > SCORE_MAX) return { error: "0부터 1000 사이의 정수로 입력해 주세요." };
    return { value: n };
  }

  function parseAmount(text) {
    var t = String(text).trim().replace(/,/g, "");
    if (t === "") return { empty: true };
    if (!/^\d{1,7}$/.test(t)) return { error: "만원 단위의 정수로 입력해 주세요. (예: 3000 = 3,000만원)" };
    var n = Number(t);
    if (n > AMOUNT_MAX_MAN) return { error: "입력할 수 있는 금액을 넘었습니다." };
    return { value: n };
  }

  function findBand(table, score) {
    if (!isObj(table)) return null;
    var bands = arr(table.bands);
    for (var i = 0; i < bands.length; i++) {
      var b = bands[i];
      if (isObj(b) && isNum(b.score_min) && isNum(b.score_max) &&
          b.score_min <= score && score <= b.score_max) {
        return b;
      }
    }
    return null;
  }

  function effectiveLimit(product, band) {
    var a = band && isNum(band.limit_max_krw) ? band.limit_max_krw : null;
    var b = isObj(product.limit) && isNum(product.limit.max_krw) ? product.limit.max_krw : null;
    if (a === null) return b;
    if (b === null) return a;
    return Math.min(a, b);
  }

  /** Rows for a score (and optional amount in KRW), consumer-favourable order. The index holds
   *  only products the comparison can show (active, partner active, a table in force). */
  function compareRows(products, score, amountKrw) {
    var rows = [];
    products.forEach(function (p) {
      if (!isObj(p.current)) return;
      var band = findBand(p.current, score);
      if (!band) return;
      var limit = effectiveLimit(p, band);
      rows.push({
        product: p,
        key: str(p.key),
        band: band,
        aprMin: isNum(band.apr_min_pct) ? band.apr_min_pct : Infinity,
        aprMax: isNum(band.apr_max_pct) ? band.apr_max_pct : Infinity,
        limit: limit,
        over: amountKrw !== null && (limit === null || amountKrw > limit)
      });
    });
    rows.sort(function (a, b) {
      if (a.over !== b.over) return a.over ? 1 : -1;
      if (a.aprMin !== b.aprMin) return a.aprMin < b.aprMin ? -1 : 1;
      if (a.aprMax !== b.aprMax) return a.aprMax < b.aprMax ? -1 : 1;
      var la = a.limit === null ? -1 : a.limit;
      var lb = b.limit === null ? -1 : b.limit;
      if (la !== lb) return la > lb ? -1 : 1;
      return compareStr(a.key, b.key);
    });
    return rows;
  }

  function productHref(p) {
    return "#/product/" + encodeURIComponent(str(p.partner)) + "/" + encodeURIComponent(str(p.id));
  }

  function partnerName(p, partner) {
    return str(p.partner_name_ko) || (partner ? str(partner.name_ko) : "") || str(p.partner);
  }

  function compareQueryString(score, amount) {
    var parts = [];
    if (score !== "") parts.push("score=" + encodeURIComponent(score));
    if (amount !== "") parts.push("amount=" + encodeURIComponent(amount));
    return parts.length ? "?" + parts.join("&") : "";
  }

  function makeField(id, labelText, hintText, inputAttrs) {
    var wrap = el("div", "field");
    var label = el("label", null, labelText);
    label.htmlFor = id;
    var input = document.createElement("input");
    input.id = id;
    input.name = id;
    input.type = "text";
    input.setAttribute("inputmode", "numeric");
    input.setAttribute("autocomplete", "off");
    input.setAttribute("enterkeyhint", "done");
    for (var k in inputAttrs) {
      if (Object.prototype.hasOwnProperty.call(inputAttrs, k)) input.setAttribute(k, inputAttrs[k]);
    }
    var hint = el("p", "hint", hintText);
    hint.id = id + "-hint";
    var error = el("p", "field-error");
    error.id = id + "-error";
    error.hidden = true;
    input.setAttribute("aria-describedby", hint.id + " " + error.id);
    append(wrap, label, input, hint, error);
    return { wrap: wrap, input: input, error: error };
  }

  function setFieldError(field, message) {
    if (message) {
      field.error.textContent = message;
      field.error.hidden = false;
      field.input.setAttribute("aria-invalid", "true");
    } else {
      field.error.textContent = "";
      field.error.hidden = true;
      field.input.removeAttribute("aria-invalid");
    }
  }

  function renderCompare(params, products) {
    setActiveTab("compare");
    var m = main();
    clear(m);

    var hasQuery = params.has("score") || params.has("amount");
    var scoreText = hasQuery ? (params.get("score") || "") : state.lastQuery.score;
    var amountText = hasQuery ? (params.get("amount") || "") : state.lastQuery.amount;

    var h = el("h1", null, "대출 금리 비교");
    var intro = el("p", "hint", "신용점수에 맞는 금리와 한도를 금리가 낮은 순서로 보여 드립니다.");

    var form = el("form", "form card");
    form.setAttribute("novalidate", "");
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", "금리 비교 조건");
    var scoreField = makeField("score", "신용점수 (0~1000점)", "KCB·NICE 신용점수, 정수", {
      maxlength: "4", placeholder: "예: 750", "aria-required": "true"
    });
    var amountField = makeField("amount", "희망 금액 (만원)", "만원 단위 (3000 = 3,000만원)", {
      maxlength: "9", placeholder: "예: 3000"
    });
    scoreField.input.defaultValue = scoreText;
    amountField.input.defaultValue = amountText;
    append(form, scoreField.wrap, amountField.wrap);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
    });

    var summary = el("p", "result-summary");
    summary.id = "result-summary";
    summary.setAttribute("role", "status");
    summary.setAttribute("aria-live", "polite");
    var list = el("ol", "results");
    list.id = "results";
    list.setAttribute("aria-labelledby", "result-summary");

    var notes = renderRatePhrases();

    append(m, h, intro, form, summary, list, notes);

    function update() {
      var s = parseScore(scoreField.input.value);
      var a = parseAmount(amountField.input.value);
      setFieldError(scoreField, s.error);
      setFieldError(amountField, a.error);
      state.lastQuery = {
        score: scoreField.input.value.trim(),
        amount: amountField.input.value.trim().replace(/,/g, "")
      };
      // Keep the URL shareable without triggering a re-render.
      try {
        var target = "#/compare" + compareQueryString(state.lastQuery.score, state.lastQuery.amount);
        if (window.location.hash !== target && window.history && window.history.replaceState) {
          window.history.replaceState(null, "", target);
        }
      } catch (e) { /* some web views forbid replaceState on file: URLs */ }

      clear(list);
      if (s.empty || s.error) {
        summary.textContent = s.error ? "신용점수를 확인해 주세요." : "신용점수를 입력하면 받을 수 있는 금리와 한도를 보여 드립니다.";
        return;
      }
      var amountKrw = a.value !== undefined ? a.value * 10000 : null;
      var rows = compareRows(products, s.value, amountKrw);
      var overCount = rows.filter(function (r) { return r.over; }).length;
      if (rows.length === 0) {
        summary.textContent = "신용점수 " + s.value + "점에 해당하는 상품이 없습니다.";
        return;
      }
      summary.textContent = "신용점수 " + s.value + "점 · " + rows.length + "개 상품" +
        (amountKrw !== null ? " (희망 금액 " + fmtKrw(amountKrw) + (overCount ? ", 한도 초과 " + overCount + "개" : "") + ")" : "");
      rows.forEach(function (r) {
        append(list, renderResultRow(r));
      });
    }

    scoreField.input.addEventListener("input", update);
    amountField.input.addEventListener("input", update);
    update();
    focusHeading(h);
  }

  function renderResultRow(r) {
    var p = r.product;
    var li = el("li", "result");
    li.setAttribute("data-key", r.key);
    if (r.over) li.setAttribute("data-over-limit", "true");
    var a = el("a", "result-link");
    a.href = productHref(p);
    var limitText = r.limit === null ? "한도 정보 없음" : "최대 " + fmtKrw(r.limit);
    append(a,
      el("span", "partner", partnerName(p)),
      el("span", "product", str(p.name_ko)),
      el("span", "apr", aprRange(r.band.apr_min_pct, r.band.apr_max_pct)),
      el("span", "limit", "한도 " + limitText)
    );
    if (r.over) append(a, el("span", "badge badge-danger over-badge", "한도 초과"));
    append(li, a);
    return li;
  }

  function renderRatePhrases() {
    var list = state.data.phrases.filter(function (ph) {
      return arr(ph.pages).indexOf("rates") >= 0 && str(ph.text);
    });
    if (!list.length) return null;
    var box = el("section", "phrases");
    box.setAttribute("aria-label", "유의사항");
    var ul = el("ul");
    list.forEach(function (ph) {
      var li = el("li", null, str(ph.text));
      li.setAttribute("data-phrase", str(ph.id));
      append(ul, li);
    });
    append(box, el("h2", null, "유의사항"), ul);
    return box;
  }

  // ---------------------------------------------------------------- partners

  function renderLogo(partner, className) {
    var logo = str(partner.logo);
    var name = str(partner.name_ko);
    if (isSafeRelPath(logo)) {
      var img = document.createElement("img");
      img.className = className;
      img.alt = name;
      img.width = 48;
      img.height = 48;
      img.decoding = "async";
      img.setAttribute("loading", "lazy");
      // The logo's object when the release names it (its URL outlives the release), else the data folder.
      img.src = (state.data.objects ? dataUrl(logo, partner.logo_sha256) : null) || state.data.folder + logo;
      img.addEventListener("error", function () {
        if (img.parentNode) img.parentNode.replaceChild(logoFallback(name), img);
      });
      return img;
    }
    return logoFallback(name);
  }

  function logoFallback(name) {
    var span = el("span", "partner-logo-fallback", name ? name.charAt(0) : "?");
    span.setAttribute("aria-hidden", "true");
    return span;
  }

  function websiteLink(partner, text) {
    var url = safeHttpsUrl(isObj(partner) ? partner.website : null);
    if (!url) return null;
    var a = el("a", "website", text);
    a.href = url;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    return a;
  }

  function renderPartners(partners) {
    setActiveTab("partners");
    var m = main();
    clear(m);
    var h = el("h1", null, "제휴 금융회사");
    var visible = partners.list.filter(function (p) {
      return p.status !== "terminated";
    }).slice().sort(function (a, b) {
      var da = isNum(a.display_order) ? a.display_order : Infinity;
      var db = isNum(b.display_order) ? b.display_order : Infinity;
      if (da !== db) return da < db ? -1 : 1;
      return compareStr(str(a.id), str(b.id));
    });
    var list = el("ul", "partner-list");
    list.id = "partners";
    visible.forEach(function (p) {
      var paused = p.status === "paused";
      var li = el("li", "partner-item" + (paused ? " is-paused" : ""));
      li.setAttribute("data-id", str(p.id));
      if (paused) li.setAttribute("data-status", "paused");
      var body = el("div", "partner-body");
      var nameLine = el("p", "partner-name", str(p.name_ko));
      var meta = el("p", "partner-meta", str(p.category_ko) || str(p.category));
      append(body, nameLine, meta);
      if (paused) {
        var reason = el("p", "status-reason");
        append(reason, el("span", "badge badge-warn", "일시 중단"), " ", str(p.status_reason) || "신규 접수가 일시 중단되었습니다.");
        append(body, reason);
      }
      var contact = el("p", "partner-meta");
      var phone = str(p.phone);
      if (phone) append(contact, "고객센터 " + phone);
      var site = websiteLink(p, "홈페이지");
      if (site) append(contact, phone ? " · " : "", site);
      if (contact.firstChild) append(body, contact);
      append(li, renderLogo(p, "partner-logo"), body);
      append(list, li);
    });
    append(m, h, el("p", "hint", "표시 순서는 금리와 무관합니다. 금리 비교는 ‘금리 비교’ 탭에서 금리가 낮은 순서로 보여 드립니다."), list);
    focusHeading(h);
  }

  // ---------------------------------------------------------------- product detail

  function fact(dl, term, value) {
    var row = el("div");
    var dd = el("dd");
    if (value instanceof Node) append(dd, value);
    else dd.textContent = value;
    append(row, el("dt", null, term), dd);
    append(dl, row);
  }

  function renderBandTable(table, captionText, myScore) {
    var wrap = el("div", "table-wrap");
    var t = el("table", "bands");
    append(t, el("caption", null, captionText));
    var thead = el("thead");
    var hr = el("tr");
    ["신용점수", "금리(연)", "최대 한도"].forEach(function (label) {
      var th = el("th", null, label);
      th.scope = "col";
      append(hr, th);
    });
    append(thead, hr);
    var tbody = el("tbody");
    arr(table.bands).forEach(function (b) {
      if (!isObj(b)) return;
      var tr = el("tr");
      var th = el("th", null, (isNum(b.score_min) ? b.score_min : "-") + "~" + (isNum(b.score_max) ? b.score_max : "-") + "점");
      th.scope = "row";
      var mine = myScore !== null && isNum(b.score_min) && isNum(b.score_max) &&
        b.score_min <= myScore && myScore <= b.score_max;
      if (mine) {
        tr.className = "is-mine";
        append(th, el("span", "visually-hidden", " (내 점수)"));
      }
      append(tr, th,
        el("td", "apr", fmtApr(b.apr_min_pct) + "% ~ " + fmtApr(b.apr_max_pct) + "%"),
        el("td", null, fmtKrw(b.limit_max_krw)));
      append(tbody, tr);
    });
    append(t, thead, tbody);
    append(wrap, t);
    return wrap;
  }

  function tableMeta(table) {
    var bits = [];
    if (str(table.bureau)) bits.push(str(table.bureau) + " 신용점수 기준");
    if (str(table.effective_from)) {
      bits.push(fmtDate(table.effective_from) + "부터" + (str(table.effective_to) ? " " + fmtDate(table.effective_to) + "까지" : "") + " 적용");
    }
    return bits.join(", ");
  }

  function renderProduct(p, partners, limitsDoc) {
    setActiveTab("compare");
    if (!isObj(p)) {
      renderNotFound();
      return;
    }
    var partner = partners.byId.get(str(p.partner)) || null;
    var limits = isObj(limitsDoc.limits) ? limitsDoc.limits : {};
    var m = main();
    clear(m);

    var back = el("a", "back-link", "‹ 금리 비교로 돌아가기");
    back.href = "#/compare" + compareQueryString(state.lastQuery.score, state.lastQuery.amount);
    var myScore = parseScore(state.lastQuery.score).value;
    if (myScore === undefined) myScore = null;

    // Head
    var head = el("section", "card detail-head");
    var h = el("h1", null, str(p.name_ko));
    append(head, el("p", "partner", partnerName(p, partner)), h);
    if (str(p.type_ko) || str(p.type)) append(head, el("span", "badge", str(p.type_ko) || str(p.type)));
    var env = isObj(p.apr) ? aprRange(p.apr.min_pct, p.apr.max_pct) : "금리 정보 없음";
    append(head, el("p", "envelope", env));
    if (str(p.description_ko)) append(head, el("p", null, str(p.description_ko)));

    var banners = [];
    if (p.status !== "active") {
      banners.push(el("p", "status-banner", (PRODUCT_STATUS_KO[p.status] || str(p.status)) + " 상품입니다." +
        (partner && partner.status === "paused" && str(partner.status_reason) ? " (" + str(partner.status_reason) + ")" : "")));
    } else if (partner && partner.status !== "active") {
      banners.push(el("p", "status-banner", "제휴 금융회사 사정으로 신규 접수가 중단되었습니다." +
        (str(partner.status_reason) ? " (" + str(partner.status_reason) + ")" : "")));
    }

    // Rates
    var rates = el("section", "card");
    append(rates, el("h2", null, "신용점수별 금리·한도"));
    if (isObj(p.current)) {
      append(rates, renderBandTable(p.current, "현재 적용 중 — " + tableMeta(p.current), myScore));
    } else {
      append(rates, el("p", null, "현재 적용 중인 금리표가 없습니다."));
    }
    if (isObj(p.next)) {
      var nextBox = el("div");
      append(nextBox,
        el("h3", null, "변경 예정 금리 (" + fmtDate(p.next.effective_from) + "부터)"),
        renderBandTable(p.next, "변경 예정 — " + tableMeta(p.next), myScore));
      nextBox.className = "next-table";
      append(rates, nextBox);
    }
    if (isObj(limits.max_apr_pct) && isNum(limits.max_apr_pct.value)) {
      append(rates, el("p", "hint", "법정 최고금리 연 " + fmtDecimal(limits.max_apr_pct.value, 1) + "%"));
    }

    // Conditions
    var cond = el("section", "card");
    append(cond, el("h2", null, "대출 조건"));
    var dl = el("dl", "facts");
    var lim = isObj(p.limit) ? p.limit : {};
    fact(dl, "대출 한도", fmtKrw(lim.min_krw) + " ~ " + fmtKrw(lim.max_krw));
    var months = arr(p.terms_months).filter(isNum);
    fact(dl, "대출 기간", months.length ? months.join(", ") + "개월" : "-");
    var methods = arr(p.repayment_methods).map(function (m) { return REPAYMENT_KO[m] || str(m); }).filter(Boolean);
    fact(dl, "상환 방법", methods.length ? methods.join(", ") : "-");
    var fees = isObj(p.fees) ? p.fees : {};
    var erPct = fees.early_repayment_pct;
    var erMonths = fees.early_repayment_months;
    var erText = !isNum(erPct) || erPct === 0 || (isNum(erMonths) && erMonths === 0)
      ? "없음"
      : fmtDecimal(erPct, 1) + "% (대출일부터 " + (isNum(erMonths) ? erMonths : "-") + "개월 이내 상환 시)";
    fact(dl, "중도상환수수료", erText);
    fact(dl, "취급수수료", !isNum(fees.origination_krw) || fees.origination_krw === 0 ? "없음" : fmtKrw(fees.origination_krw));
    var late = isObj(p.late_interest) ? p.late_interest : {};
    fact(dl, "연체이자", "약정금리 + " + fmtDecimal(late.spread_pp, 1) + "%p, 최고 연 " + fmtDecimal(late.max_pct, 1) + "%");
    append(cond, dl);

    // Partner
    var who = el("section", "card");
    append(who, el("h2", null, "금융회사"));
    var dl2 = el("dl", "facts");
    fact(dl2, "금융회사", partnerName(p, partner));
    var phone = partner ? str(partner.phone) : "";
    fact(dl2, "고객센터", phone || "-");
    var site = websiteLink(partner, "홈페이지 열기");
    if (site) fact(dl2, "홈페이지", site);
    append(who, dl2);

    // Disclosures
    var disc = null;
    var texts = arr(p.phrases).map(function (id) { return state.data.phrasesById.get(str(id)); })
      .filter(function (ph) { return ph && str(ph.text); });
    if (texts.length) {
      disc = el("section", "card");
      append(disc, el("h2", null, "꼭 확인하세요"));
      var ul = el("ul", "disclosures");
      texts.forEach(function (ph) {
        var li = el("li", null, str(ph.text));
        li.setAttribute("data-phrase", str(ph.id));
        append(ul, li);
      });
      append(disc, ul);
    }

    append(m, back, head);
    banners.forEach(function (b) { append(m, b); });
    append(m, rates, cond, who, disc);
    focusHeading(h);
    toNative(function () { return RatecardBridge.call("open_product", { key: str(p.key) }); });
  }

  // ---------------------------------------------------------------- terms

  function consentBadge(consent) {
    return el("span", "badge " + (CONSENT_CLASS[consent] || "badge-info"), CONSENT_KO[consent] || "안내");
  }

  function docHref(docId, version) {
    return "#/terms/" + encodeURIComponent(docId) + (version ? "/" + encodeURIComponent(version) : "");
  }

  function renderTermsList(terms) {
    setActiveTab("terms");
    var m = main();
    clear(m);
    var h = el("h1", null, "약관 및 고지");
    var list = el("ul", "doc-list");
    list.id = "documents";
    terms.list.forEach(function (d) {
      var li = el("li");
      li.setAttribute("data-doc", str(d.id));
      var a = el("a", "doc-link");
      a.href = docHref(str(d.id));
      var cur = currentVersion(d);
      var meta = cur
        ? "현재 버전 " + str(cur.version) + " · " + fmtDate(cur.effective_from) + " 시행"
        : "시행 중인 버전 없음";
      append(a, el("span", "doc-title", str(d.title)), consentBadge(d.consent), el("span", "doc-meta", meta));
      append(li, a);
      append(list, li);
    });
    append(m, h, list);
    focusHeading(h);
  }

  function currentVersion(doc) {
    var versions = arr(doc.versions).filter(isObj);
    if (doc.current !== null && doc.current !== undefined) {
      for (var i = 0; i < versions.length; i++) {
        if (versions[i].version === doc.current) return versions[i];
      }
    }
    return null;
  }

  function renderTermsDoc(terms, docId, versionId) {
    setActiveTab("terms");
    var doc = terms.byId.get(docId);
    if (!doc) {
      renderNotFound();
      return;
    }
    var versions = arr(doc.versions).filter(isObj);
    var chosen = null;
    if (versionId) {
      chosen = versions.filter(function (v) { return v.version === versionId; })[0] || null;
      if (!chosen) {
        renderNotFound();
        return;
      }
    } else {
      // Default: the version in force; if none is in force yet, the earliest scheduled one.
      chosen = currentVersion(doc) || versions[0] || null;
    }

    var m = main();
    clear(m);
    var back = el("a", "back-link", "‹ 약관 목록");
    back.href = "#/terms";
    var h = el("h1", null, str(doc.title));
    var head = el("p", "doc-badges");
    append(head, el("span", "visually-hidden", "동의 구분: "), consentBadge(doc.consent));

    var picker = el("section", "card");
    var pickerTitle = el("h2", null, "버전");
    pickerTitle.id = "version-picker-title";
    var ul = el("ul", "versions");
    ul.id = "versions";
    ul.setAttribute("aria-labelledby", pickerTitle.id);
    // Newest first is easier to scan; the data lists oldest first.
    versions.slice().reverse().forEach(function (v) {
      var li = el("li");
      var a = el("a", "version-link");
      a.href = docHref(str(doc.id), str(v.version));
      a.setAttribute("data-version", str(v.version));
      if (v === chosen) a.setAttribute("aria-current", "true");
      var headLine = el("span", "version-head", "v" + str(v.version) + " · " + fmtDate(v.effective_from) + " 시행");
      if (doc.current !== null && v.version === doc.current) append(headLine, el("span", "badge badge-optional", "현재"));
      else if (state.data.asOf && str(v.effective_from) > state.data.asOf) append(headLine, el("span", "badge badge-info", "시행 예정"));
      if (v.requires_reconsent === true) append(headLine, el("span", "badge badge-danger", "재동의 필요"));
      if (v.consent && v.consent !== doc.consent) append(headLine, consentBadge(v.consent));
      append(a, headLine);
      if (str(v.summary)) append(a, el("span", "version-summary", str(v.summary)));
      append(li, a);
      append(ul, li);
    });
    append(picker, pickerTitle, ul);

    append(m, back, h, head);

    var viewer = el("section");
    if (chosen) {
      var title = (str(chosen.title) || str(doc.title)) + " v" + str(chosen.version);
      var vh = el("h2", "viewer-title", "v" + str(chosen.version) + " 본문 · " + fmtDate(chosen.effective_from) + " 시행");
      vh.id = "terms-viewer-title";
      viewer.setAttribute("aria-labelledby", vh.id);
      append(viewer, vh);
      var url = str(chosen.url) || ("terms/" + str(doc.id) + "/" + str(chosen.version) + ".html");
      if (isSafeRelPath(url)) {
        var frame = document.createElement("iframe");
        frame.className = "terms-frame";
        frame.setAttribute("sandbox", "");
        frame.setAttribute("referrerpolicy", "no-referrer");
        frame.title = title;
        frame.src = url;
        append(viewer, frame);
      } else {
        append(viewer, el("p", "notice", "약관 문서를 표시할 수 없습니다."));
      }
    } else {
      append(viewer, el("p", "notice", "표시할 약관 버전이 없습니다."));
    }
    append(m, picker, viewer);
    focusHeading(h);
    if (chosen) toNative(function () { return RatecardBridge.call("open_terms", { document: str(doc.id), version: str(chosen.version) }); });
  }

  // ---------------------------------------------------------------- boot

  window.addEventListener("hashchange", route);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
