// What every screen shares: the main area, the loading and error states, the service name and
// footer, the tab that is current, focus after navigation, and the page-not-found screen.

import { $, append, clear, el } from "./dom.js";
import { fmtDate, str } from "./format.js";
import { state } from "./data.js";

export function main() {
  return $("main");
}

export function renderLoading() {
  var m = main();
  clear(m);
  append(m, el("p", "notice", "불러오는 중…"));
  m.lastChild.setAttribute("role", "status");
}

/** An error with a button that runs `retryWith`. */
export function renderLoadError(err, retryWith) {
  var m = main();
  clear(m);
  var box = el("section", "error-box");
  box.setAttribute("role", "alert");
  var retry = el("button", "button", "다시 시도");
  retry.type = "button";
  retry.addEventListener("click", retryWith);
  append(box,
    el("h1", null, "정보를 불러오지 못했습니다"),
    el("p", null, "네트워크 연결을 확인한 뒤 다시 시도해 주세요. 문제가 계속되면 잠시 후 다시 이용해 주세요."),
    retry,
    el("p", "error-detail", "오류 정보: " + (err && err.message ? err.message : String(err)))
  );
  append(m, box);
  retry.focus();
}

export function renderChrome() {
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

export function setActiveTab(tab) {
  ["compare", "partners", "terms"].forEach(function (t) {
    var a = $("tab-" + t);
    if (!a) return;
    if (t === tab) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
}

/** Move focus to the view's heading after navigation (not on first render). */
var firstRender = true;
export function focusHeading(h) {
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

export function renderNotFound() {
  setActiveTab(null);
  var m = main();
  clear(m);
  var h = el("h1", null, "페이지를 찾을 수 없습니다");
  var back = el("a", "back-link", "금리 비교로 이동");
  back.href = "#/compare";
  append(m, h, el("p", null, "주소가 올바르지 않거나 더 이상 제공되지 않는 정보입니다."), back);
  focusHeading(h);
}
