// The terms (#/terms, #/terms/<doc>, #/terms/<doc>/<version>): the documents with their
// version in force, and one version's text copied into the page through an allow-list, with a
// loading state and a retry. Reads terms.json and the version's page.

import { append, clear, el } from "../dom.js";
import { CONSENT_CLASS, CONSENT_KO, arr, fmtDate, isObj, str } from "../format.js";
import { FETCH_TIMEOUT_MS, state } from "../data.js";
import { toNative } from "../native.js";
import { focusHeading, main, renderNotFound, setActiveTab } from "../shell.js";
import { isSafeRelPath, safeHttpsUrl } from "../urls.js";

function consentBadge(consent) {
  return el("span", "badge " + (CONSENT_CLASS[consent] || "badge-info"), CONSENT_KO[consent] || "안내");
}

export function docHref(docId, version) {
  return "#/terms/" + encodeURIComponent(docId) + (version ? "/" + encodeURIComponent(version) : "");
}

export function renderTermsList(terms) {
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
    // Each badge a word of its own, in the text and for a screen reader (a space between them,
    // and what the first one is); an announced change says from when, and whether it asks for
    // consent again.
    var badges = el("span", "doc-list-badges");
    append(badges, el("span", "visually-hidden", "동의 구분: "), consentBadge(d.consent));
    var next = scheduledVersion(d);
    if (next) {
      var from = fmtDate(next.effective_from);
      append(badges, " ", el("span", "badge badge-warn", "변경 예정 " + from));
      if (next.requires_reconsent === true) append(badges, " ", el("span", "badge badge-danger", "재동의 필요 " + from));
    }
    append(a, el("span", "doc-title", str(d.title)), " ", badges, " ", el("span", "doc-meta", meta));
    append(li, a);
    append(list, li);
  });
  append(m, h, list);
  focusHeading(h);
}

/** The first version announced to take effect after the data's as-of date, or null. */
export function scheduledVersion(doc) {
  var asOf = state.data && state.data.asOf;
  if (!asOf) return null;
  var later = arr(doc.versions).filter(function (v) { return isObj(v) && str(v.effective_from) > asOf; });
  later.sort(function (x, y) { return str(x.effective_from) < str(y.effective_from) ? -1 : 1; });
  return later[0] || null;
}

export function currentVersion(doc) {
  var versions = arr(doc.versions).filter(isObj);
  if (doc.current !== null && doc.current !== undefined) {
    for (var i = 0; i < versions.length; i++) {
      if (versions[i].version === doc.current) return versions[i];
    }
  }
  return null;
}

export function renderTermsDoc(terms, docId, versionId) {
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
    if (doc.current !== null && v.version === doc.current) append(headLine, " ", el("span", "badge badge-optional", "현재"));
    else if (state.data.asOf && str(v.effective_from) > state.data.asOf) append(headLine, " ", el("span", "badge badge-info", "시행 예정"));
    if (v.requires_reconsent === true) append(headLine, " ", el("span", "badge badge-danger", "재동의 필요"));
    if (v.consent && v.consent !== doc.consent) append(headLine, " ", consentBadge(v.consent));
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
    // A published release names each page by its hash: the page's object (a bucket keeps the
    // pages only as objects); a preview reads the page at its path.
    var objects = state.data && state.data.objects;
    var source = objects && /^[0-9a-f]{64}$/.test(str(chosen.sha256)) ? objects + str(chosen.sha256) + ".html" : url;
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
        loadTermsBody(source).then(function (fragment) {
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
export function loadTermsBody(url) {
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
