// What the screens show of a partner: its name, its logo (fetched when it comes near the
// viewport, a letter when there is none) and its website.

import { el } from "./dom.js";
import { isObj, str } from "./format.js";
import { dataUrl, state } from "./data.js";
import { isSafeRelPath, safeHttpsUrl } from "./urls.js";

export function partnerName(p, partner) {
  return str(p.partner_name_ko) || (partner ? str(partner.name_ko) : "") || str(p.partner);
}

export function renderLogo(partner, className, size) {
  var logo = str(partner.logo);
  var name = str(partner.name_ko);
  if (isSafeRelPath(logo)) {
    var img = document.createElement("img");
    img.className = className;
    // Next to the partner's name in a result row the logo says nothing more: no alt text there.
    img.alt = size ? "" : name;
    img.width = size || 48;
    img.height = size || 48;
    img.decoding = "async";
    img.addEventListener("error", function () {
      if (img.parentNode) img.parentNode.replaceChild(logoFallback(name, className), img);
    });
    // The logo's object when the release names it (its URL outlives the release), else the data folder.
    showWhenNear(img, (state.data.objects ? dataUrl(logo, partner.logo_sha256) : null) || state.data.folder + logo);
    return img;
  }
  return logoFallback(name);
}

/**
 * Sets an image's source once it comes within a screen of the viewport: a phone fetches the
 * logos of the rows it shows, not of the forty a comparison page lists (`loading="lazy"`
 * leaves that distance to the browser, which fetches them all on a short page).
 */
var nearObserver = null;
function showWhenNear(img, src) {
  if (typeof IntersectionObserver !== "function") {
    img.src = src;
    return;
  }
  if (!nearObserver) {
    nearObserver = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        nearObserver.unobserve(entry.target);
        var pending = entry.target.getAttribute("data-src");
        entry.target.removeAttribute("data-src");
        if (pending) entry.target.src = pending;
      });
    }, { rootMargin: "100% 0px" });
  }
  img.setAttribute("data-src", src);
  nearObserver.observe(img);
}

export function logoFallback(name, className) {
  var span = el("span", "partner-logo-fallback" + (className ? " " + className : ""), name ? name.charAt(0) : "?");
  span.setAttribute("aria-hidden", "true");
  return span;
}

export function websiteLink(partner, text) {
  var url = safeHttpsUrl(isObj(partner) ? partner.website : null);
  if (!url) return null;
  var a = el("a", "website", text);
  a.href = url;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  return a;
}
