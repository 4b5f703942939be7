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
 * fetched when their screen opens. Repayment figures come from app/loan-math.js
 * (docs/loan-math.md).
 *
 * Routes (hash):
 *   #/compare[?score=&kcb=&nice=&amount=&term=&method=&sort=&cat=&type=]
 *                                               comparison (default route): score = both
 *                                               bureaus' score, kcb/nice = one each (0-1000);
 *                                               amount in 만원; term in months (12-60);
 *                                               method = repayment method; sort = apr | limit |
 *                                               payment; cat = partner category; type = product type
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

  // The bits of a comparison shard's repayment masks (docs/bundle-format.md).
  var REPAYMENT_ORDER = ["equal_installment", "equal_principal", "bullet", "revolving"];
  var CATEGORY_KO = {
    bank: "은행", internet_bank: "인터넷전문은행", savings_bank: "저축은행", card: "카드사",
    capital: "캐피탈", insurance: "보험사", p2p: "온라인투자연계금융"
  };
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
    lastQuery: null      // the comparison's conditions, kept across screens (DEFAULT_QUERY's shape)
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

  function append(container) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (typeof child === "string") child = document.createTextNode(child);
      container.appendChild(child);
    }
    return container;
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
      // The comparison's shards are fetched alongside the two documents every screen shows:
      // on a slow network that saves a round trip before the first screen.
      if ((parseHash().segs[0] || "compare") === "compare") loadIndex();
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
    if (shard.format !== 3 || [1000, 100, 10].indexOf(perPct) < 0 || !isNum(unit) || unit <= 0) {
      throw new Error("comparison shard: unknown format");
    }
    var ids = arr(products.id);
    var column = {};
    ["score_gap", "score_span", "apr_min", "apr_spread", "limit_max"].forEach(function (name) { column[name] = arr(bands[name]); });
    var position = 0;
    var index = 0;
    var termList = arr(units.terms_months);
    var typeList = arr(units.types);
    var bureauList = arr(units.bureaus);
    var bits = function (mask, names) {
      return names.filter(function (name, i) { return isNum(mask) && (mask & (1 << i)) !== 0; });
    };
    arr(partners.id).forEach(function (partnerId, p) {
      var count = arr(partners.products)[p];
      var partnerName = str(arr(partners.name_ko)[p]);
      // What a row shows of its partner: name, category, logo (partners.json has the rest).
      var partner = {
        id: str(partnerId),
        name_ko: partnerName,
        category: str(arr(partners.category)[p]),
        logo: str(arr(partners.logo)[p]),
        logo_sha256: str(arr(partners.logo_sha256)[p]) || null
      };
      for (var k = 0; isNum(count) && k < count && index < ids.length; k++, index++) {
        var n = arr(products.bands)[index];
        var ceiling = arr(products.score_max)[index];
        // Rates are summed in their stored step and divided once: an exact decimal, as written.
        // Limits: what each band lends less than the one before (the product's limit for the first).
        var aprMin = 0, spread = 0, limit = arr(products.limit_max)[index];
        var list = [];
        for (var b = 0; isNum(n) && b < n; b++, position++) {
          var scoreMax = ceiling - column.score_gap[position];
          var scoreMin = scoreMax - column.score_span[position];
          aprMin += column.apr_min[position];
          spread += column.apr_spread[position];
          limit -= column.limit_max[position];
          list.push({
            score_min: scoreMin,
            score_max: scoreMax,
            apr_min_pct: aprMin / perPct,
            apr_max_pct: (aprMin + spread) / perPct,
            limit_max_krw: limit * unit
          });
          ceiling = scoreMin - 1;
        }
        var bureau = str(bureauList[arr(products.bureau)[index]]);
        var name = str(arr(products.name_ko)[index]);
        // A name stored without its partner's name and the space after it.
        if (arr(products.name_after_partner)[index] === 1) name = partnerName + " " + name;
        out.push({
          key: str(partnerId) + "/" + str(ids[index]),
          id: str(ids[index]),
          partner: str(partnerId),
          partner_name_ko: partnerName,
          name_ko: name,
          type: str(typeList[arr(products.type)[index]]),
          limit: { min_krw: arr(products.limit_min)[index] * unit, max_krw: arr(products.limit_max)[index] * unit },
          terms_months: bits(arr(products.terms)[index], termList),
          repayment_methods: bits(arr(products.repayment)[index], REPAYMENT_ORDER),
          partner_info: partner,
          bureau: bureau,
          current: { bureau: bureau, bands: list }
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

  var PAGE_SIZE = 20;
  var TERM_CHOICES = [12, 24, 36, 48, 60];
  var DEFAULT_QUERY = { kcb: "", nice: "", amount: "", term: "36", method: "equal_installment", sort: "apr", cat: "", type: "" };
  var SORT_KO = { apr: "금리 낮은 순", limit: "한도 높은 순", payment: "월 상환액 적은 순" };
  var TYPE_KO = {
    credit: "신용대출", credit_line: "마이너스통장", card_loan: "카드론",
    auto_secured: "자동차담보대출", policy: "정책서민금융", refinance: "대환대출"
  };
  // What a repayment's monthly figure is, by method: equal principal pays most in its first
  // month, a bullet loan (and a credit line drawn in full) pays only interest each month.
  var PAYMENT_LABEL = {
    equal_installment: "월 상환액", equal_principal: "첫 달 상환액", bullet: "월 이자", revolving: "월 이자"
  };
  // The terms document whose text the comparison shows when nothing matches (public programs).
  var NO_RESULTS_DOCUMENT = "public-loan-programs";

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

  /** The comparison's conditions from the hash query: `score` gives both bureaus' scores, `kcb`/`nice` one each. */
  function queryFromParams(params) {
    var q = {};
    for (var k in DEFAULT_QUERY) q[k] = DEFAULT_QUERY[k];
    var score = params.get("score");
    if (score !== null) q.kcb = q.nice = score;
    ["kcb", "nice", "amount", "term", "method", "sort", "cat", "type"].forEach(function (k) {
      var v = params.get(k);
      if (v !== null) q[k] = v;
    });
    if (TERM_CHOICES.indexOf(Number(q.term)) < 0) q.term = DEFAULT_QUERY.term;
    if (!REPAYMENT_KO[q.method]) q.method = DEFAULT_QUERY.method;
    if (!SORT_KO[q.sort]) q.sort = DEFAULT_QUERY.sort;
    return q;
  }

  function hasComparisonQuery(params) {
    return ["score", "kcb", "nice", "amount", "term", "method", "sort", "cat", "type"].some(function (k) { return params.has(k); });
  }

  function compareQueryString(q) {
    var parts = [];
    if (q.kcb !== "" && q.kcb === q.nice) parts.push("score=" + encodeURIComponent(q.kcb));
    else {
      if (q.kcb !== "") parts.push("kcb=" + encodeURIComponent(q.kcb));
      if (q.nice !== "") parts.push("nice=" + encodeURIComponent(q.nice));
    }
    ["amount", "term", "method", "sort", "cat", "type"].forEach(function (k) {
      if (q[k] !== "" && q[k] !== DEFAULT_QUERY[k]) parts.push(k + "=" + encodeURIComponent(q[k]));
    });
    return parts.length ? "?" + parts.join("&") : "";
  }

  /** The reader's score for the bureau a table is drawn on, or null. */
  function scoreFor(q, bureau) {
    var s = parseScore(bureau === "NICE" ? q.nice : bureau === "KCB" ? q.kcb : "");
    return s.value === undefined ? null : s.value;
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

  /**
   * Why a product (an index entry or its document) cannot lend `amountKrw` (null: any amount)
   * up to `limit` for `term` months repaid by `method`: none when it can.
   */
  function lendingReasons(p, limit, amountKrw, term, method) {
    var reasons = [];
    var minKrw = isObj(p.limit) ? p.limit.min_krw : null;
    var terms = arr(p.terms_months).filter(isNum);
    var methods = arr(p.repayment_methods).map(str);
    if (amountKrw !== null && (limit === null || amountKrw > limit)) reasons.push("한도 초과 (최대 " + fmtKrw(limit) + ")");
    if (amountKrw !== null && isNum(minKrw) && amountKrw < minKrw) reasons.push("최소 " + fmtKrw(minKrw) + "부터");
    if (terms.indexOf(term) < 0) reasons.push(term + "개월 기간 없음 (" + terms.join("·") + "개월)");
    if (methods.indexOf(method) < 0) {
      reasons.push(REPAYMENT_KO[method] + " 없음 (" + methods.map(function (m) { return REPAYMENT_KO[m] || m; }).join(", ") + ")");
    }
    return reasons;
  }

  function repaymentFigures(amountKrw, aprPct, months, method) {
    var math = window.RatecardLoanMath;
    return math ? math.repayment(amountKrw, aprPct, months, method) : null;
  }

  /**
   * The comparison for the reader's conditions: `main`, the products that can lend the amount
   * for the term and repayment method chosen, and `below`, those with a band for the score that
   * cannot (each with its reasons), both in the order chosen; `missing`, per bureau, products
   * left out for want of that bureau's score. The index holds only products the comparison can
   * show (active, partner active, a score-priced table in force).
   */
  function compareRows(products, q) {
    var amount = parseAmount(q.amount).value;
    var amountKrw = amount !== undefined ? amount * 10000 : null;
    var term = Number(q.term);
    var out = { main: [], below: [], missing: { KCB: 0, NICE: 0 }, amountKrw: amountKrw };
    products.forEach(function (p) {
      var partner = p.partner_info;
      var category = str(partner.category);
      if (q.cat && category !== q.cat) return;
      if (q.type && p.type !== q.type) return;
      var score = scoreFor(q, p.bureau);
      if (score === null) {
        if (out.missing[p.bureau] !== undefined) out.missing[p.bureau]++;
        return;
      }
      var band = findBand(p.current, score);
      if (!band) return;
      var limit = effectiveLimit(p, band);
      var reasons = lendingReasons(p, limit, amountKrw, term, q.method);
      var row = {
        product: p,
        partner: partner,
        key: p.key,
        band: band,
        score: score,
        aprMin: isNum(band.apr_min_pct) ? band.apr_min_pct : Infinity,
        aprMax: isNum(band.apr_max_pct) ? band.apr_max_pct : Infinity,
        limit: limit,
        reasons: reasons,
        low: null,
        high: null
      };
      if (!reasons.length && amountKrw !== null) {
        row.low = repaymentFigures(amountKrw, row.aprMin, term, q.method);
        row.high = repaymentFigures(amountKrw, row.aprMax, term, q.method);
      }
      (reasons.length ? out.below : out.main).push(row);
    });
    var byApr = function (a, b) {
      if (a.aprMin !== b.aprMin) return a.aprMin < b.aprMin ? -1 : 1;
      if (a.aprMax !== b.aprMax) return a.aprMax < b.aprMax ? -1 : 1;
      return 0;
    };
    var byLimit = function (a, b) {
      var la = a.limit === null ? -1 : a.limit;
      var lb = b.limit === null ? -1 : b.limit;
      return la === lb ? 0 : la > lb ? -1 : 1;
    };
    var byPayment = function (a, b) {
      var pa = a.low ? a.low.firstPayment : Infinity;
      var pb = b.low ? b.low.firstPayment : Infinity;
      if (pa !== pb) return pa < pb ? -1 : 1;
      var qa = a.high ? a.high.firstPayment : Infinity;
      var qb = b.high ? b.high.firstPayment : Infinity;
      return qa === qb ? 0 : qa < qb ? -1 : 1;
    };
    var order = q.sort === "limit" ? [byLimit, byApr] : q.sort === "payment" ? [byPayment, byApr, byLimit] : [byApr, byLimit];
    var compare = function (a, b) {
      for (var i = 0; i < order.length; i++) {
        var c = order[i](a, b);
        if (c) return c;
      }
      return compareStr(a.key, b.key);
    };
    out.main.sort(compare);
    out.below.sort(compare);
    return out;
  }

  function productHref(p) {
    return "#/product/" + encodeURIComponent(str(p.partner)) + "/" + encodeURIComponent(str(p.id));
  }

  function partnerName(p, partner) {
    return str(p.partner_name_ko) || (partner ? str(partner.name_ko) : "") || str(p.partner);
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

  /** A labelled <select> of [value, text] options. */
  function makeSelect(id, labelText, options, value, className) {
    var wrap = el("div", "field" + (className ? " " + className : ""));
    var label = el("label", null, labelText);
    label.htmlFor = id;
    var select = document.createElement("select");
    select.id = id;
    select.name = id;
    options.forEach(function (o) {
      var option = el("option", null, o[1]);
      option.value = o[0];
      append(select, option);
    });
    select.value = value;
    if (select.value !== value) select.value = options.length ? options[0][0] : "";
    append(wrap, label, select);
    return { wrap: wrap, input: select };
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

  function scoreSummary(q) {
    var k = parseScore(q.kcb).value;
    var n = parseScore(q.nice).value;
    if (k !== undefined && k === n) return "신용점수 " + k + "점";
    var bits = [];
    if (k !== undefined) bits.push("KCB " + k + "점");
    if (n !== undefined) bits.push("NICE " + n + "점");
    return "신용점수 " + bits.join(", ");
  }

  function renderCompare(params, products) {
    setActiveTab("compare");
    var m = main();
    clear(m);

    var q = hasComparisonQuery(params) ? queryFromParams(params) : (state.lastQuery || DEFAULT_QUERY);

    var h = el("h1", null, "대출 금리 비교");
    var intro = el("p", "hint", "KCB·NICE 신용점수와 희망 금액을 넣으면 받을 수 있는 금리와 한도, 예상 상환액을 보여 드립니다.");

    var form = el("form", "form card");
    form.setAttribute("novalidate", "");
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", "금리 비교 조건");
    var kcbField = makeField("kcb", "KCB 신용점수", "0~1000점", { maxlength: "4", placeholder: "예: 750" });
    var niceField = makeField("nice", "NICE 신용점수", "0~1000점", { maxlength: "4", placeholder: "예: 780" });
    var amountField = makeField("amount", "희망 금액 (만원)", "3000 = 3,000만원", { maxlength: "9", placeholder: "예: 3000" });
    var termField = makeSelect("term", "대출 기간", TERM_CHOICES.map(function (t) { return [String(t), t + "개월"]; }), q.term);
    var methodField = makeSelect("method", "상환 방법", Object.keys(REPAYMENT_KO).map(function (k) { return [k, REPAYMENT_KO[k]]; }), q.method, "field-wide");
    kcbField.input.defaultValue = q.kcb;
    niceField.input.defaultValue = q.nice;
    amountField.input.defaultValue = q.amount;
    append(form, kcbField.wrap, niceField.wrap, amountField.wrap, termField.wrap, methodField.wrap);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
    });

    // Sort and filters: the categories of the partners and the types of the products listed.
    var categories = [];
    var seenCategory = {};
    products.forEach(function (p) {
      var c = p.partner_info.category;
      if (c && !seenCategory[c]) {
        seenCategory[c] = true;
        categories.push([c, CATEGORY_KO[c] || c]);
      }
    });
    categories.sort(function (a, b) {
      var order = Object.keys(CATEGORY_KO);
      return order.indexOf(a[0]) - order.indexOf(b[0]);
    });
    var types = [];
    var seenType = {};
    products.forEach(function (p) {
      if (p.type && !seenType[p.type]) {
        seenType[p.type] = true;
        types.push([p.type, TYPE_KO[p.type] || p.type]);
      }
    });
    types.sort(function (a, b) { return compareStr(a[1], b[1]); });
    var tools = el("div", "tools");
    tools.setAttribute("role", "group");
    tools.setAttribute("aria-label", "정렬과 필터");
    var sortField = makeSelect("sort", "정렬", Object.keys(SORT_KO).map(function (k) { return [k, SORT_KO[k]]; }), q.sort);
    var catField = makeSelect("cat", "금융회사", [["", "전체"]].concat(categories), q.cat);
    var typeField = makeSelect("type", "상품 종류", [["", "전체"]].concat(types), q.type);
    append(tools, sortField.wrap, catField.wrap, typeField.wrap);

    var summary = el("p", "result-summary");
    summary.id = "result-summary";
    summary.setAttribute("role", "status");
    summary.setAttribute("aria-live", "polite");
    var missing = el("p", "hint missing-score");
    missing.id = "missing-score";
    var list = el("ol", "results");
    list.id = "results";
    list.setAttribute("aria-labelledby", "result-summary");
    var more = el("button", "button button-secondary more", "더 보기");
    more.type = "button";
    more.id = "more";
    var empty = el("section", "card no-results");
    empty.id = "no-results";
    empty.hidden = true;

    var belowBox = el("section", "below");
    belowBox.id = "below";
    var belowTitle = el("h2", null, "");
    belowTitle.id = "below-title";
    var belowHint = el("p", "hint", "선택한 금액·기간·상환 방법으로는 받기 어려운 상품입니다. 조건을 바꾸면 위 목록에 나타날 수 있습니다.");
    var belowList = el("ol", "results");
    belowList.id = "results-below";
    belowList.setAttribute("aria-labelledby", belowTitle.id);
    var moreBelow = el("button", "button button-secondary more", "더 보기");
    moreBelow.type = "button";
    moreBelow.id = "more-below";
    append(belowBox, belowTitle, belowHint, belowList, moreBelow);

    var estimate = el("p", "hint estimate-note",
      "예상 상환액은 선택한 금액·기간·상환 방법과 내 점수 구간의 최저·최고 금리로 계산한 비교용 금액이며(원 단위 반올림), 실제 금리와 상환액은 금융회사 심사 결과에 따라 달라집니다.");
    var notes = renderRatePhrases();

    append(m, h, intro, form, tools, summary, missing, list, more, empty, belowBox, estimate, notes);

    var shown = { main: 0, below: 0 };
    var current = null;

    function showMore(which) {
      var rows = current[which];
      var target = which === "main" ? list : belowList;
      var start = shown[which];
      var end = Math.min(rows.length, start + PAGE_SIZE);
      for (var i = start; i < end; i++) append(target, renderResultRow(rows[i], current.query, which === "below"));
      shown[which] = end;
      var button = which === "main" ? more : moreBelow;
      button.hidden = end >= rows.length;
      button.textContent = "더 보기 (" + end + "/" + rows.length + ")";
      return start < end ? target.children[start] : null;
    }

    more.addEventListener("click", function () {
      var first = showMore("main");
      if (first) first.querySelector("a").focus();
    });
    moreBelow.addEventListener("click", function () {
      var first = showMore("below");
      if (first) first.querySelector("a").focus();
    });

    function readQuery() {
      return {
        kcb: kcbField.input.value.trim(),
        nice: niceField.input.value.trim(),
        amount: amountField.input.value.trim().replace(/,/g, ""),
        term: termField.input.value,
        method: methodField.input.value,
        sort: sortField.input.value,
        cat: catField.input.value,
        type: typeField.input.value
      };
    }

    function update() {
      var query = readQuery();
      var k = parseScore(query.kcb);
      var n = parseScore(query.nice);
      var a = parseAmount(query.amount);
      setFieldError(kcbField, k.error);
      setFieldError(niceField, n.error);
      setFieldError(amountField, a.error);
      state.lastQuery = query;
      // Keep the URL shareable without triggering a re-render.
      try {
        var target = "#/compare" + compareQueryString(query);
        if (window.location.hash !== target && window.history && window.history.replaceState) {
          window.history.replaceState(null, "", target);
        }
      } catch (e) { /* some web views forbid replaceState on file: URLs */ }

      clear(list);
      clear(belowList);
      clear(missing);
      more.hidden = true;
      belowBox.hidden = true;
      empty.hidden = true;
      shown = { main: 0, below: 0 };
      if (k.error || n.error || (k.empty && n.empty)) {
        summary.textContent = k.error || n.error ? "신용점수를 확인해 주세요." : "KCB 또는 NICE 신용점수를 입력하면 받을 수 있는 금리와 한도를 보여 드립니다.";
        return;
      }
      var query2 = query;
      if (a.error) query2 = Object.assign({}, query, { amount: "" });
      current = compareRows(products, query2);
      current.query = query2;
      var bits = [];
      if (current.missing.KCB) bits.push("KCB 신용점수를 입력하면 KCB 기준 상품 " + current.missing.KCB + "개를 더 비교할 수 있습니다.");
      if (current.missing.NICE) bits.push("NICE 신용점수를 입력하면 NICE 기준 상품 " + current.missing.NICE + "개를 더 비교할 수 있습니다.");
      missing.textContent = bits.join(" ");
      summary.textContent = scoreSummary(query) + " · " + current.main.length + "개 상품" +
        (current.amountKrw !== null ? " (희망 금액 " + fmtKrw(current.amountKrw) + ", " + query.term + "개월)" : "") +
        (current.below.length ? " · 조건 밖 " + current.below.length + "개" : "");
      if (current.main.length) showMore("main");
      else renderNoResults(empty);
      if (current.below.length) {
        belowBox.hidden = false;
        belowTitle.textContent = "조건이 맞지 않는 상품 " + current.below.length + "개";
        showMore("below");
      }
    }

    [kcbField, niceField, amountField].forEach(function (f) { f.input.addEventListener("input", update); });
    [termField, methodField, sortField, catField, typeField].forEach(function (f) { f.input.addEventListener("change", update); });
    update();
    focusHeading(h);
  }

  /**
   * Nothing to compare: what to try, and the notice on public low-income loan programs as the
   * content words it (the version of its terms document in force), fetched when first needed.
   */
  function renderNoResults(box) {
    box.hidden = false;
    if (box.getAttribute("data-drawn") === "true") return;
    box.setAttribute("data-drawn", "true");
    clear(box);
    var h = el("h2", null, "조건에 맞는 상품이 없습니다");
    var tip = el("p", null, "희망 금액을 줄이거나 대출 기간·상환 방법, 금융회사·상품 종류를 바꿔 보세요.");
    var body = el("div", "no-results-body");
    body.setAttribute("aria-busy", "true");
    var loading = el("p", "notice loading", "안내를 불러오는 중…");
    loading.setAttribute("role", "status");
    append(body, loading);
    append(box, h, tip, body);
    loadTerms().then(function (terms) {
      var doc = terms.byId.get(NO_RESULTS_DOCUMENT);
      var version = doc ? currentVersion(doc) : null;
      var url = version ? str(version.url) : "";
      if (!version || !isSafeRelPath(url)) {
        clear(body);
        body.removeAttribute("aria-busy");
        return null;
      }
      return loadTermsBody(url).then(function (fragment) {
        clear(body);
        body.removeAttribute("aria-busy");
        append(body, el("h3", null, str(version.title) || str(doc.title)), fragment);
        var link = el("a", "doc-link-inline", "전체 안내 보기");
        link.href = docHref(NO_RESULTS_DOCUMENT);
        append(body, link);
      });
    }).catch(function () {
      clear(body);
      body.removeAttribute("aria-busy");
      append(body, el("p", "field-error", "안내를 불러오지 못했습니다. 잠시 후 다시 시도해 주세요."));
    });
  }

  function fmtWon(won) {
    return isNum(won) ? withCommas(won) + "원" : "-";
  }

  function wonRange(a, b) {
    return a === b ? fmtWon(a) : fmtWon(a) + " ~ " + fmtWon(b);
  }

  function renderResultRow(r, q, below) {
    var p = r.product;
    var li = el("li", "result");
    li.setAttribute("data-key", r.key);
    if (below) li.setAttribute("data-below", "true");
    var a = el("a", "result-link");
    a.href = productHref(p);
    var logo = r.partner ? renderLogo(r.partner, "result-logo", 40) : logoFallback(partnerName(p));
    var text = el("span", "result-text");
    var limitText = r.limit === null ? "한도 정보 없음" : "최대 " + fmtKrw(r.limit);
    var name = el("span", "product", str(p.name_ko));
    append(text,
      el("span", "partner", partnerName(p, r.partner)),
      name,
      el("span", "apr", aprRange(r.band.apr_min_pct, r.band.apr_max_pct)),
      el("span", "meta", (TYPE_KO[p.type] || p.type) + " · " + p.bureau + " " + r.score + "점 구간 · 한도 " + limitText));
    if (r.low && r.high) {
      append(text,
        el("span", "pay", PAYMENT_LABEL[q.method] + " " + wonRange(r.low.firstPayment, r.high.firstPayment)),
        el("span", "interest", "총 이자 " + wonRange(r.low.totalInterest, r.high.totalInterest)));
    }
    if (below) append(text, el("span", "reason", r.reasons.join(" · ")));
    append(a, logo, text);
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

  function renderLogo(partner, className, size) {
    var logo = str(partner.logo);
    var name = str(partner.name_ko);
    if (isSafeRelPath(logo)) {
      var img = document.createElement("img");
      img.className = className;
      // Next to the partner's name in a result row the logo says nothing more: no alt text there.
      img.alt = size ? "" : name;
      img.width = size || 48;
      img.height = size || 48;
      img.decoding = "async";
      img.addEventListener("error", function () {
        if (img.parentNode) img.parentNode.replaceChild(logoFallback(name, className), img);
      });
      // The logo's object when the release names it (its URL outlives the release), else the data folder.
      showWhenNear(img, (state.data.objects ? dataUrl(logo, partner.logo_sha256) : null) || state.data.folder + logo);
      return img;
    }
    return logoFallback(name);
  }

  /**
   * Sets an image's source once it comes within a screen of the viewport: a phone fetches the
   * logos of the rows it shows, not of the forty a comparison page lists (`loading="lazy"`
   * leaves that distance to the browser, which fetches them all on a short page).
   */
  var nearObserver = null;
  function showWhenNear(img, src) {
    if (typeof IntersectionObserver !== "function") {
      img.src = src;
      return;
    }
    if (!nearObserver) {
      nearObserver = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting) return;
          nearObserver.unobserve(entry.target);
          var pending = entry.target.getAttribute("data-src");
          entry.target.removeAttribute("data-src");
          if (pending) entry.target.src = pending;
        });
      }, { rootMargin: "100% 0px" });
    }
    img.setAttribute("data-src", src);
    nearObserver.observe(img);
  }

  function logoFallback(name, className) {
    var span = el("span", "partner-logo-fallback" + (className ? " " + className : ""), name ? name.charAt(0) : "?");
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
        append(th, " ", el("span", "badge badge-required mine-badge", "내 구간"));
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

  /**
   * The reader's repayment on a product's screen: for the amount, term and method chosen on the
   * comparison and the APRs of the reader's band, the monthly payment, total interest and total
   * (app/loan-math.js); or why the product cannot lend on those conditions.
   */
  function renderMyRepayment(p, band, q) {
    var amount = parseAmount(q.amount).value;
    if (amount === undefined) return el("p", "hint", "비교 화면에 대출 금액을 입력하면 월 상환액과 총 이자를 계산해 드립니다.");
    var amountKrw = amount * 10000;
    var term = Number(q.term);
    var box = el("div", "my-repayment");
    box.id = "my-repayment";
    var conditions = fmtKrw(amountKrw) + " · " + term + "개월 · " + (REPAYMENT_KO[q.method] || q.method);
    append(box, el("h3", null, "내 조건의 상환 예시"));
    var reasons = lendingReasons(p, effectiveLimit(p, band), amountKrw, term, q.method);
    var low = reasons.length ? null : repaymentFigures(amountKrw, band.apr_min_pct, term, q.method);
    var high = reasons.length ? null : repaymentFigures(amountKrw, band.apr_max_pct, term, q.method);
    if (!low || !high) {
      append(box, el("p", "reason", conditions + ": 이 조건으로는 대출받을 수 없습니다" + (reasons.length ? " (" + reasons.join(" · ") + ")" : "") + "."));
      return box;
    }
    var dl = el("dl", "facts");
    fact(dl, "조건", conditions);
    fact(dl, PAYMENT_LABEL[q.method], wonRange(low.firstPayment, high.firstPayment));
    if (low.lastPayment !== low.firstPayment) fact(dl, "마지막 달 상환액", wonRange(low.lastPayment, high.lastPayment));
    fact(dl, "총 이자", wonRange(low.totalInterest, high.totalInterest));
    fact(dl, "총 상환액", wonRange(low.total, high.total));
    append(box, dl, el("p", "hint", "내 구간 금리(" + aprRange(band.apr_min_pct, band.apr_max_pct) + ")로 계산한 예시이며, 실제 금리와 상환액은 심사 결과에 따라 달라집니다."));
    return box;
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
    var query = state.lastQuery || DEFAULT_QUERY;
    back.href = "#/compare" + compareQueryString(query);

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
      var myScore = scoreFor(query, str(p.current.bureau));
      var myBand = myScore === null ? null : findBand(p.current, myScore);
      if (myBand) {
        var mineBox = el("p", "my-band");
        mineBox.id = "my-band";
        append(mineBox, el("strong", null, "내 " + str(p.current.bureau) + " 신용점수 " + myScore + "점: "),
          aprRange(myBand.apr_min_pct, myBand.apr_max_pct) + ", 최대 " + fmtKrw(effectiveLimit(p, myBand)));
        append(rates, mineBox, renderMyRepayment(p, myBand, query));
      } else if (myScore === null) {
        append(rates, el("p", "hint", str(p.current.bureau) + " 신용점수를 비교 화면에 입력하면 내 점수 구간을 표시해 드립니다."));
      }
      append(rates, renderBandTable(p.current, "현재 적용 중 — " + tableMeta(p.current), myScore));
    } else {
      append(rates, el("p", null, "현재 적용 중인 금리표가 없습니다."));
    }
    if (isObj(p.next)) {
      var nextBox = el("div");
      append(nextBox,
        el("h3", null, "변경 예정 금리 (" + fmtDate(p.next.effective_from) + "부터)"),
        renderBandTable(p.next, "변경 예정 — " + tableMeta(p.next), scoreFor(query, str(p.next.bureau))));
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
        // The text of the version's page, copied into this screen (its own navigation left out).
        var body = el("div", "terms-body card");
        body.id = "terms-body";
        body.setAttribute("aria-busy", "true");
        body.setAttribute("data-title", title);
        var loading = el("p", "notice loading", "약관을 불러오는 중…");
        loading.setAttribute("role", "status");
        append(body, loading);
        append(viewer, body);
        var view = state.view;
        var showBody = function () {
          loadTermsBody(url).then(function (fragment) {
            if (view !== state.view) return;
            clear(body);
            body.removeAttribute("aria-busy");
            append(body, fragment);
          }, function (err) {
            if (view !== state.view) return;
            clear(body);
            body.removeAttribute("aria-busy");
            var retry = el("button", "button", "다시 시도");
            retry.type = "button";
            retry.addEventListener("click", function () {
              clear(body);
              body.setAttribute("aria-busy", "true");
              append(body, loading);
              showBody();
            });
            var failed = el("div", "error-box");
            failed.setAttribute("role", "alert");
            append(failed, el("p", null, "약관 본문을 불러오지 못했습니다."), retry,
              el("p", "error-detail", "오류 정보: " + (err && err.message ? err.message : String(err))));
            append(body, failed);
          });
        };
        showBody();
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

  // Elements a terms page's article may use, copied as they are (anything else is unwrapped to
  // its content); no attribute is copied but a link's https:// address.
  var TERMS_TAGS = {
    P: 1, H2: 1, H3: 1, H4: 1, H5: 1, H6: 1, UL: 1, OL: 1, LI: 1, STRONG: 1, EM: 1, B: 1, I: 1, CODE: 1,
    PRE: 1, BLOCKQUOTE: 1, TABLE: 1, THEAD: 1, TBODY: 1, TR: 1, TH: 1, TD: 1, BR: 1, HR: 1, DEL: 1
  };

  function copyTermsNodes(from, to) {
    for (var node = from.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 3) {
        to.appendChild(document.createTextNode(node.nodeValue));
      } else if (node.nodeType === 1) {
        var tag = node.tagName;
        if (tag === "SCRIPT" || tag === "STYLE" || tag === "NAV" || tag === "IFRAME") continue;
        var copy = null;
        if (tag === "H1") copy = document.createElement("h2");
        else if (TERMS_TAGS[tag]) copy = document.createElement(tag.toLowerCase());
        else if (tag === "A") {
          var href = safeHttpsUrl(node.getAttribute("href"));
          if (href) {
            copy = document.createElement("a");
            copy.href = href;
            copy.target = "_blank";
            copy.rel = "noopener noreferrer";
          }
        }
        copyTermsNodes(node, copy || to);
        if (copy) to.appendChild(copy);
      }
    }
  }

  /**
   * The text of a terms page (`terms/<doc>/<version>.html`, a page of the bundle) as nodes of
   * this document: the page is parsed inert (DOMParser runs no script) and the article of its
   * <main> copied element by element through an allow-list, without the page's navigation.
   */
  function loadTermsBody(url) {
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timer = controller ? setTimeout(function () { controller.abort(); }, FETCH_TIMEOUT_MS) : null;
    return fetch(url, { credentials: "same-origin", signal: controller ? controller.signal : undefined }).then(function (res) {
      if (!res.ok) throw new Error("HTTP " + res.status + " " + url);
      return res.text();
    }).then(function (html) {
      if (timer) clearTimeout(timer);
      var page = new DOMParser().parseFromString(html, "text/html");
      var source = page.querySelector("main article");
      if (!source) throw new Error(url + ": no terms text in the page");
      var fragment = document.createDocumentFragment();
      copyTermsNodes(source, fragment);
      return fragment;
    }, function (err) {
      if (timer) clearTimeout(timer);
      throw err;
    });
  }

  // ---------------------------------------------------------------- boot

  window.addEventListener("hashchange", route);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
