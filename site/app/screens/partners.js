// The partner list (#/partners): every lender that is not terminated, in display order, with a
// paused lender's reason, its customer centre and website. Reads partners.json.

import { append, clear, el } from "../dom.js";
import { compareStr, isNum, str } from "../format.js";
import { renderLogo, websiteLink } from "../partner-info.js";
import { focusHeading, main, setActiveTab } from "../shell.js";

export function renderPartners(partners) {
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
