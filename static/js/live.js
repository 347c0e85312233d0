// tokenprism: results that follow the keys, and the mark on a result older than its form.
//
// - A text field marked `data-live` (hx-trigger="tokenprism:send": the playground's text and
//   ids, the comparison's text, the chat editor's names and contents) is sent by this script,
//   not after a pause: at most one request is in flight per target (#result, #compare-result).
//   A key with none in flight sends at once; a key while one is in flight is remembered, and
//   the form (so the newest text) is sent as soon as that answer lands. An answer older than
//   the newest request of its target is not drawn (hx-sync="closest form:replace" aborts most).
// - A result older than its form is marked at once (aria-busy="true"; app.css dims it with
//   no transition): on the key, and for any htmx request (toggles, the select, the vocabulary
//   search). The mark goes when the answer to the newest state is drawn.
// - A 503 (the work pool is full) keeps the old result, marked, with a note, and sends the
//   newest state again after Retry-After (at most RETRY_CAP_S) or on the next key. Other
//   JSON errors show their message in place of the result; so does a server that is gone.
// - An answer that redraws the chat editor (its buttons, selects, the tokenizer) holds the fields
//   as they were asked: what was typed since is carried into the new editor, to the same
//   message (a card's data-was says where it stood before the button), and a text field that
//   has the focus keeps it and its caret. The answer's autofocus (where its button leaves the
//   focus) is applied with the swap, not at htmx's settle 20 ms later, so a field entered as
//   soon as the new editor shows keeps the keys; and only when the focus is still in the old
//   editor or nowhere, so a field outside it that the user went to meanwhile keeps them too.
// - Each drawn answer dispatches `tokenprism:drawn` on document (detail: the target's id, and
//   `fresh`: whether it answers the newest state), for tests and bench/bench_typing.py.
// Left out: a busy answer to a button or toggle is retried through the form's live field (the
// whole form posts again; a chat editor button's action is not repeated), and a target whose
// form has no live field (the vocabulary search) waits for its next request.
(function () {
  "use strict";
  var LIVE = "[data-live]";
  var SEND = "tokenprism:send";
  var RETRY_CAP_S = 30;
  var states = new WeakMap();  // target element -> its state
  var byXhr = new WeakMap();  // request -> the state of its target

  function stateOf(target) {
    var s = states.get(target);
    if (!s) {
      // gen counts the edits of live fields; sentGen is the gen the newest request carried
      // edited: the live fields edited since the newest request was sent
      s = { target: target, gen: 0, sentGen: 0, xhr: null, field: null, timer: 0, held: false, edited: new Set() };
      states.set(target, s);
    }
    return s;
  }

  function targetOf(field) {
    var owner = field.closest("[hx-target]");
    return owner && document.querySelector(owner.getAttribute("hx-target"));
  }

  function mark(s) { s.target.setAttribute("aria-busy", "true"); }
  function unmark(s) { s.target.removeAttribute("aria-busy"); }

  // The field to send from: the last one edited (by id, should the chat editor have been
  // redrawn since), else the first live field of the target's form.
  function liveField(s) {
    var field = s.field && (s.field.isConnected ? s.field : document.getElementById(s.field.id));
    var form = s.target.closest("form");
    return field || (form && form.querySelector(LIVE));
  }

  function send(s) {
    clearTimeout(s.timer);
    s.timer = 0;
    s.held = false;
    var field = liveField(s);
    if (!field || !window.htmx) return;
    window.htmx.process(field);  // one swapped in by the answer just drawn is processed only when it settles
    window.htmx.trigger(field, SEND);
  }

  // After an answer (or an abort): send the newest state if it changed meanwhile, else unmark.
  function next(s) {
    if (s.xhr || s.timer || s.held) return;
    if (s.gen !== s.sentGen) send(s);
    else unmark(s);
  }

  document.addEventListener("input", function (event) {
    var field = event.target.closest && event.target.closest(LIVE);
    var target = field && targetOf(field);
    if (!target) return;
    var s = stateOf(target);
    s.gen += 1;
    s.field = field;
    s.edited.add(field);
    mark(s);
    if (!s.xhr) send(s);
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var target = event.detail.target;
    if (!target) return;
    var s = stateOf(target);
    clearTimeout(s.timer);
    s.timer = 0;
    s.held = false;
    s.xhr = event.detail.xhr;
    s.sentGen = s.gen;
    s.edited = new Set();
    byXhr.set(s.xhr, s);
    mark(s);
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var s = byXhr.get(event.detail.xhr);
    if (!s || s.xhr !== event.detail.xhr) return;
    s.xhr = null;
    // A microtask: when hx-sync aborted this request for another, that one has started by then.
    Promise.resolve().then(function () { next(s); });
  });

  function note(target, text) {
    var line = target.querySelector(":scope > [data-role=live-note]");
    if (!line) {
      line = document.createElement("p");
      line.className = "live-note";
      line.setAttribute("role", "status");
      line.dataset.role = "live-note";
      target.prepend(line);
    }
    line.textContent = text;
  }

  function hold(s, xhr) {
    var after = parseInt(xhr.getResponseHeader("Retry-After") || "", 10);
    after = Math.min(after >= 0 ? after : 5, RETRY_CAP_S);
    s.held = true;
    if (!liveField(s)) {
      note(s.target, "The server is busy, so this result is not up to date: try again in a few seconds.");
      return;
    }
    note(s.target, "The server is busy, so these tokens are for an older text: trying again in " + after + " s, or on your next key.");
    s.timer = setTimeout(function () {
      s.timer = 0;
      if (!s.xhr) send(s);
    }, after * 1000);
  }

  function inlineMessage(text) {
    var p = document.createElement("div");
    p.className = "message error";
    p.setAttribute("role", "alert");
    p.setAttribute("data-role", "message");
    p.textContent = text;
    return p;
  }

  // The body-size guard in front of the app answers in JSON; show its message in place.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail, xhr = detail.xhr, s = byXhr.get(xhr);
    if (s && s.xhr !== xhr) { detail.shouldSwap = false; return; }  // a newer request is on its way
    if (s && xhr.status === 503) { detail.shouldSwap = false; hold(s, xhr); return; }
    if ((xhr.getResponseHeader("Content-Type") || "").indexOf("application/json") === 0) {
      var message = "The request failed (" + xhr.status + ").";
      try { message = JSON.parse(xhr.responseText).error.message; } catch (e) { /* keep the generic one */ }
      detail.shouldSwap = false;
      detail.target.replaceChildren(inlineMessage(message));
    }
  });
  document.addEventListener("htmx:sendError", function (event) {
    event.detail.target.replaceChildren(inlineMessage("The server did not answer. Is it still running?"));
  });

  // The chat editor redrawn: keys typed since it was asked, and the focus in a text field, stay.
  var refocus = null;  // {field[, start, end, scroll]}: set before the swap, applied after htmx's own focus restore
  function cardOf(el) { return el.closest("[data-role=chat-message]"); }
  function twinIn(fragment, field) {  // the field of the same message in the new editor
    var card = fragment.querySelector('[data-role=chat-message][data-was="' + cardOf(field).dataset.message + '"]');
    return card && card.querySelector('[data-role="' + field.dataset.role + '"]');
  }
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var old = event.detail.target, fragment = event.detail.fragment;
    if (!old.matches("[data-role=chat-editor]") || !event.detail.shouldSwap) return;
    var any = old.querySelector(LIVE), s = any && states.get(targetOf(any));
    if (s) {
      var edited = new Set();
      s.edited.forEach(function (field) {
        var twin = old.contains(field) ? twinIn(fragment, field) : null;
        if (twin) { twin.defaultValue = field.value; edited.add(twin); }
        if (twin && s.field === field) s.field = twin;
      });
      s.edited = edited;
    }
    var active = document.activeElement, inOld = !!active && old.contains(active);
    var twin = inOld && active.matches(LIVE) && twinIn(fragment, active), named = fragment.querySelector("[autofocus]");
    fragment.querySelectorAll("[autofocus]").forEach(function (el) { el.removeAttribute("autofocus"); });
    if (twin) refocus = { field: twin, start: active.selectionStart, end: active.selectionEnd, scroll: active.scrollTop };
    else if (named && (inOld || !active || active === document.body)) refocus = { field: named };
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (refocus) {
      var r = refocus;
      refocus = null;
      if (r.field.isConnected && r.start === undefined) {
        r.field.focus();
      } else if (r.field.isConnected) {
        r.field.focus({ preventScroll: true });
        r.field.setSelectionRange(r.start, r.end);
        r.field.scrollTop = r.scroll;
      }
    }
    var s = byXhr.get(event.detail.xhr);
    if (!s || event.target !== s.target) return;  // out-of-band parts fire it too
    document.dispatchEvent(new CustomEvent("tokenprism:drawn", {
      detail: { target: s.target.id, fresh: s.sentGen === s.gen }
    }));
  });
})();
