// tokenprism: the Share bar of the playground and the comparison (templates/shared/_share.html).
//
// - "Share" posts the page's form (the same fields htmx posts, plus `page`) to /api/share and
//   shows the link it answers: the page's own address when it holds the whole view, else
//   /s/{id}, a view stored on the server. Without JavaScript the same button submits the form
//   to /share, which redirects to the link.
// - "Copy link" (hidden without JavaScript) makes the link if there is none yet and copies it
//   with navigator.clipboard; where that is missing or refused, the link is shown selected
//   in its read-only box with a line saying to press Ctrl+C.
// - Any change to the form (typing, a toggle, an htmx request) forgets the link: it would
//   not show the view any more. Enter in a field of the form (which "clicks" Share, the
//   form's first submit button) makes no link.
// - A text too long for the page address (the server drops it from the address and says so)
//   is kept in this tab's sessionStorage, one per page path and field (`text`, `ids`), as it
//   is typed; a reload or Back/Forward to an address without that field puts it back and
//   sends it as if typed. A fresh visit (a link, a new tab) does not: Share makes a link.
// Text goes in through textContent and .value only; no HTML is built.
(function () {
  "use strict";
  var BAR = "[data-share]";

  function parts(bar) {
    return {
      share: bar.querySelector("[data-share-button]"),
      copy: bar.querySelector("[data-share-copy]"),
      out: bar.querySelector("[data-share-out]"),
      link: bar.querySelector("[data-share-link]"),
      status: bar.querySelector("[data-share-status]")
    };
  }

  function say(bar, text, kind) {
    var status = parts(bar).status;
    status.textContent = text || "";
    status.dataset.kind = kind || "";
  }

  function show(bar, url, keep) {
    var p = parts(bar);
    p.link.value = url;
    p.out.hidden = false;
    if (keep) bar.dataset.url = url;
  }

  function forget(bar) {
    bar.dataset.generation = String(+(bar.dataset.generation || 0) + 1);
    if (!bar.dataset.url && parts(bar).out.hidden) return;
    delete bar.dataset.url;
    var p = parts(bar);
    p.out.hidden = true;
    p.link.value = "";
    say(bar, "");
  }

  function failure(response, body) {
    var message = body && body.error && body.error.message;
    return new Error(message || "Sharing failed (the server answered " + response.status + ").");
  }

  var pending = new WeakMap();  // bar -> the promise of the link being made
  var madeFrom = new WeakMap();  // bar -> the form's fields its link was made from

  function fields(form) {
    return new URLSearchParams(new FormData(form)).toString();
  }

  function makeLink(bar) {
    if (bar.dataset.url) return Promise.resolve(bar.dataset.url);
    if (pending.has(bar)) return pending.get(bar);
    var p = parts(bar);
    var data = new FormData(p.share.form);
    madeFrom.set(bar, fields(p.share.form));
    data.set("page", p.share.value);
    var generation = bar.dataset.generation;
    bar.setAttribute("aria-busy", "true");
    say(bar, "Making a link\u2026");
    var made = fetch("/api/share", { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (body) {
          if (!response.ok || !body || !body.url) throw failure(response, body);
          return body;
        });
      })
      .then(function (body) {
        var url = new URL(body.url, location.href).href;
        show(bar, url, generation === bar.dataset.generation);  // a link to a view since edited is not kept
        say(bar, body.id ? "Link ready: the text is kept on this server." : "Link ready: the address holds the whole view.");
        return url;
      }, function (error) {
        say(bar, error instanceof TypeError ? "The server did not answer. Is it still running?" : error.message, "error");
        throw error;
      });
    pending.set(bar, made);
    var settle = function () { pending.delete(bar); bar.removeAttribute("aria-busy"); };
    made.then(settle, settle);
    return made;
  }

  function copy(bar, url) {
    var p = parts(bar);
    function fallback() {
      show(bar, url, !!bar.dataset.url);
      p.link.focus();
      p.link.select();
      say(bar, "The link is selected: press Ctrl+C (\u2318C on a Mac) to copy it.");
    }
    if (!navigator.clipboard || typeof navigator.clipboard.writeText !== "function") { fallback(); return; }
    navigator.clipboard.writeText(url).then(function () {
      say(bar, "Link copied.");
      p.copy.textContent = "Copied";
      setTimeout(function () { p.copy.textContent = "Copy link"; }, 1500);
    }, fallback);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-share-button], [data-share-copy]");
    var bar = button && button.closest(BAR);
    if (!bar) return;
    event.preventDefault();  // no form submission: this script asks /api/share instead
    // Share comes first in its form's tree order, so Enter in a field of the form "clicks"
    // it (implicit submission); that is not a request for a link.
    var active = document.activeElement;
    if (event.detail === 0 && active && active !== button && active.form === button.form) return;
    var copying = button.hasAttribute("data-share-copy");
    makeLink(bar).then(function (url) {
      if (copying) { copy(bar, url); return; }
      parts(bar).link.focus();
      parts(bar).link.select();
    }, function () { /* said in the status line */ });
  });

  // The link goes when the view it was made for does: an update of the same fields (htmx
  // sending the typing that came before Share) keeps it.
  function changed(form) {
    if (!form) return;
    document.querySelectorAll(BAR).forEach(function (bar) {
      if (parts(bar).share.form === form && madeFrom.get(bar) !== fields(form)) forget(bar);
    });
  }
  ["input", "change"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var el = event.target;
      if (el.closest && !el.closest(BAR)) changed(el.form);
    });
  });
  document.addEventListener("htmx:beforeRequest", function (event) {  // sample buttons, editor buttons
    var elt = event.detail && event.detail.elt;
    if (elt) changed(elt.form || (elt.closest && elt.closest("form")));
  });

  document.querySelectorAll(BAR).forEach(function (bar) {
    var p = parts(bar);
    p.copy.hidden = false;
    if (bar.dataset.link) show(bar, new URL(bar.dataset.link, location.href).href, true);  // a shared view
  });

  // ---- typed text kept across a reload and Back (the address may not hold it) ------------
  var KEPT = ["text", "ids"];
  function keptKey(name) { return "tokenprism:typed:" + location.pathname + ":" + name; }
  function keptField(el) {
    return el && el.matches && el.matches("textarea") && KEPT.indexOf(el.name) >= 0 && el.form ? el : null;
  }
  function keep(field) {
    try { sessionStorage.setItem(keptKey(field.name), field.value); } catch (e) { /* storage full or off: the note says Share */ }
  }
  document.addEventListener("input", function (event) {
    var field = keptField(event.target);
    if (field) keep(field);
  });
  function restore() {
    var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    if (!nav || (nav.type !== "reload" && nav.type !== "back_forward")) return;
    var inAddress = new URLSearchParams(location.search);
    var restored = [];
    KEPT.forEach(function (name) {
      var field = document.querySelector("form textarea[name=" + name + "]"), value = null;
      if (!field || inAddress.has(name)) return;
      try { value = sessionStorage.getItem(keptKey(name)); } catch (e) { return; }
      if (value === null || value === field.value) return;
      field.value = value;
      restored.push(field);
    });
    restored.forEach(function (field) {  // sent as typing is (the view updates, the address is replaced)
      field.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertFromPaste" }));
    });
  }
  if (document.readyState === "complete") restore();
  else window.addEventListener("load", restore);
})();
