// tokenprism page glue. Everything is delegated from `document`, so it keeps working after
// htmx swaps in new results. No HTML is built from strings: text goes in via textContent.
//
// - hover, tap or focus a token: it lights up in the text and in the ids panel, and the
//   detail line shows its ids, bytes and character range; on the comparison page the tokens
//   covering the same characters light up in every other tokenizer
// - arrow keys, Home and End move the focus through the tokens (one tab stop per list)
// - sample buttons fill the text box before the form is submitted
// - "Copy" copies the ids (requests in flight, the stale mark and errors: live.js)
// - "Find by model": a search box over the <datalist> of model and tokenizer names. On the
//   playground a name sets the tokenizer <select> (which then posts as usual); on the
//   comparison page it filters the tokenizers, and Enter adds the match. On both, a part of a
//   name (any case) lists the names that contain it, to pick from (`matchNames`, one rule). Pages list the
//   built-ins and the recent trained tokenizers only: a name they do not list is asked of
//   GET /api/tokenizers?q=, whose answers join the datalist, the select or the picks
// - a range slider with `data-valuetext` keeps its aria-valuetext in step with its value
// - chat: pointing at a message (its editor card, its row of counts or any of its tokens), or
//   editing it, lights up that message everywhere on the page
// - the tools box is aria-invalid while its status line shows a problem (typing redraws only
//   that line; the server writes the mark on a whole page)
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  var SEGMENT = "[data-seg]";

  function groupOf(el) { return el.closest("[data-link-group]"); }
  function scopeOf(el) { return el.closest("[data-link-scope]"); }

  function clear(scope) {
    scope.querySelectorAll(".hl, .same, .cover").forEach(function (el) {
      el.classList.remove("hl", "same", "cover");
    });
    dock(scope.querySelector("[data-role=detail]"));
  }

  // The detail line floats as a card near the active token and never over it or the line
  // after it: below that next line, or above the token's line when the window has no room
  // below; always inside the window. Its place in the page keeps the card's height and shows
  // the hint the card first held (aria-hidden), so no empty gap is left.
  var hints = new WeakMap();  // detail line -> its first content, the hint
  function nextLineBottom(tok, box) {  // the bottom of the line of tokens after the token's line
    var list = tok.closest("[data-tokens]");
    var all = list ? list.querySelectorAll(".tok") : [];
    var i = Array.prototype.indexOf.call(all, tok), bottom = box.bottom, lineTop = null;
    for (var j = i + 1; j > 0 && j < all.length && j < i + 500; j++) {
      var r = all[j].getBoundingClientRect();
      if (lineTop === null && r.top >= box.bottom - 2) lineTop = r.top;
      else if (lineTop !== null && r.top > lineTop + 4) break;
      bottom = Math.max(bottom, r.bottom);
    }
    return bottom;
  }
  function float(line, tok) {
    if (!line.classList.contains("floating")) {
      var spacer = document.createElement("p");
      spacer.className = "detail detail-spacer";
      spacer.setAttribute("aria-hidden", "true");
      if (hints.has(line)) spacer.appendChild(hints.get(line).cloneNode(true));
      spacer.style.height = line.offsetHeight + "px";  // as the card is, so docking it moves nothing
      line.before(spacer);
      line.classList.add("floating");
    }
    var box = tok.getBoundingClientRect(), gap = 8;
    var width = line.offsetWidth, height = line.offsetHeight;
    var left = Math.min(Math.max(gap, box.left), Math.max(gap, window.innerWidth - width - gap));
    var top = nextLineBottom(tok, box) + gap;
    if (top + height > window.innerHeight - gap) top = Math.max(gap, box.top - height - gap);
    line.style.top = top + "px";
    line.style.left = left + "px";
  }
  function dock(line) {
    if (!line || !line.classList.contains("floating")) return;
    line.classList.remove("floating");
    line.style.top = line.style.left = "";
    if (line.previousElementSibling && line.previousElementSibling.classList.contains("detail-spacer")) {
      line.previousElementSibling.remove();
    }
  }
  window.addEventListener("scroll", function () {
    document.querySelectorAll("[data-role=detail].floating").forEach(function (line) {
      line.classList.remove("pinned");
      dock(line);
    });
  }, { passive: true });

  // The token inspector's address for an id of the tokenizer `name` (none without a name).
  function inspector(name, id) {
    return name ? "/tokenizers/" + encodeURIComponent(name) + "/tokens/" + id : "";
  }

  // A click (or tap) on a token pins its card: hovering elsewhere leaves it, so the pointer
  // can reach its links; Escape, a click outside it or a scroll lets it go.
  function pinned(scope) { return scope && scope.querySelector("[data-role=detail].pinned"); }
  function unpin(scope) {
    (scope || document).querySelectorAll("[data-role=detail].pinned").forEach(function (line) {
      line.classList.remove("pinned");
    });
  }

  function hexBytes(hex) {
    if (hex === "-") return "(no bytes)";
    return hex.replace(/(..)/g, "$1 ").trim().toUpperCase();
  }

  function part(parent, key, value, href) {
    var span = document.createElement("span");
    span.className = "piece";
    if (key) {
      var k = document.createElement("span");
      k.className = "k";
      k.textContent = key + " ";
      span.appendChild(k);
    }
    var v = document.createElement(href ? "a" : "span");
    v.className = "v";
    v.textContent = value;
    if (href) {
      v.href = href;
      v.title = "Open this token's page: its bytes, merges and the same string in other tokenizers";
    }
    span.appendChild(v);
    parent.appendChild(span);
  }

  function showDetail(scope, tok, group) {
    var line = scope.querySelector("[data-role=detail]");
    if (!line) return;
    if (!hints.has(line)) {
      var hint = document.createDocumentFragment();
      line.childNodes.forEach(function (node) { hint.appendChild(node.cloneNode(true)); });
      hints.set(line, hint);
    }
    line.replaceChildren();
    var ids = (tok.dataset.ids || tok.dataset.id).split(" ");
    var hex = (tok.dataset.hex || "").split(" ");
    var name = group.dataset.tokenizer;
    if (name) part(line, "", name);
    if (ids.length === 1) {
      part(line, "id", ids[0], inspector(name, ids[0]));
      part(line, "bytes", hexBytes(hex[0] || "-"));
    } else {
      part(line, "", ids.length + " tokens for one character group:");
      ids.forEach(function (id, i) {
        part(line, "id", id, inspector(name, id));
        part(line, "", hexBytes(hex[i] || "-"));
      });
    }
    var start = +tok.dataset.start, end = +tok.dataset.end;
    part(line, "chars", start + "–" + end + " (" + (end - start) + ")");
    if (tok.closest("[data-tokens]").classList.contains("view-text")) {
      part(line, "text", "\u201c" + tok.textContent.replace(/\n/g, "\u21b5").replace(/\t/g, "\u2192") + "\u201d");
    }
    if (tok.hasAttribute("data-special")) part(line, "", "special token");
    var same = group.querySelectorAll('.tok[data-id="' + tok.dataset.id + '"]').length;
    if (same > 1 && ids.length === 1) part(line, "seen", same + "× here");
    float(line, tok);
  }

  // Scroll a token's own list (each comparison column scrolls on its own) so that the token
  // is inside it; the page itself does not move.
  function reveal(tok) {
    var box = tok.closest("[data-tokens]");
    if (!box || box.scrollHeight <= box.clientHeight) return;
    var b = box.getBoundingClientRect(), r = tok.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - (b.height - r.height) / 2;
  }

  function overlaps(s, e, start, end) {
    if (start === end) return s === e ? s === start : s <= start && start < e;
    if (s === e) return start <= s && s < end;
    return s < end && e > start;
  }

  function highlight(el) {
    var scope = scopeOf(el), group = groupOf(el);
    if (!scope || !group) return;
    var tok = el.classList.contains("tok") ? el : group.querySelector('.tok[data-seg="' + el.dataset.seg + '"]');
    if (!tok) return;
    clear(scope);
    group.querySelectorAll('.tok[data-id="' + tok.dataset.id + '"]').forEach(function (other) {
      other.classList.add("same");
    });
    group.querySelectorAll('[data-seg="' + tok.dataset.seg + '"]').forEach(function (same) {
      same.classList.remove("same");
      same.classList.add("hl");
    });
    // Other tokenizers on the page: the tokens that cover the same characters.
    var start = +tok.dataset.start, end = +tok.dataset.end;
    scope.querySelectorAll("[data-link-group]").forEach(function (other) {
      if (other === group) return;
      var list = other.querySelectorAll(".tok"), first = null;
      for (var i = 0; i < list.length; i++) {
        var s = +list[i].dataset.start, e = +list[i].dataset.end;
        if (s > end) break;  // segments come in text order
        if (overlaps(s, e, start, end)) {
          list[i].classList.add("cover");
          first = first || list[i];
        }
      }
      if (first) reveal(first);
    });
    showDetail(scope, tok, group);
  }

  function settle(scope) {
    var active = document.activeElement;
    if (active && active.matches && active.matches(SEGMENT) && scopeOf(active) === scope) {
      highlight(active);
    } else {
      clear(scope);
    }
  }

  document.addEventListener("pointerover", function (event) {
    var el = event.target.closest && event.target.closest(SEGMENT);
    if (el && !pinned(scopeOf(el))) highlight(el);
  });
  document.addEventListener("pointerout", function (event) {
    var from = event.target.closest && event.target.closest(SEGMENT);
    var to = event.relatedTarget && event.relatedTarget.closest && event.relatedTarget.closest(SEGMENT);
    if (from && !to && scopeOf(from) && !pinned(scopeOf(from))) settle(scopeOf(from));
  });
  document.addEventListener("focusin", function (event) {
    var el = event.target.closest && event.target.closest(SEGMENT);
    if (el) {
      unpin(scopeOf(el));
      highlight(el);
    }
  });
  document.addEventListener("click", function (event) {
    var el = event.target.closest && event.target.closest(SEGMENT);
    if (el && scopeOf(el) && el.closest(".tok, [data-tokens]")) {
      var scope = scopeOf(el);
      unpin(scope);
      highlight(el);
      var line = scope.querySelector("[data-role=detail]");
      if (line) line.classList.add("pinned");
    } else if (!(event.target.closest && event.target.closest("[data-role=detail]"))) {
      document.querySelectorAll("[data-role=detail].pinned").forEach(function (line) {
        line.classList.remove("pinned");
        settle(scopeOf(line));
      });
    }
  });
  // A name picked from the list of matches is typed into its box and applied (or added).
  document.addEventListener("click", function (event) {
    var pick = event.target.closest && event.target.closest("button[data-pick-name]");
    if (!pick || pick.disabled) return;
    var box = pick.closest("[data-model-search], [data-pick-search]"), input = box && box.querySelector("input");
    if (!input) return;
    input.value = pick.dataset.pickName;
    input.focus();
    if (box.matches("[data-pick-search]")) addPick(input);
    else { clearTimeout(typingTimer); applyModel(input); }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    document.querySelectorAll("[data-role=detail].pinned").forEach(function (line) {
      line.classList.remove("pinned");
      settle(scopeOf(line));
    });
  });

  // Chat: one message lit across the editor, the counts and the prompt's tokens.
  var MESSAGE = "[data-message]";
  function litMessage(el, on) {
    var form = el.closest("form");
    if (!form) return;
    form.querySelectorAll(".msg-hl").forEach(function (other) { other.classList.remove("msg-hl"); });
    if (!on) return;
    form.querySelectorAll('[data-message="' + el.dataset.message + '"]').forEach(function (other) {
      other.classList.add("msg-hl");
    });
  }
  document.addEventListener("pointerover", function (event) {
    var el = event.target.closest && event.target.closest(MESSAGE);
    if (el) litMessage(el, true);
  });
  document.addEventListener("pointerout", function (event) {
    var from = event.target.closest && event.target.closest(MESSAGE);
    var to = event.relatedTarget && event.relatedTarget.closest && event.relatedTarget.closest(MESSAGE);
    if (from && (!to || to.dataset.message !== from.dataset.message)) litMessage(from, false);
  });
  document.addEventListener("focusin", function (event) {
    var el = event.target.closest && event.target.closest(MESSAGE);
    if (el) litMessage(el, true);
  });
  document.addEventListener("htmx:afterSettle", function () {  // new tokens while a message is being edited
    var active = document.activeElement;
    var el = active && active.closest && active.closest(MESSAGE);
    if (el) litMessage(el, true);
  });

  // A slider's aria-valuetext follows its value: `data-valuetext` ("{value} of {max} merges").
  document.addEventListener("input", function (event) {
    var el = event.target;
    if (!el.matches || !el.matches("input[type=range][data-valuetext]")) return;
    var n = function (v) { return (+v).toLocaleString("en"); };
    el.setAttribute("aria-valuetext", el.dataset.valuetext.replace("{value}", n(el.value)).replace("{max}", n(el.max)));
  });

  // Roving focus: one tab stop per token list, arrows move between its tokens.
  var KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var el = event.target;
    if (!el.matches || !el.matches(".tok") || !(event.key in KEYS)) return;
    var list = Array.prototype.slice.call(el.closest("[data-tokens]").querySelectorAll(".tok"));
    var step = KEYS[event.key];
    var i = list.indexOf(el);
    var next = step === "first" ? list[0] : step === "last" ? list[list.length - 1] : list[i + step];
    if (!next) return;
    event.preventDefault();
    el.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  });

  // Sample buttons: put the sample in the text box; the form then submits as usual.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-sample]");
    if (button && button.form) {
      var text = button.form.querySelector("textarea[name=text]");
      if (text) text.value = button.dataset.text;
      var encode = button.form.querySelector("#mode-encode");
      if (encode) encode.checked = true;
      return;
    }
    var copy = event.target.closest && event.target.closest("button[data-copy]");
    if (copy) {
      var source = document.querySelector(copy.dataset.copy);
      if (source && navigator.clipboard) {
        navigator.clipboard.writeText(source.textContent).then(function () {
          copy.textContent = "Copied";
          setTimeout(function () { copy.textContent = "Copy"; }, 1500);
        });
      }
    }
  });

  // ---- model names -------------------------------------------------------------------

  // The names of the datalist, resolved as the server's Registry.resolve does: a tokenizer
  // name or alias exactly, then a model name (any case, after a known Hub organisation such as
  // "meta-llama/"), then the first prefix rule.
  function nameOptions() {
    var list = document.querySelector("datalist[data-role=model-names]");
    return list ? Array.prototype.slice.call(list.options) : [];
  }
  function bareName(value) {  // models.bare: lower case, without a known Hub organisation
    var list = document.querySelector("datalist[data-role=model-names]"), lower = value.toLowerCase();
    var orgs = list && list.dataset.orgs ? list.dataset.orgs.split(" ") : [];
    var org = orgs.filter(function (o) { return o && lower.indexOf(o) === 0; })[0];
    return org ? lower.slice(org.length) : lower;
  }
  function hit(value, o) {
    return { name: value, value: o.value, tokenizer: o.dataset.tokenizer, kind: o.dataset.kind, available: !o.hasAttribute("data-missing"), label: o.label };
  }
  function resolveName(value) {
    var options = nameOptions();
    if (!value) return null;
    var lower = bareName(value);
    var found = options.filter(function (o) { return o.dataset.kind === "tokenizer" && o.value === value; })[0]
      || options.filter(function (o) { return o.dataset.kind === "model" && o.value.toLowerCase() === lower; })[0]
      || options.filter(function (o) { return o.dataset.kind === "prefix" && lower.indexOf(o.value.toLowerCase()) === 0; })[0];
    return found ? hit(value, found) : null;
  }

  // The one search rule of both pages (the server's Registry.search and models.matching follow
  // it): every name of the datalist that contains the text, any case, after a known Hub
  // organisation; the name the text resolves to comes first.
  function matchNames(value) {
    var part = bareName(value.trim()), found = resolveName(value.trim()), seen = {}, out = [];
    if (!part) return out;
    if (found) { out.push(found); seen[found.kind + "\u0000" + found.value] = true; }
    nameOptions().forEach(function (o) {
      var key = o.dataset.kind + "\u0000" + o.value;
      if (seen[key] || o.value.toLowerCase().indexOf(part) < 0) return;
      seen[key] = true;
      out.push(hit(value, o));
    });
    return out;
  }

  // The matches under a search box: a short list of names with their tokenizer; a name whose
  // tokenizer is not shipped is listed, marked, and cannot be picked.
  var MATCHES_SHOWN = 8;
  function showMatches(box, value, matches) {
    var list = box.querySelector("[data-role=name-matches]");
    if (!list) return;
    list.textContent = "";
    list.hidden = !matches.length;
    var per = {}, first = [], rest = [];  // up to 3 names per tokenizer first, so "llama" shows Llama 4 too
    matches.forEach(function (m) {
      per[m.tokenizer] = (per[m.tokenizer] || 0) + 1;
      (per[m.tokenizer] <= 3 ? first : rest).push(m);
    });
    first.concat(rest).slice(0, MATCHES_SHOWN).forEach(function (m) {
      var item = document.createElement("li"), pick = document.createElement("button"), uses = document.createElement("span");
      pick.type = "button";
      pick.className = "name-match";
      pick.dataset.pickName = m.value;
      pick.dataset.tokenizer = m.tokenizer;
      pick.textContent = m.kind === "prefix" ? m.value + "*" : m.value;
      uses.className = "match-uses";
      uses.textContent = m.kind === "tokenizer" && m.value === m.tokenizer ? "tokenizer" : "\u2192 " + m.tokenizer;
      if (!m.available) {
        item.dataset.missing = "";
        pick.disabled = true;
        uses.textContent += " (not shipped)";
      }
      item.appendChild(pick);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(uses);
      list.appendChild(item);
    });
    if (matches.length > MATCHES_SHOWN) {
      var more = document.createElement("li");
      more.className = "muted";
      more.textContent = "and " + (matches.length - MATCHES_SHOWN) + " more: type more of the name";
      list.appendChild(more);
    }
  }

  function matchesNote(value, matches) {
    var usable = matches.filter(function (m) { return m.available; }).length;
    return matches.length + (matches.length === 1 ? " name contains \u201c" : " names contain \u201c") + value + "\u201d"
      + (usable ? ": pick one below." : "; tokenprism does not ship their tokenizers.");
  }

  function say(note, text) { if (note) note.textContent = text || ""; }

  function problem(value, found) {
    if (!found) return "No model or tokenizer is called \u201c" + value + "\u201d.";
    if (!found.available) return value + " needs the " + found.tokenizer + " tokenizer, which tokenprism does not ship.";
    return "";
  }

  function hasOption(select, value) {
    return Array.prototype.some.call(select.options, function (o) { return o.value === value; });
  }

  // Asks the server once per text and page; calls `then` with the tokenizers found (after adding
  // them to the datalist). False when this text was asked already.
  var searched = {};
  function searchServer(value, then) {
    if (!value || searched[value]) return false;
    searched[value] = true;
    fetch("/api/tokenizers?q=" + encodeURIComponent(value) + "&limit=20", { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : { tokenizers: [] }; })
      .then(function (body) {
        var list = document.querySelector("datalist[data-role=model-names]");
        body.tokenizers.forEach(function (t) {
          if (!list || Array.prototype.some.call(list.options, function (o) { return o.dataset.kind === "tokenizer" && o.value === t.name; })) return;
          var option = document.createElement("option");
          option.value = t.name;
          option.label = "tokenizer · " + t.kind + " · " + t.vocab_size.toLocaleString("en") + " ids";
          option.dataset.tokenizer = t.name;
          option.dataset.kind = "tokenizer";
          list.appendChild(option);
        });
        then(body.tokenizers);
      })
      .catch(function () { then([]); });
    return true;
  }

  function foundOf(value, tokenizers) {  // the tokenizer `value` stands for, if the server found it
    var found = resolveName(value);
    return found && tokenizers.filter(function (t) { return t.name === found.tokenizer; })[0];
  }

  function addOption(select, t) {
    var group = select.querySelector("optgroup[data-role=found]");
    if (!group) {
      group = document.createElement("optgroup");
      group.label = "Found by search";
      group.dataset.role = "found";
      select.appendChild(group);
    }
    var option = document.createElement("option");
    option.value = t.name;
    option.title = t.description;
    option.textContent = t.name + " · " + t.vocab_size.toLocaleString("en");
    group.appendChild(option);
  }

  function addPickFor(picker, t) {  // a copy of a listed pick, made into this tokenizer's
    var group = picker.querySelector('.pick-group[data-kind="' + CSS.escape(t.kind) + '"]') || picker.querySelector(".pick-group");
    var model = group && group.querySelector("label.pick");
    if (!model) return;
    var pick = model.cloneNode(true);
    pick.title = t.description;
    pick.dataset.tokenizer = t.name;
    pick.dataset.models = (t.models || []).join(" ");
    pick.hidden = false;
    var box = pick.querySelector("input");
    box.value = t.name;
    box.checked = false;
    pick.querySelector(".pick-name").textContent = t.name;
    pick.querySelector(".pick-size").textContent = t.vocab_size.toLocaleString("en");
    var used = pick.querySelector(".pick-models");
    if (used) used.remove();
    group.querySelector(".picks").appendChild(pick);
    if (window.htmx) window.htmx.process(pick);
  }

  // Playground: the search box sets the select and fires its change, so htmx posts the form.
  // A text that names no model or tokenizer lists the names that contain it.
  var applying = false;
  function applyModel(input) {
    var form = input.form, value = input.value.trim();
    var box = input.closest("[data-model-search]");
    var note = box.querySelector("[data-role=picker-note]");
    var select = form.querySelector("select[name=tokenizer]");
    if (!value) { say(note, ""); showMatches(box, value, []); return; }
    var found = resolveName(value), matches = found ? [] : matchNames(value);
    showMatches(box, value, matches);
    if ((!found || !hasOption(select, found.tokenizer)) && searchServer(value, function (tokenizers) {
      var t = foundOf(value, tokenizers);
      if (t && !hasOption(select, t.name)) addOption(select, t);
      if (input.value.trim() === value) applyModel(input);
    })) { say(note, matches.length ? matchesNote(value, matches) : ""); return; }
    if (!found && matches.length) { say(note, matchesNote(value, matches)); return; }
    var why = problem(value, found) || (hasOption(select, found.tokenizer) ? "" : found.tokenizer + " is not in the list.");
    say(note, why);
    if (why || input.dataset.applied === value + "\u0000" + select.value) return;
    select.value = found.tokenizer;
    input.dataset.applied = value + "\u0000" + select.value;
    applying = true;
    try { select.dispatchEvent(new Event("change", { bubbles: true })); } finally { applying = false; }
  }

  // Comparison: show only the tokenizers of the names that match (matchNames), and list those names.
  function filterPicks(input) {
    var picker = input.closest("fieldset"), value = input.value.trim();
    var box = input.closest("[data-pick-search]");
    var note = box.querySelector("[data-role=picker-note]");
    var found = resolveName(value), matches = matchNames(value), wanted = {};
    matches.forEach(function (m) { wanted[m.tokenizer] = true; });
    picker.querySelectorAll("label.pick").forEach(function (pick) {
      pick.hidden = !!value && !wanted[pick.dataset.tokenizer];
    });
    picker.querySelectorAll(".pick-group").forEach(function (group) {
      group.hidden = !group.querySelector("label.pick:not([hidden])");
    });
    showMatches(box, value, found ? [] : matches);
    var match = found && found.available && picker.querySelector('label.pick[data-tokenizer="' + CSS.escape(found.tokenizer) + '"]');
    if (value && !match && searchServer(value, function (tokenizers) {
      var t = foundOf(value, tokenizers);
      if (t && !picker.querySelector('label.pick[data-tokenizer="' + CSS.escape(t.name) + '"]')) addPickFor(picker, t);
      if (input.value.trim() === value) filterPicks(input);
    })) { say(note, matches.length && !found ? matchesNote(value, matches) : ""); return null; }
    if (!value) say(note, "");
    else if (match) say(note, (value === found.tokenizer ? value : value + " uses " + found.tokenizer) + (match.querySelector("input").checked ? " (chosen)" : ": press Enter to add it"));
    else if (found) say(note, problem(value, found) || found.tokenizer + " is not in the list.");
    else say(note, matches.length ? matchesNote(value, matches) : problem(value, null));
    return match;
  }

  function addPick(input) {
    var match = filterPicks(input);
    if (!match) return;
    var box = match.querySelector("input");
    if (!box.checked) {
      box.checked = true;
      box.dispatchEvent(new Event("change", { bubbles: true }));
    }
    input.value = "";
    filterPicks(input);
  }

  function showScripted() {  // controls that need JavaScript start hidden
    document.querySelectorAll("[data-model-search], [data-pick-search], button[data-copy]").forEach(function (el) { el.hidden = false; });
  }
  showScripted();
  document.addEventListener("htmx:afterSettle", showScripted);

  var typingTimer = null;
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (input.closest && input.closest("[data-pick-search]")) { filterPicks(input); return; }
    if (!(input.closest && input.closest("[data-model-search]"))) return;
    clearTimeout(typingTimer);
    // A pick from the list applies at once; typing waits for a pause.
    if (!event.inputType || event.inputType === "insertReplacementText") applyModel(input);
    else typingTimer = setTimeout(function () { applyModel(input); }, 350);
  });
  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!input.closest || event.key !== "Enter") return;
    if (input.closest("[data-model-search]")) { event.preventDefault(); clearTimeout(typingTimer); applyModel(input); }
    else if (input.closest("[data-pick-search]")) { event.preventDefault(); addPick(input); }
  });
  // Capture phase, before htmx sends: a tokenizer chosen in the select empties the search box.
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (applying || !select.matches || !select.matches("select[name=tokenizer]") || !select.form) return;
    var input = select.form.querySelector("[data-model-search] input");
    if (input) {
      input.value = "";
      delete input.dataset.applied;
      say(select.form.querySelector("[data-model-search] [data-role=picker-note]"), "");
      showMatches(input.closest("[data-model-search]"), "", []);
    }
  }, true);

  document.addEventListener("htmx:afterSwap", function () {
    var box = document.getElementById("tools"), status = document.getElementById("tools-status");
    if (!box || !status) return;
    if (status.querySelector("[data-role=tools-error]")) box.setAttribute("aria-invalid", "true");
    else box.removeAttribute("aria-invalid");
  });
})();
