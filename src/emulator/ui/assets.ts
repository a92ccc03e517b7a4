/**
 * The emulator's web page (/_emulator/ui/), kept as text so it ships with the build and needs no
 * bundler or dependency. The script builds every element with createElement and textContent, never
 * from markup, and the Content-Security-Policy the route sends allows no other script.
 */

export const INDEX_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>pulumi-svc emulator</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 14px system-ui, sans-serif; margin: 1rem 2rem; color: #1d1d1f; }
h1 { font-size: 1.3rem; margin: 0 0 .3rem; }
h2 { font-size: 1.1rem; border-bottom: 1px solid #ccc; margin-top: 1.5rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
h4 { font-size: .9rem; margin: .4rem 0 .2rem; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
pre { background: #f5f5f7; padding: .4rem; white-space: pre-wrap; word-break: break-all; max-height: 16rem; overflow: auto; }
.timeline { margin: 0; padding-left: 1.2rem; font-size: 12px; }
.fields { color: #555; font-family: monospace; font-size: 12px; }
.empty { color: #888; }
.bad { color: #b00020; }
#note { min-height: 1.2em; font-family: monospace; }
.status { font-weight: bold; }
form { display: inline; }
</style>
</head>
<body>
<h1>pulumi-svc emulator</h1>
<div id="clock"></div>
<div id="note"></div>
<p>
  <button id="reset">reset everything</button>
  <form id="clock-form"><label>auto-advance ms <input name="clock-ms" type="number" min="0" value="0" size="6"></label> <button>set clock</button></form>
</p>
<h2>Runs</h2>
<div id="runs"></div>
<h2>Notification deliveries</h2>
<div id="deliveries"></div>
<h2>Faults</h2>
<form id="fault-form">
  <input name="fault-method" placeholder="method (any)" size="8">
  <input name="fault-path" placeholder="/v1/transform/*" required size="24">
  <input name="fault-status" type="number" placeholder="status" size="5">
  <input name="fault-count" type="number" placeholder="count" value="1" size="4">
  <button>add fault</button>
</form>
<button id="clear-faults">clear faults</button>
<div id="faults"></div>
<h2>Objects</h2>
<div id="objects"></div>
<h2>Requests</h2>
<div id="requests"></div>
<script src="/_emulator/ui/app.js"></script>
</body>
</html>
`;

export const APP_JS = String.raw`"use strict";
// The emulator's page: everything is built with createElement and textContent, never from markup,
// so names and payloads are shown as text whatever they contain.
(function () {
  var token = new URLSearchParams(location.search).get("token");
  var base = "/_emulator";
  function headers(json) {
    var h = {};
    if (token) h["x-emulator-control-token"] = token;
    if (json) h["content-type"] = "application/json";
    return h;
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "onclick") node.addEventListener("click", attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function link(ref, label) {
    var href = base + "/ui/object?" + ref + (token ? "&token=" + encodeURIComponent(token) : "");
    return el("a", { href: href, target: "_blank", rel: "noopener", text: label });
  }
  function fill(id, nodes) {
    var box = document.getElementById(id);
    box.replaceChildren.apply(box, nodes);
  }
  function note(text, bad) {
    var n = document.getElementById("note");
    n.textContent = text;
    n.className = bad ? "bad" : "";
  }
  function send(method, path, body) {
    return fetch(base + path, { method: method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) {
        return res.text().then(function (text) {
          var shown = method + " " + path + " → " + res.status;
          if (!res.ok) {
            var error = text;
            try { error = JSON.parse(text).error || text; } catch (e) { /* not JSON */ }
            note(shown + ": " + error, true);
          } else note(shown, false);
          return refresh();
        });
      })
      .catch(function (err) { note(method + " " + path + " failed: " + err, true); });
  }
  function table(head, rows) {
    return el("table", {}, [el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))]), el("tbody", {}, rows)]);
  }
  function fieldText(fields) {
    return Object.keys(fields).map(function (k) { return k + "=" + JSON.stringify(fields[k]); }).join("  ");
  }
  var chosen = {};
  function renderRuns(runs) {
    if (runs.length === 0) return [el("p", { class: "empty", text: "no runs yet" })];
    return [table(["run", "workspace", "status", "message", "timeline", "actions"], runs.map(function (r) {
      var outcome = el("select", { "aria-label": "outcome of " + r.id }, ["changes", "no-changes", "plan-error", "apply-error", "policy-soft-failed", "policy-hard-failed", "hold-here", "release-hold"].map(function (o) { return el("option", { value: o, text: o }); }));
      // The page is rebuilt on every poll: keep what was picked until it is applied.
      if (chosen[r.id]) outcome.value = chosen[r.id];
      outcome.addEventListener("change", function () { chosen[r.id] = outcome.value; });
      var bodies = {
        "changes": { hasChanges: true, error: null }, "no-changes": { hasChanges: false }, "plan-error": { error: "plan" },
        "apply-error": { error: "apply" }, "policy-soft-failed": { policy: "soft-failed" }, "policy-hard-failed": { policy: "hard-failed" },
        // A run that never finishes by itself: it stays in its status until released or cancelled.
        "hold-here": { holdAt: r.status }, "release-hold": { holdAt: null },
      };
      return el("tr", { "data-run": r.id }, [
        el("td", {}, [link(r.ref, r.id)]),
        el("td", { text: r.workspaceId }),
        el("td", { class: "status", text: r.status }),
        el("td", { text: r.message }),
        el("td", {}, [el("ol", { class: "timeline" }, r.timeline.map(function (t) { return el("li", { text: t.status + " " + t.at.slice(11, 23) }); }))]),
        el("td", {}, r.finished ? [el("span", { class: "empty", text: "finished" })] : [
          el("button", { class: "advance", onclick: function () { send("POST", "/runs/" + encodeURIComponent(r.id) + "/advance", {}); }, text: "advance" }),
          outcome,
          el("button", { onclick: function () { send("POST", "/runs/" + encodeURIComponent(r.id) + "/outcome", bodies[outcome.value]); }, text: "apply outcome" }),
        ]),
      ]);
    }))];
  }
  function renderDeliveries(list) {
    if (list.length === 0) return [el("p", { class: "empty", text: "no deliveries yet" })];
    return list.map(function (d) {
      var answer = d.response ? "answered " + d.response.code + " " + d.response.body : "no answer" + (d.error ? ": " + d.error : "");
      return el("details", { class: "delivery" }, [
        el("summary", { text: d.sentAt.slice(11, 23) + " " + d.trigger + " → " + (d.url || d.destinationType) + " (" + answer + ")" }),
        el("div", { text: "headers:" }),
        el("pre", { text: JSON.stringify(d.headers, null, 2) }),
        el("div", { text: "payload:" }),
        el("pre", { text: d.body }),
        el("div", { text: "destination's answer: " + answer }),
      ]);
    });
  }
  function renderGroups(groups) {
    return groups.map(function (g) {
      var title = (g.service === "run" ? "run service" : "secrets, cluster " + g.cluster + ": " + g.group + (g.type ? " (" + g.type + " engine)" : ""));
      var kinds = g.kinds.filter(function (k) { return k.count > 0; });
      return el("section", { class: "group" }, [el("h3", { text: title })].concat(kinds.length === 0 ? [el("p", { class: "empty", text: "empty" })] : kinds.map(function (k) {
        if (k.objects.length === 0) return el("p", { text: k.kind + ": " + k.count + " (values not shown)" });
        return el("div", {}, [el("h4", { text: k.kind + " (" + k.count + ")" }), el("ul", { class: "objects" }, k.objects.map(function (o) {
          return el("li", {}, [link(o.ref, o.name), el("span", { class: "fields", text: " " + fieldText(o.fields) })]);
        }))]);
      })));
    });
  }
  function render(s) {
    // The box follows the clock, except while someone is typing a new value into it.
    var box = document.querySelector('input[name="clock-ms"]');
    if (document.activeElement !== box) box.value = String(s.clock.autoAdvanceMs || 0);
    document.getElementById("clock").textContent = "cluster " + s.cluster + " at " + s.at + "; auto-advance " + (s.clock.autoAdvanceMs ? "every " + s.clock.autoAdvanceMs + " ms" : "off") + "; force-cancel cool-off " + s.clock.forceCancelCooloffMs + " ms";
    fill("faults", s.faults.length === 0 ? [el("p", { class: "empty", text: "no active faults" })] : [table(["method", "path", "status", "left", "when"], s.faults.map(function (f) {
      return el("tr", {}, [el("td", { text: f.method || "any" }), el("td", { text: f.path }), el("td", { text: f.drop ? "drop" : String(f.status || (f.delayMs ? "delay " + f.delayMs + " ms" : "")) }), el("td", { text: String(f.count) }), el("td", { text: f.when || "before" })]);
    }))]);
    fill("runs", renderRuns(s.runs));
    fill("deliveries", renderDeliveries(s.deliveries));
    fill("objects", renderGroups(s.groups));
    fill("requests", s.requests.length === 0 ? [el("p", { class: "empty", text: "no requests yet" })] : [table(["time", "method", "path", "status"], s.requests.map(function (r) {
      return el("tr", {}, [el("td", { text: r.at.slice(11, 23) }), el("td", { text: r.method }), el("td", { text: r.path }), el("td", { text: String(r.status) })]);
    }))]);
  }
  var open = {};
  function refresh() {
    // Keyed by the summary line, which does not change when newer deliveries come in above it.
    document.querySelectorAll("details.delivery").forEach(function (d) { open[d.querySelector("summary").textContent] = d.open; });
    return fetch(base + "/ui/state.json", { headers: headers(false) })
      .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.json(); })
      .then(function (s) {
        render(s);
        document.querySelectorAll("details.delivery").forEach(function (d) { if (open[d.querySelector("summary").textContent]) d.open = true; });
        document.body.setAttribute("data-updated", s.at);
      })
      .catch(function (err) { note("could not read the emulator: " + err.message, true); });
  }
  document.getElementById("reset").addEventListener("click", function () { send("POST", "/reset"); });
  document.getElementById("clear-faults").addEventListener("click", function () { send("DELETE", "/faults"); });
  document.getElementById("fault-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var f = e.target.elements;
    var body = { path: f.namedItem("fault-path").value, count: Number(f.namedItem("fault-count").value) || 1 };
    if (f.namedItem("fault-method").value) body.method = f.namedItem("fault-method").value;
    if (f.namedItem("fault-status").value) body.status = Number(f.namedItem("fault-status").value);
    send("POST", "/faults", body);
  });
  document.getElementById("clock-form").addEventListener("submit", function (e) {
    e.preventDefault();
    send("PUT", "/clock", { autoAdvanceMs: Number(e.target.elements.namedItem("clock-ms").value) || 0 });
  });
  // The state the page was served with, so the first paint already shows it.
  var first = JSON.parse(document.getElementById("first-state").textContent);
  render(first);
  document.body.setAttribute("data-updated", first.at);
  setInterval(refresh, 1000);
})();
`;
