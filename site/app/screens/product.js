// A product's screen (#/product/<partner>/<product>): its rates by credit score with the
// reader's band; what the product's advertising must disclose (how the rate is made, when
// interest is charged, costs and fees, late interest, the credit required, its repayment
// example beside the reader's own repayment on the conditions chosen on the comparison, and
// its compliance review number); its lender; and the notices it must carry. Reads the
// product's own document (data.js loadProduct), the partner list and the legal limits.

import { append, clear, el } from "../dom.js";
import {
  PAYMENT_LABEL, PRODUCT_STATUS_KO, RATE_TYPE_KO, REPAYMENT_KO, aprRange, arr, fmtApr, fmtDate, fmtDecimal, fmtKrw, fmtWon, isNum, isObj,
  str, wonRange
} from "../format.js";
import {
  DEFAULT_QUERY, compareQueryString, effectiveLimit, findBand, lendingReasons, parseAmount, repaymentFigures, scoreFor
} from "../conditions.js";
import { state } from "../data.js";
import { toNative } from "../native.js";
import { partnerName, websiteLink } from "../partner-info.js";
import { focusHeading, main, renderNotFound, setActiveTab } from "../shell.js";

export function productHref(p) {
  return "#/product/" + encodeURIComponent(str(p.partner)) + "/" + encodeURIComponent(str(p.id));
}

/** A row of a definition list; `item` names it (data-item) for what reads the screen. */
function fact(dl, term, value, item) {
  var row = el("div");
  if (item) row.setAttribute("data-item", item);
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
    // Each reason its own sentence: a parenthesis around them would nest the ones they hold.
    append(box, el("p", "reason", conditions + ": 이 조건으로는 대출받을 수 없습니다." + reasons.map(function (r) { return " " + r + "."; }).join("")));
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

/**
 * The repayment example of the product's advertising (disclosure.repayment_example), in the
 * words the law gives it (금소법 시행령 제18조①: "100만원을 연 20%로 12개월 동안 원리금균등상환
 * 시 총 납부금액 1,111,614원"), with its monthly payment (loan-math.js) and total interest.
 */
function renderProductExample(example) {
  var box = el("div", "product-example");
  box.id = "product-example";
  append(box, el("h3", null, "상품 안내의 상환 예시"));
  var e = isObj(example) ? example : {};
  if (!isNum(e.amount_krw) || !isNum(e.apr_pct) || !isNum(e.months) || !isNum(e.total_krw) || !REPAYMENT_KO[e.method]) {
    append(box, el("p", "hint", "상환 예시가 없습니다."));
    return box;
  }
  var method = REPAYMENT_KO[e.method];
  append(box, el("p", "example-sentence",
    fmtKrw(e.amount_krw) + "을 연 " + fmtApr(e.apr_pct) + "%로 " + e.months + "개월 동안 " + method + " 시 총 상환액 " + fmtWon(e.total_krw)));
  var dl = el("dl", "facts");
  fact(dl, "조건", fmtKrw(e.amount_krw) + " · " + e.months + "개월 · " + method + " · 연 " + fmtApr(e.apr_pct) + "%", "example-conditions");
  var figures = repaymentFigures(e.amount_krw, e.apr_pct, e.months, e.method);
  if (figures) {
    fact(dl, PAYMENT_LABEL[e.method], fmtWon(figures.firstPayment), "example-payment");
    if (figures.lastPayment !== figures.firstPayment) fact(dl, "마지막 달 상환액", fmtWon(figures.lastPayment), "example-last-payment");
  }
  fact(dl, "총 이자", fmtWon(e.total_krw - e.amount_krw), "example-interest");
  fact(dl, "총 상환액", fmtWon(e.total_krw), "example-total");
  append(box, dl);
  return box;
}

/** The compliance review of the product's advertising: its number and the days it is valid. */
function renderReview(d) {
  var number = str(d.review_no);
  if (!number) return null;
  var review = el("p", "review-no", number + " (유효기간 " + fmtDate(d.review_valid_from) + " ~ " + fmtDate(d.review_valid_until) + ")");
  review.id = "review-no";
  return review;
}

export function renderProduct(p, partners, limitsDoc) {
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
  var mine = null;
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
      append(rates, mineBox);
      mine = renderMyRepayment(p, myBand, query);
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

  // The product as a lender's product page states it (금소법 제19조①, 제22조③): limits, terms,
  // how the rate is made and when interest is charged, costs and fees, late interest and the
  // credit required, in that order; the review number closes the page.
  var d = isObj(p.disclosure) ? p.disclosure : {};
  var cond = el("section", "card");
  cond.id = "product-terms";
  append(cond, el("h2", null, "상품 안내"));
  var dl = el("dl", "facts");
  var lim = isObj(p.limit) ? p.limit : {};
  fact(dl, "대출 한도", fmtKrw(lim.min_krw) + " ~ " + fmtKrw(lim.max_krw), "limit");
  var months = arr(p.terms_months).filter(isNum);
  fact(dl, "대출 기간", months.length ? months.join(", ") + "개월" : "-", "terms");
  var methods = arr(p.repayment_methods).map(function (m) { return REPAYMENT_KO[m] || str(m); }).filter(Boolean);
  fact(dl, "상환 방법", methods.length ? methods.join(", ") : "-", "repayment-methods");
  fact(dl, "금리 유형", RATE_TYPE_KO[d.rate_type] || "-", "rate-type");
  if (str(d.base_rate_ko)) fact(dl, "기준금리", str(d.base_rate_ko), "base-rate");
  fact(dl, "금리 구성", str(d.rate_composition_ko) || "-", "rate-composition");
  fact(dl, "이자 부과 시기", str(d.interest_timing_ko) || "-", "interest-timing");
  fact(dl, "부대비용", str(d.incidental_costs_ko) || "-", "incidental-costs");
  var fees = isObj(p.fees) ? p.fees : {};
  fact(dl, "취급수수료", !isNum(fees.origination_krw) || fees.origination_krw === 0 ? "없음" : fmtKrw(fees.origination_krw), "origination-fee");
  var erPct = fees.early_repayment_pct;
  var erMonths = fees.early_repayment_months;
  var erText = !isNum(erPct) || erPct === 0 || (isNum(erMonths) && erMonths === 0)
    ? "없음"
    : fmtDecimal(erPct, 1) + "% (대출일부터 " + (isNum(erMonths) ? erMonths : "-") + "개월 이내 상환 시)";
  fact(dl, "중도상환수수료", erText, "early-repayment-fee");
  var late = isObj(p.late_interest) ? p.late_interest : {};
  fact(dl, "연체이자율", "약정금리 + " + fmtDecimal(late.spread_pp, 1) + "%p, 최고 연 " + fmtDecimal(late.max_pct, 1) + "%", "late-interest");
  fact(dl, "필요 신용 수준", str(d.required_credit_ko) || "-", "required-credit");
  append(cond, dl);

  // Repayment: the reader's own figures (when the comparison has their score and amount) beside
  // the example the product's advertising states (its total recomputed by validation, DSC-12).
  var examples = el("section", "card");
  examples.id = "repayment-examples";
  append(examples, el("h2", null, "상환 예시"), mine, renderProductExample(d.repayment_example));

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
  append(m, rates, cond, examples, who, disc, renderReview(d));
  focusHeading(h);
  toNative(function () { return RatecardBridge.call("open_product", { key: str(p.key) }); });
}
