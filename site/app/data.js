// Loading the bundle (docs/bundle-format.md): data/entry.json once per load (no-cache), then only
// the immutable data documents the screen on show needs, each named there (or in a document
// named there) by path and sha256: from a published release as its content-addressed object
// (`objects` + sha256 + extension, cached for a year and shared by every release), from a built
// folder (no `objects`) in the one data folder the entry document names. The comparison reads
// the shards of the comparison index; a product's document, the partner list and the terms
// index are fetched when their screen opens.

import { arr, isNum, isObj, str } from "./format.js";
import { isSafeRelPath, objectExtension, safeDataFolder, safeObjectsPrefix } from "./urls.js";

export var FETCH_TIMEOUT_MS = 20000;

// The bits of a comparison shard's repayment masks (docs/bundle-format.md).
var REPAYMENT_ORDER = ["equal_installment", "equal_principal", "bullet", "revolving"];

export var state = {
  loading: false,
  data: null,          // the entry document and the service and phrase documents, once loaded
  fetched: new Map(),  // data URL -> promise of its JSON, each fetched once per load
  view: 0,             // bumped per navigation: a screen whose data arrives late is not drawn
  readySent: false,
  lastQuery: null      // the comparison's conditions, kept across screens (DEFAULT_QUERY's shape)
};

/**
 * Where a data file is fetched from, given its path in the data folder and its sha256: its
 * object when the entry document says where objects are, else the data folder. Null for a
 * path or hash that is not one.
 */
export function dataUrl(path, sha256) {
  var d = state.data;
  if (!d || !isSafeRelPath(path)) return null;
  if (d.objects) return /^[0-9a-f]{64}$/.test(str(sha256)) ? d.objects + sha256 + objectExtension(path) : null;
  return d.folder + path;
}

/** A `{"path", "sha256"}` reference of a data document, as a URL. */
function refUrl(ref) {
  return isObj(ref) ? dataUrl(ref.path, ref.sha256) : null;
}

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
export function loadDocument(name) {
  var documents = state.data.documents;
  var ref = Object.prototype.hasOwnProperty.call(documents, name) ? documents[name] : null;
  return fetchData(refUrl(ref), name + ".json");
}

/**
 * Reads the entry document, then the two documents every screen shows (service name, phrases).
 * `comparing`: the comparison is the screen to draw, so its shards are fetched alongside.
 */
export function loadEntry(comparing) {
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
    if (comparing) loadIndex();
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
export function loadIndex() {
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
export function loadProduct(key) {
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
export function loadPartners() {
  return loadDocument("partners").then(function (raw) {
    if (!Array.isArray(raw.partners)) throw new Error("partners.json: no partners");
    var list = raw.partners.filter(isObj);
    var byId = new Map();
    list.forEach(function (p) { byId.set(str(p.id), p); });
    return { list: list, byId: byId };
  });
}

/** terms.json, with a lookup by document id. */
export function loadTerms() {
  return loadDocument("terms").then(function (raw) {
    if (!Array.isArray(raw.documents)) throw new Error("terms.json: no documents");
    var list = raw.documents.filter(isObj);
    var byId = new Map();
    list.forEach(function (d) { byId.set(str(d.id), d); });
    return { list: list, byId: byId };
  });
}
