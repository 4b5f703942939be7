// Values read from the data documents (which the page never trusts to have the right type), and
// how figures, dates and the data's codes are written on the screen.

export function isObj(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

export function isNum(v) {
  return typeof v === "number" && isFinite(v);
}

export function str(v) {
  return typeof v === "string" ? v : "";
}

export function arr(v) {
  return Array.isArray(v) ? v : [];
}

export function compareStr(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

export var CATEGORY_KO = {
  bank: "은행", internet_bank: "인터넷전문은행", savings_bank: "저축은행", card: "카드사",
  capital: "캐피탈", insurance: "보험사", p2p: "온라인투자연계금융"
};
export var REPAYMENT_KO = {
  equal_installment: "원리금균등분할상환",
  equal_principal: "원금균등분할상환",
  bullet: "만기일시상환",
  revolving: "한도대출(마이너스통장)"
};
export var TYPE_KO = {
  credit: "신용대출", credit_line: "마이너스통장", card_loan: "카드론",
  auto_secured: "자동차담보대출", policy: "정책서민금융", refinance: "대환대출"
};
export var RATE_TYPE_KO = { fixed: "고정금리", variable: "변동금리", mixed: "혼합금리 (일정 기간 고정 후 변동)" };
export var CONSENT_KO = { required: "필수", optional: "선택", none: "안내" };
export var CONSENT_CLASS = { required: "badge-required", optional: "badge-optional", none: "badge-info" };
export var PRODUCT_STATUS_KO = { active: "판매 중", paused: "일시 중단", withdrawn: "판매 종료" };
// What a repayment's monthly figure is, by method: equal principal pays most in its first
// month, a bullet loan (and a credit line drawn in full) pays only interest each month.
export var PAYMENT_LABEL = {
  equal_installment: "월 상환액", equal_principal: "첫 달 상환액", bullet: "월 이자", revolving: "월 이자"
};

export function withCommas(n) {
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
export function fmtDecimal(v, minDecimals) {
  if (!isNum(v)) return "-";
  var neg = v < 0;
  var thousandths = Math.round(Math.abs(v) * 1000);
  var intPart = Math.floor(thousandths / 1000);
  var frac = String(thousandths % 1000);
  while (frac.length < 3) frac = "0" + frac;
  while (frac.length > minDecimals && frac.charAt(frac.length - 1) === "0") frac = frac.slice(0, -1);
  return (neg ? "-" : "") + String(intPart) + (frac.length ? "." + frac : "");
}

export function fmtApr(v) {
  return fmtDecimal(v, 2);
}

export function aprRange(min, max) {
  if (!isNum(min) && !isNum(max)) return "금리 정보 없음";
  if (isNum(min) && isNum(max) && min === max) return "연 " + fmtApr(min) + "%";
  return "연 " + fmtApr(min) + "% ~ " + fmtApr(max) + "%";
}

/** KRW in Korean units: 120000000 -> "1억 2,000만원", 50000000 -> "5,000만원". */
export function fmtKrw(krw) {
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

export function fmtWon(won) {
  return isNum(won) ? withCommas(won) + "원" : "-";
}

export function wonRange(a, b) {
  return a === b ? fmtWon(a) : fmtWon(a) + " ~ " + fmtWon(b);
}

export function fmtDate(d) {
  var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(str(d));
  if (!m) return str(d) || "-";
  return m[1] + "년 " + Number(m[2]) + "월 " + Number(m[3]) + "일";
}
