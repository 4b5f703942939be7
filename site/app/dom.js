// Building the screen: elements are made only with createElement and textContent, never from
// HTML; href/src values that come from data are checked first (urls.js).

export function $(id) {
  return document.getElementById(id);
}

/** createElement with className and text only. Never takes HTML. */
export function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function append(container) {
  for (var i = 1; i < arguments.length; i++) {
    var child = arguments[i];
    if (child === null || child === undefined || child === false) continue;
    if (typeof child === "string") child = document.createTextNode(child);
    container.appendChild(child);
  }
  return container;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}
