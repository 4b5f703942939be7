// The comparison (#/compare, the default route): the reader's scores, amount, term and
// repayment method; the products that can lend on them in the order chosen, 20 rows at a time,
// with the monthly payment and total interest at the lowest and highest rate of the reader's
// band; those that cannot, below, with the reason; the notice on public loan programs when
// nothing matches. Reads only the comparison shards (data.js loadIndex).

import { append, clear, el } from "../dom.js";
import {
  CATEGORY_KO, PAYMENT_LABEL, REPAYMENT_KO, TYPE_KO, aprRange, arr, compareStr, fmtKrw, isNum, str, wonRange
} from "../format.js";
import {
  DEFAULT_QUERY, SORT_KO, TERM_CHOICES, compareQueryString, effectiveLimit, findBand, hasComparisonQuery,
  SORT_TIE_KO, lendingBlocks, parseAmount, parseScore, queryFromParams, repaymentFigures, scoreFor, sortRows
} from "../conditions.js";
import { loadTerms, state } from "../data.js";
import { logoFallback, partnerName, renderLogo } from "../partner-info.js";
import { focusHeading, main, setActiveTab } from "../shell.js";
import { isSafeRelPath } from "../urls.js";
import { productHref } from "./product.js";
import { currentVersion, docHref, loadTermsBody } from "./terms.js";

var PAGE_SIZE = 20;
// The terms document whose text the comparison shows when nothing matches (public programs).
var NO_RESULTS_DOCUMENT = "public-loan-programs";

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
  var out = {
    main: [], below: [], missing: { KCB: 0, NICE: 0 }, amountKrw: amountKrw,
    // Products left out by the filters; per bureau, those the reader's score is in no band of
    // (`count`) and the lowest score any of them lends to (`floor`).
    filtered: 0, noBand: {}
  };
  products.forEach(function (p) {
    var partner = p.partner_info;
    var category = str(partner.category);
    if ((q.cat && category !== q.cat) || (q.type && p.type !== q.type)) {
      out.filtered++;
      return;
    }
    var score = scoreFor(q, p.bureau);
    if (score === null) {
      if (out.missing[p.bureau] !== undefined) out.missing[p.bureau]++;
      return;
    }
    var band = findBand(p.current, score);
    if (!band) {
      var excluded = out.noBand[p.bureau] || (out.noBand[p.bureau] = { count: 0, floor: Infinity, score: score });
      excluded.count++;
      arr(p.current.bands).forEach(function (b) {
        if (isNum(b.score_min) && b.score_min < excluded.floor) excluded.floor = b.score_min;
      });
      return;
    }
    var limit = effectiveLimit(p, band);
    var blocks = lendingBlocks(p, limit, amountKrw, term, q.method);
    var reasons = blocks.map(function (b) { return b.text; });
    var row = {
      product: p,
      partner: partner,
      key: p.key,
      band: band,
      score: score,
      aprMin: isNum(band.apr_min_pct) ? band.apr_min_pct : Infinity,
      aprMax: isNum(band.apr_max_pct) ? band.apr_max_pct : Infinity,
      limit: limit,
      blocks: blocks,
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
  sortRows(out.main, q.sort);
  sortRows(out.below, q.sort);
  return out;
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

export function renderCompare(params, products) {
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
  // The basis of the order, beside it: ties never go to a field the content could weight.
  var sortBasis = el("p", "hint", SORT_TIE_KO[sortField.input.value] || "");
  sortBasis.id = "sort-basis";
  sortField.input.setAttribute("aria-describedby", "sort-basis");
  sortField.input.addEventListener("change", function () { sortBasis.textContent = SORT_TIE_KO[sortField.input.value] || ""; });
  append(sortField.wrap, sortBasis);
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
    else renderNoResults(empty, whyNothing(current, query2));
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
 * Why nothing matches the reader's conditions, as [{kind, text}]: the conditions that leave
 * out the products that have a band for the reader's score (amount, term, method, each with
 * how many products it leaves out: those that leave out every one, else all), else the score
 * itself (no product lends to it, with the lowest score one does), else the filters.
 */
function whyNothing(current, q) {
  var reasons = [];
  var below = current.below;
  var blocked = function (kind) {
    return below.filter(function (r) { return r.blocks.some(function (b) { return b.kind === kind; }); });
  };
  var kinds = ["amount-over", "amount-under", "term", "method"].map(function (kind) { return { kind: kind, rows: blocked(kind) }; })
    .filter(function (k) { return k.rows.length; });
  // A condition that leaves out every product is the reason; others only when none does.
  var everyone = kinds.filter(function (k) { return k.rows.length === below.length; });
  (everyone.length ? everyone : kinds).forEach(function (k) {
    var rows = k.rows;
    var count = " (상품 " + rows.length + "개)";
    if (k.kind === "amount-over") {
      var most = Math.max.apply(null, rows.map(function (r) { return r.limit === null ? 0 : r.limit; }));
      reasons.push({ kind: "amount", text: "희망 금액 " + fmtKrw(current.amountKrw) + ": 이 신용점수로 받을 수 있는 가장 큰 한도(" + fmtKrw(most) + ")보다 많습니다" + count });
    } else if (k.kind === "amount-under") {
      var least = Math.min.apply(null, rows.map(function (r) { return r.product.limit.min_krw; }));
      reasons.push({ kind: "amount", text: "희망 금액 " + fmtKrw(current.amountKrw) + ": 가장 작은 최소 대출 금액(" + fmtKrw(least) + ")보다 적습니다" + count });
    } else if (k.kind === "term") {
      reasons.push({ kind: "term", text: "대출 기간 " + q.term + "개월: 이 기간으로 빌려주지 않습니다" + count });
    } else {
      reasons.push({ kind: "method", text: "상환 방법 " + REPAYMENT_KO[q.method] + ": 이 방법으로 빌려주지 않습니다" + count });
    }
  });
  if (!below.length) {
    ["KCB", "NICE"].forEach(function (bureau) {
      var none = current.noBand[bureau];
      if (!none) return;
      reasons.push({
        kind: "score",
        text: "신용점수 " + bureau + " " + none.score + "점: 이 점수에 금리를 정한 상품이 없습니다 (" + bureau + " 기준 상품 " + none.count + "개는 " + none.floor + "점부터)"
      });
    });
  }
  if (!reasons.length && current.filtered) {
    reasons.push({ kind: "filter", text: "금융회사·상품 종류: 선택한 조건에 해당하는 상품이 없습니다 (다른 상품 " + current.filtered + "개)" });
  }
  return reasons;
}

/**
 * Nothing to compare: why (`reasons`, from whyNothing), and the notice on public low-income
 * loan programs as the content words it (the version of its terms document in force), fetched
 * when first needed.
 */
function renderNoResults(box, reasons) {
  box.hidden = false;
  if (box.getAttribute("data-drawn") !== "true") {
    box.setAttribute("data-drawn", "true");
    clear(box);
    var h = el("h2", null, "조건에 맞는 상품이 없습니다");
    var why = el("div", "no-results-why");
    var body = el("div", "no-results-body");
    body.setAttribute("aria-busy", "true");
    var loading = el("p", "notice loading", "안내를 불러오는 중…");
    loading.setAttribute("role", "status");
    append(body, loading);
    append(box, h, why, body);
    loadNoResultsNotice(body);
  }
  var list = box.querySelector(".no-results-why");
  clear(list);
  if (!reasons.length) {
    append(list, el("p", null, "조건을 바꿔 보세요."));
    return;
  }
  var ul = el("ul", "no-results-reasons");
  ul.id = "no-results-reasons";
  reasons.forEach(function (r) {
    var li = el("li", null, r.text);
    li.setAttribute("data-reason", r.kind);
    append(ul, li);
  });
  append(list, el("p", null, "이 조건으로 대출받을 수 없는 이유:"), ul);
}

function loadNoResultsNotice(body) {
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
    el("span", "meta", (TYPE_KO[p.type] || p.type) + " · " + p.bureau + " " + r.band.score_min + "~" + r.band.score_max + "점 구간 · 한도 " + limitText));
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
