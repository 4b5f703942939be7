/*
 * ratecard web view: the entry module. It loads the bundle's entry document, draws the screen
 * the hash names and draws again when the hash changes.
 *
 * Plain JS modules, no dependencies, no bundler, no external requests; each screen is a
 * module of its own:
 *   screens/compare.js    #/compare[?score=&kcb=&nice=&amount=&term=&method=&sort=&cat=&type=]
 *                         comparison (default route): score = both bureaus' score, kcb/nice =
 *                         one each (0-1000); amount in 만원; term in months (12-60); method =
 *                         repayment method; sort = apr | limit | payment; cat = partner
 *                         category; type = product type
 *   screens/partners.js   #/partners                    partner list
 *   screens/product.js    #/product/<partner>/<product> product detail
 *   screens/terms.js      #/terms[/<doc>[/<version>]]   terms viewer
 * and what they share: data.js (loading the bundle, docs/bundle-format.md), conditions.js (the
 * reader's conditions and what a product lends on them), loan-math.js (repayment figures,
 * docs/loan-math.md), shell.js (loading and error states, tabs, focus), partner-info.js
 * (logos, websites), format.js (values and how they are written), dom.js, urls.js, native.js
 * (calls to the app through bridge.js, a classic script loaded first).
 *
 * The DOM is built only with createElement/textContent; href/src values that come from data
 * are checked first (bundle-relative paths, or https:// for partner websites).
 */

import { loadDocument, loadEntry, loadIndex, loadPartners, loadProduct, loadTerms, state } from "./data.js";
import { sendReady } from "./native.js";
import { renderChrome, renderLoadError, renderLoading, renderNotFound } from "./shell.js";
import { renderCompare } from "./screens/compare.js";
import { renderPartners } from "./screens/partners.js";
import { renderProduct } from "./screens/product.js";
import { renderTermsDoc, renderTermsList } from "./screens/terms.js";

/** Whether the screen the hash names is the comparison (its shards load with the entry document). */
function comparing() {
  return (parseHash().segs[0] || "compare") === "compare";
}

function start() {
  if (state.loading) return;
  state.loading = true;
  state.data = null;
  renderLoading();
  loadEntry(comparing()).then(function () {
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
      loadEntry(comparing()).then(function () { show(loading, draw, true); }, function (again) { renderLoadError(again, start); });
      return;
    }
    renderLoadError(err, route);
  });
}

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

window.addEventListener("hashchange", route);
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
