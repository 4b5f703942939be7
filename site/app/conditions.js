// The reader's conditions (credit scores, amount, term, repayment method, sort and filters), to
// and from the hash query, and what a product lends on them: the band a score falls in, the
// limit, why a product cannot lend, and the repayment figures (loan-math.js, docs/loan-math.md).

import { REPAYMENT_KO, arr, compareStr, fmtKrw, isNum, isObj, str } from "./format.js";
import { repayment } from "./loan-math.js";

var SCORE_MIN = 0;
var SCORE_MAX = 1000;
var AMOUNT_MAX_MAN = 1000000; // 100억원 (in 만원) — sanity bound for the input

export var TERM_CHOICES = [12, 24, 36, 48, 60];
export var DEFAULT_QUERY = { kcb: "", nice: "", amount: "", term: "36", method: "equal_installment", sort: "apr", cat: "", type: "" };
export var SORT_KO = { apr: "금리 낮은 순", limit: "한도 높은 순", payment: "월 상환액 적은 순" };
// What decides between rows the chosen order ranks equal, as the screen says it beside the sort.
// (the product key last: no content field, nor the order of the content, can move a row).
export var SORT_TIE_KO = {
  apr: "금리가 같으면 한도 높은 순, 그다음 상품 코드 알파벳순",
  limit: "한도가 같으면 금리 낮은 순, 그다음 상품 코드 알파벳순",
  payment: "월 상환액이 같으면 금리 낮은 순, 한도 높은 순, 그다음 상품 코드 알파벳순"
};

export function parseScore(text) {
  var t = String(text).trim();
  if (t === "") return { empty: true };
  if (!/^\d{1,4}$/.test(t)) return { error: "0부터 1000 사이의 정수로 입력해 주세요." };
  var n = Number(t);
  if (n < SCORE_MIN || n > SCORE_MAX) return { error: "0부터 1000 사이의 정수로 입력해 주세요." };
  return { value: n };
}

export function parseAmount(text) {
  var t = String(text).trim().replace(/,/g, "");
  if (t === "") return { empty: true };
  if (!/^\d{1,7}$/.test(t)) return { error: "만원 단위의 정수로 입력해 주세요. (예: 3000 = 3,000만원)" };
  var n = Number(t);
  if (n > AMOUNT_MAX_MAN) return { error: "입력할 수 있는 금액을 넘었습니다." };
  return { value: n };
}

/** The comparison's conditions from the hash query: `score` gives both bureaus' scores, `kcb`/`nice` one each. */
export function queryFromParams(params) {
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

export function hasComparisonQuery(params) {
  return ["score", "kcb", "nice", "amount", "term", "method", "sort", "cat", "type"].some(function (k) { return params.has(k); });
}

export function compareQueryString(q) {
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
export function scoreFor(q, bureau) {
  var s = parseScore(bureau === "NICE" ? q.nice : bureau === "KCB" ? q.kcb : "");
  return s.value === undefined ? null : s.value;
}

export function findBand(table, score) {
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

export function effectiveLimit(product, band) {
  var a = band && isNum(band.limit_max_krw) ? band.limit_max_krw : null;
  var b = isObj(product.limit) && isNum(product.limit.max_krw) ? product.limit.max_krw : null;
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * Why a product (an index entry or its document) cannot lend `amountKrw` (null: any amount)
 * up to `limit` for `term` months repaid by `method`: none when it can. Each block has a
 * `kind` (amount-over, amount-under, term, method) and the `text` a row shows.
 */
export function lendingBlocks(p, limit, amountKrw, term, method) {
  var blocks = [];
  var minKrw = isObj(p.limit) ? p.limit.min_krw : null;
  var terms = arr(p.terms_months).filter(isNum);
  var methods = arr(p.repayment_methods).map(str);
  if (amountKrw !== null && (limit === null || amountKrw > limit)) blocks.push({ kind: "amount-over", text: "한도 초과 (최대 " + fmtKrw(limit) + ")" });
  if (amountKrw !== null && isNum(minKrw) && amountKrw < minKrw) blocks.push({ kind: "amount-under", text: "최소 " + fmtKrw(minKrw) + "부터 가능" });
  // What the product does lend on, in plain words ("12개월만 가능"), never a parenthesis in a
  // parenthesis: a method's own name may hold one (한도대출(마이너스통장)).
  if (terms.indexOf(term) < 0) {
    blocks.push({ kind: "term", text: terms.length ? terms.join("·") + "개월만 가능" : "대출 기간 정보 없음" });
  }
  if (methods.indexOf(method) < 0) {
    var names = methods.map(function (m) { return REPAYMENT_KO[m] || m; });
    blocks.push({ kind: "method", text: names.length ? names.join(", ") + " 방식만 가능" : "상환 방식 정보 없음" });
  }
  return blocks;
}

/** The texts of `lendingBlocks`. */
export function lendingReasons(p, limit, amountKrw, term, method) {
  return lendingBlocks(p, limit, amountKrw, term, method).map(function (b) { return b.text; });
}

export function repaymentFigures(amountKrw, aprPct, months, method) {
  return repayment(amountKrw, aprPct, months, method);
}

/**
 * Sorts comparison rows in place in the order the reader chose (`sort`: apr, limit or payment),
 * ties broken by the next criteria and last by the product key, which no content field can
 * weight: the order of partners or products in the content, or any field added to them, never
 * moves a row.
 */
export function sortRows(rows, sort) {
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
  var order = sort === "limit" ? [byLimit, byApr] : sort === "payment" ? [byPayment, byApr, byLimit] : [byApr, byLimit];
  var compare = function (a, b) {
    for (var i = 0; i < order.length; i++) {
      var c = order[i](a, b);
      if (c) return c;
    }
    return compareStr(a.key, b.key);
  };
  rows.sort(compare);
  return rows;
}
