// A product's screen (#/product/<partner>/<product>): its rates by credit score with the
// reader's band, the reader's repayment on the conditions chosen on the comparison, its terms,
// its lender, and the notices it must carry. Reads the product's own document (data.js
// loadProduct), the partner list and the legal limits.

import { append, clear, el } from "../dom.js";
import {
  PAYMENT_LABEL, PRODUCT_STATUS_KO, REPAYMENT_KO, aprRange, arr, fmtApr, fmtDate, fmtDecimal, fmtKrw, isNum, isObj, str, wonRange
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
