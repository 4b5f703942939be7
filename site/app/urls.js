// Addresses that come from data, checked before the page uses them: paths inside the bundle,
// and https:// addresses of partners' websites.

/**
 * A path inside the bundle: relative, no scheme, no leading "/" or "//", no "." / ".."
 * segments, only [A-Za-z0-9._-] in segment names.
 */
var SAFE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
export function isSafeRelPath(p) {
  if (typeof p !== "string" || p.length === 0 || p.length > 512) return false;
  var parts = p.split("/");
  for (var i = 0; i < parts.length; i++) {
    if (!SAFE_SEGMENT.test(parts[i])) return false;
  }
  return true;
}

/** The data folder from the entry document: "data/<id>/" (trailing slash optional in input). */
export function safeDataFolder(p) {
  if (typeof p !== "string") return null;
  var folder = p.charAt(p.length - 1) === "/" ? p.slice(0, -1) : p;
  if (!isSafeRelPath(folder)) return null;
  if (folder.split("/")[0] !== "data") return null;
  return folder + "/";
}

/**
 * The object prefix from the entry document: "../../o/" (from a release served at the root or
 * in a release folder alike), "o/" (releases published before), or null.
 */
export function safeObjectsPrefix(p) {
  if (typeof p !== "string" || !/^(\.\.\/){0,2}[a-z0-9_-]{1,32}\/$/.test(p)) return null;
  return p;
}

/** ".json" for "compare/x.json": the extension an object name keeps (ObjectLayout). */
export function objectExtension(path) {
  var name = path.slice(path.lastIndexOf("/") + 1);
  var dot = name.lastIndexOf(".");
  if (dot < 0) return "";
  var ext = name.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,8}$/.test(ext) ? "." + ext : "";
}

export function safeHttpsUrl(u) {
  if (typeof u !== "string" || u.length > 2048) return null;
  if (!/^https:\/\/[^\s\/?#\\]+/i.test(u)) return null;
  if (/[\s\u0000-\u001f\u007f\\]/.test(u)) return null;
  try {
    var parsed = new URL(u);
    if (parsed.protocol !== "https:" || !parsed.hostname) return null;
    return parsed.href;
  } catch (e) {
    return null;
  }
}
