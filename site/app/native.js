// Every call to the app goes through the generated runtime (app/bridge.js, from bridge.yaml,
// loaded before the modules): RatecardBridge.call("command", params). The page must keep
// working whatever the app does with a call, and outside the app, so a failure is logged,
// never thrown.

import { state } from "./data.js";

export function toNative(call) {
  try {
    call().catch(function (e) {
      if (e && e.code !== "no_native" && typeof console !== "undefined") console.warn(e.message);
    });
  } catch (e) {
    /* the runtime did not load: the page still works */
  }
}

/** Tells the app, once, that the first screen is drawn. */
export function sendReady() {
  if (state.readySent) return;
  state.readySent = true;
  var bundleId = state.data.bundleId;
  toNative(function () { return RatecardBridge.call("ready", { bundle_id: bundleId }); });
}
